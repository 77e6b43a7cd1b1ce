// POST /api/v1/prom/write and /read against a real server: the request a real Prometheus 2.42
// sent (captured in test/ingest/fixtures) is stored as CnosDB maps it, and read back through
// remote read with equality and regex matchers; corrupt and unsupported bodies are rejected.

import { readFileSync } from 'node:fs';
import { compressSync, uncompressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROM_TYPES } from '../../host/ingest/prometheus-remote.js';
import { http, type HttpResponse } from '../support/http.js';
import { readBack, type ReadBack } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

const FIXTURE = readFileSync(new URL('../ingest/fixtures/prometheus-remote-write.bin', import.meta.url));
const FIXTURE_HEADERS = JSON.parse(
  readFileSync(new URL('../ingest/fixtures/prometheus-remote-write.headers.json', import.meta.url), 'utf8'),
) as Record<string, string>;
const SAMPLE_MS = Number(
  (
    PROM_TYPES.WriteRequest.toObject(
      PROM_TYPES.WriteRequest.decode(uncompressSync(FIXTURE, { asBuffer: true }) as Buffer),
      { longs: Number },
    ) as { timeseries: Array<{ samples: Array<{ timestamp: number }> }> }
  ).timeseries[0]!.samples[0]!.timestamp,
);

interface Matcher {
  type: number;
  name: string;
  value: string;
}

function readRequest(queries: Array<{ start: number; end: number; matchers: Matcher[] }>): Buffer {
  const message = PROM_TYPES.ReadRequest.encode(
    PROM_TYPES.ReadRequest.fromObject({
      queries: queries.map((q) => ({ start_timestamp_ms: q.start, end_timestamp_ms: q.end, matchers: q.matchers })),
      accepted_response_types: [0],
    }),
  ).finish();
  return compressSync(Buffer.from(message));
}

interface Series {
  labels: Array<{ name: string; value: string }>;
  samples: Array<{ value?: number; timestamp: number }>;
}

function readResponse(r: HttpResponse): Series[][] {
  const decoded = PROM_TYPES.ReadResponse.toObject(
    PROM_TYPES.ReadResponse.decode(uncompressSync(r.body, { asBuffer: true }) as Buffer),
    { longs: Number, defaults: true },
  ) as {
    results: Array<{ timeseries: Series[] }>;
  };
  return decoded.results.map((q) => q.timeseries);
}

const READ_HEADERS = {
  'content-type': 'application/x-protobuf',
  'content-encoding': 'snappy',
  'x-prometheus-remote-read-version': '0.1.0',
};

let server: TestServer;
let stored: ReadBack;
let write: HttpResponse;
let readEq: HttpResponse;
let readRegex: HttpResponse;
let readEmpty: HttpResponse;
const rejected = new Map<string, HttpResponse>();

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  readEmpty = await http(server.url, '/api/v1/prom/read', {
    method: 'POST',
    headers: READ_HEADERS,
    body: readRequest([{ start: 0, end: SAMPLE_MS, matchers: [{ type: 0, name: '__name__', value: 'up' }] }]),
  });
  write = await http(server.url, '/api/v1/prom/write', { method: 'POST', headers: FIXTURE_HEADERS, body: FIXTURE });
  readEq = await http(server.url, '/api/v1/prom/read', {
    method: 'POST',
    headers: READ_HEADERS,
    body: readRequest([
      {
        start: SAMPLE_MS - 1000,
        end: SAMPLE_MS + 1000,
        matchers: [
          { type: 0, name: '__name__', value: 'sundial_fixture_temperature' },
          { type: 0, name: 'room', value: 'x' },
        ],
      },
      { start: SAMPLE_MS + 1, end: SAMPLE_MS + 1000, matchers: [{ type: 0, name: '__name__', value: 'up' }] },
    ]),
  });
  readRegex = await http(server.url, '/api/v1/prom/read', {
    method: 'POST',
    headers: READ_HEADERS,
    body: readRequest([
      {
        start: SAMPLE_MS,
        end: SAMPLE_MS,
        matchers: [
          { type: 2, name: '__name__', value: 'sundial_fixture_.*' },
          { type: 1, name: 'method', value: 'GET' },
        ],
      },
    ]),
  });
  const post = (path: string, body: Buffer | string, headers: Record<string, string>) =>
    http(server.url, path, { method: 'POST', body, headers });
  rejected.set(
    'write: a corrupt snappy block',
    await post('/api/v1/prom/write', Buffer.from('not snappy at all'), FIXTURE_HEADERS),
  );
  rejected.set(
    'write: a truncated protobuf',
    await post(
      '/api/v1/prom/write',
      compressSync((uncompressSync(FIXTURE, { asBuffer: true }) as Buffer).subarray(0, 100)),
      FIXTURE_HEADERS,
    ),
  );
  rejected.set(
    'write: remote write 2.0',
    await post('/api/v1/prom/write', FIXTURE, {
      ...FIXTURE_HEADERS,
      'content-type': 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
    }),
  );
  rejected.set('write: a JSON body', await post('/api/v1/prom/write', '{}', { 'content-type': 'application/json' }));
  // `precision` is a write parameter on every write route, checked even where samples carry milliseconds.
  rejected.set('write: an unknown precision', await post('/api/v1/prom/write?precision=zz', FIXTURE, FIXTURE_HEADERS));
  rejected.set(
    'read: a bad regex',
    await post(
      '/api/v1/prom/read',
      readRequest([{ start: 0, end: 1, matchers: [{ type: 2, name: 'job', value: '(' }] }]),
      READ_HEADERS,
    ),
  );
  rejected.set('read: an unknown database', await post('/api/v1/prom/read?db=nope', readRequest([]), READ_HEADERS));
  expect(await server.stop()).toBe(0);
  stored = await readBack(server.dataDir);
});

