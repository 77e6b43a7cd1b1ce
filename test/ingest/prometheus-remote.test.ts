// Prometheus remote write and read messages, in-process. The fixture is one request captured
// from a real Prometheus 2.42 (fixtures/capture-prometheus-remote-write.mjs): it must decode to
// the expected rows, and the same WriteRequest built with protobufjs must encode to exactly the
// bytes Prometheus sent.

import { readFileSync } from 'node:fs';
import { compressSync, uncompressSync } from 'snappy';
import { describe, expect, it } from 'vitest';
import {
  encodePromReadResponse,
  matches,
  parsePromRead,
  parsePromWrite,
  PROM_TYPES,
} from '../../host/ingest/prometheus-remote.js';
import { columnsOf, rejection, rowsOf } from './ingest-support.js';

const FIXTURE = readFileSync(new URL('./fixtures/prometheus-remote-write.bin', import.meta.url));
const MS = 1_000_000n;

/** The fixture's content, written out by hand from the /metrics page the capture served. */
function fixtureRequest(instance: string, ts: number, scrapeDuration: number): object {
  const base = [
    { name: 'instance', value: instance },
    { name: 'job', value: 'fixture' },
  ];
  // Go's protobuf marshalling leaves out a proto3 field holding its zero value, so a sample
  // with value 0 carries only its timestamp.
  const series = (name: string, extra: Array<{ name: string; value: string }>, value: number) => ({
    labels: [{ name: '__name__', value: name }, ...base, ...extra],
    samples: [value === 0 ? { timestamp: ts } : { value, timestamp: ts }],
  });
  return {
    timeseries: [
      series(
        'sundial_fixture_requests_total',
        [
          { name: 'method', value: 'GET' },
          { name: 'path', value: '/a b' },
        ],
        3,
      ),
      series(
        'sundial_fixture_requests_total',
        [
          { name: 'method', value: 'POST' },
          { name: 'path', value: '/ü"q"' },
        ],
        1.5,
      ),
      series('sundial_fixture_temperature', [{ name: 'room', value: 'x' }], -273.15),
      series('sundial_fixture_temperature', [{ name: 'room', value: 'y' }], 0),
      series('up', [], 1),
      series('scrape_duration_seconds', [], scrapeDuration),
      series('scrape_samples_scraped', [], 4),
      series('scrape_samples_post_metric_relabeling', [], 4),
      series('scrape_series_added', [], 4),
    ],
  };
}

describe('Prometheus remote write', () => {
  const message = uncompressSync(FIXTURE, { asBuffer: true }) as Buffer;
  const decoded = PROM_TYPES.WriteRequest.toObject(PROM_TYPES.WriteRequest.decode(message), { longs: Number }) as {
    timeseries: Array<{
      labels: Array<{ name: string; value: string }>;
      samples: Array<{ timestamp: number; value?: number }>;
    }>;
  };
  const instance = decoded.timeseries[0]!.labels.find((l) => l.name === 'instance')!.value;
  const ts = decoded.timeseries[0]!.samples[0]!.timestamp;
  const scrapeDuration = decoded.timeseries[5]!.samples[0]!.value!;

  it('builds, with protobufjs and snappy, exactly the bytes Prometheus 2.42 sent', () => {
    const built = PROM_TYPES.WriteRequest.encode(
      PROM_TYPES.WriteRequest.fromObject(fixtureRequest(instance, ts, scrapeDuration)),
    ).finish();
    expect(Buffer.from(built).toString('hex')).toBe(message.toString('hex'));
    // and the snappy block around it too, as sent on the wire
    expect(compressSync(Buffer.from(built)).toString('hex')).toBe(FIXTURE.toString('hex'));
  });

  it('stores the captured request as CnosDB maps it: table from __name__, labels as tags, DOUBLE value', () => {
    const { batches, samples } = parsePromWrite(message, 'ns');
    expect(samples).toBe(9);
    const rows = rowsOf(batches);
    expect(rows.map((r) => r.table)).toEqual([
      'scrape_duration_seconds',
      'scrape_samples_post_metric_relabeling',
      'scrape_samples_scraped',
      'scrape_series_added',
      'sundial_fixture_requests_total',
      'sundial_fixture_requests_total',
      'sundial_fixture_temperature',
      'sundial_fixture_temperature',
      'up',
    ]);
    expect(rows.find((r) => r.table === 'sundial_fixture_requests_total' && r.method === 'POST')).toEqual({
      table: 'sundial_fixture_requests_total',
      time: BigInt(ts) * MS,
      __name__: 'sundial_fixture_requests_total',
      instance,
      job: 'fixture',
      method: 'POST',
      path: '/ü"q"',
      value: 1.5,
    });
    expect(rows.filter((r) => r.table === 'sundial_fixture_temperature').map((r) => [r.room, r.value])).toEqual([
      ['x', -273.15],
      ['y', 0],
    ]);
    expect(columnsOf(batches).up).toEqual({ __name__: 'TAG', instance: 'TAG', job: 'TAG', value: 'DOUBLE' });
  });

  it('uses prom_metric_not_specified without __name__, drops empty labels, keeps NaN', () => {
    const req = PROM_TYPES.WriteRequest.encode(
      PROM_TYPES.WriteRequest.fromObject({
        timeseries: [
          {
            labels: [
              { name: 'a', value: '1' },
              { name: 'b', value: '' },
            ],
            samples: [{ value: NaN, timestamp: 5 }],
          },
        ],
      }),
    ).finish();
    const rows = rowsOf(parsePromWrite(req, 'ms').batches);
    expect(rows).toEqual([{ table: 'prom_metric_not_specified', time: 5n, a: '1', value: NaN }]);
  });

  it('rejects a truncated message', () => {
    expect(rejection(() => parsePromWrite(message.subarray(0, message.length - 7), 'ns'))[0]).toBe('040017');
  });
});