afterAll(async () => {
  await stored?.close();
  server?.cleanup();
});

describe('POST /api/v1/prom/write', () => {
  it('stores what Prometheus sent: table from __name__, labels as tags, value DOUBLE, ms to ns', async () => {
    expect([write.status, write.body.length]).toEqual([200, 0]);
    const rows = await stored.rows('sundial_fixture_requests_total');
    expect(rows.map((r) => [r.time, r.method, r.path, r.value, r.__name__, r.job])).toEqual([
      [BigInt(SAMPLE_MS) * 1_000_000n, 'GET', '/a b', 3, 'sundial_fixture_requests_total', 'fixture'],
      [BigInt(SAMPLE_MS) * 1_000_000n, 'POST', '/ü"q"', 1.5, 'sundial_fixture_requests_total', 'fixture'],
    ]);
    expect((await stored.rows('up')).map((r) => r.value)).toEqual([1]);
    const t = stored.storage.catalog.database('cnosdb', 'public')!.tables.get('up')!;
    expect([t.tags.map((c) => c.name), t.fields.map((c) => c.name)]).toEqual([
      ['__name__', 'instance', 'job'],
      ['value'],
    ]);
  });

  const statuses: Array<[string, number, string]> = [
    ['write: a corrupt snappy block', 400, '040013'],
    ['write: a truncated protobuf', 400, '040017'],
    ['write: remote write 2.0', 400, '040005'],
    ['write: a JSON body', 400, '040005'],
    ['write: an unknown precision', 400, '040001'],
    ['read: a bad regex', 400, '040001'],
    ['read: an unknown database', 422, '030017'],
  ];
  for (const [name, status, code] of statuses) {
    it(`rejects ${name} with ${status} ${code}`, () => {
      const r = rejected.get(name)!;
      expect([
        r.status,
        r.headers['x-sundial-error-code'],
        (JSON.parse(r.text) as { error_code: string }).error_code,
      ]).toEqual([status, code, code]);
    });
  }
});

describe('POST /api/v1/prom/read', () => {
  it('answers a snappy protobuf ReadResponse, one result per query', () => {
    expect([readEq.status, readEq.headers['content-type'], readEq.headers['content-encoding']]).toEqual([
      200,
      'application/x-protobuf',
      'snappy',
    ]);
    const [temperature, upLater] = readResponse(readEq);
    expect(temperature).toEqual([
      {
        labels: [
          { name: '__name__', value: 'sundial_fixture_temperature' },
          { name: 'instance', value: expect.stringMatching(/^127\.0\.0\.1:\d+$/) },
          { name: 'job', value: 'fixture' },
          { name: 'room', value: 'x' },
        ],
        samples: [{ value: -273.15, timestamp: SAMPLE_MS }],
      },
    ]);
    expect(upLater).toEqual([]);
  });

  it('selects tables and series by regex and inequality', () => {
    const [series] = readResponse(readRegex);
    expect(series!.map((s) => Object.fromEntries(s.labels.map((l) => [l.name, l.value])))).toEqual([
      expect.objectContaining({ __name__: 'sundial_fixture_requests_total', method: 'POST' }),
      expect.objectContaining({ __name__: 'sundial_fixture_temperature', room: 'x' }),
      expect.objectContaining({ __name__: 'sundial_fixture_temperature', room: 'y' }),
    ]);
    expect(series!.find((s) => s.labels.some((l) => l.value === 'y'))!.samples).toEqual([
      { value: 0, timestamp: SAMPLE_MS },
    ]);
  });

  it('answers an empty result before anything is written', () => {
    expect(readEmpty.status).toBe(200);
    expect(readResponse(readEmpty)).toEqual([[]]);
  });
});