describe('Prometheus remote read', () => {
  const request = PROM_TYPES.ReadRequest.encode(
    PROM_TYPES.ReadRequest.fromObject({
      queries: [
        {
          start_timestamp_ms: 1000,
          end_timestamp_ms: 2000,
          matchers: [
            { type: 0, name: '__name__', value: 'up' },
            { type: 2, name: 'job', value: 'fix.*' },
            { type: 3, name: 'instance', value: 'b|c' },
            { type: 1, name: 'zone', value: 'eu' },
          ],
        },
      ],
      accepted_response_types: [0],
    }),
  ).finish();

  it('reads queries and anchors regular expressions', () => {
    const [q] = parsePromRead(request);
    expect([q!.startMs, q!.endMs]).toEqual([1000n, 2000n]);
    const [eq, re, nre, neq] = q!.matchers;
    expect([matches(eq!, 'up'), matches(eq!, 'upx')]).toEqual([true, false]);
    expect([matches(re!, 'fixture'), matches(re!, 'a fixture')]).toEqual([true, false]);
    expect([matches(nre!, 'a'), matches(nre!, 'b'), matches(nre!, 'bc')]).toEqual([true, false, true]);
    expect([matches(neq!, ''), matches(neq!, 'eu')]).toEqual([true, false]);
  });

  it('matches in linear time (RE2), so a pathological regex cannot hang the server', () => {
    const evil = PROM_TYPES.ReadRequest.encode(
      PROM_TYPES.ReadRequest.fromObject({ queries: [{ matchers: [{ type: 2, name: 'a', value: '(a+)+$' }] }] }),
    ).finish();
    const [q] = parsePromRead(evil);
    expect(matches(q!.matchers[0]!, 'a'.repeat(5000) + 'b')).toBe(false);
  });

  it('lets . match a newline, as Prometheus does', () => {
    const req = PROM_TYPES.ReadRequest.encode(
      PROM_TYPES.ReadRequest.fromObject({ queries: [{ matchers: [{ type: 2, name: 'a', value: 'x.y' }] }] }),
    ).finish();
    expect(matches(parsePromRead(req)[0]!.matchers[0]!, 'x\ny')).toBe(true);
  });

  it('rejects an invalid regular expression and a truncated message', () => {
    const bad = PROM_TYPES.ReadRequest.encode(
      PROM_TYPES.ReadRequest.fromObject({ queries: [{ matchers: [{ type: 2, name: 'a', value: '(' }] }] }),
    ).finish();
    expect(rejection(() => parsePromRead(bad))[0]).toBe('040001');
    expect(rejection(() => parsePromRead(request.subarray(0, request.length - 3)))[0]).toBe('040017');
  });

  it('encodes a ReadResponse that Prometheus decodes', () => {
    const bytes = encodePromReadResponse([
      [{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestamp: 1500 }] }],
    ]);
    const back = PROM_TYPES.ReadResponse.toObject(
      PROM_TYPES.ReadResponse.decode(uncompressSync(compressSync(Buffer.from(bytes)), { asBuffer: true }) as Buffer),
      { longs: Number },
    );
    expect(back).toEqual({
      results: [
        { timeseries: [{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestamp: 1500 }] }] },
      ],
    });
  });
});
