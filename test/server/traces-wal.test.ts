// Spans reach the WAL as version 2 write batches (no series keys, FORMAT.md §1): acknowledged
// spans must come back from it after SIGKILL, with every tag and field, and a span sent again
// (an exporter's retry) must land on the series it had.

import { describe, expect, it } from 'vitest';
import { otlpTypes } from '../../host/ingest/otlp-proto.js';
import { http } from '../support/http.js';
import { startServer } from '../support/server.js';

const SP = 'ResourceSpans/ScopeSpans/Span/';

function body(first: number, count: number): Uint8Array {
  const T = otlpTypes().ExportTraceServiceRequest;
  const spans = Array.from({ length: count }, (_, k) => {
    const i = first + k;
    const id = (n: number, bytes: number) =>
      Buffer.from(
        i
          .toString(16)
          .padStart(bytes * 2, '0')
          .slice(-bytes * 2),
        'hex',
      ).fill(n, 0, 1);
    return {
      traceId: id(0xab, 16),
      spanId: id(0xcd, 8),
      name: i % 2 === 0 ? 'GET /items' : 'SELECT, items = "x"',
      kind: 2,
      startTimeUnixNano: String(1_704_067_200_000_000_000n + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(1_704_067_200_000_000_000n + BigInt(i) * 1_000_000n + 5000n),
      attributes: [
        { key: 'http.target', value: { stringValue: `/items/${i}` } },
        { key: 'n', value: { intValue: i } },
      ],
    };
  });
  return T.encode(
    T.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop é' } }] },
          scopeSpans: [{ scope: { name: 'lib' }, spans }],
        },
      ],
    }),
  ).finish();
}

const post = (url: string, b: Uint8Array) =>
  http(url, '/api/v1/traces', {
    method: 'POST',
    body: b,
    headers: { 'content-type': 'application/x-protobuf', table: 'spans' },
  });

const query = `SELECT "${SP}name" AS name, "${SP}span_id" AS span, "${SP}attributes/http.target" AS target, "${SP}attributes/n" AS n,
  "ResourceSpans/Resource/attributes/service.name" AS service FROM spans ORDER BY n`;

describe('spans in the WAL', () => {
  it('come back whole after SIGKILL, and a span sent again stays one series', async () => {
    const first = await startServer();
    try {
      for (let b = 0; b < 4; b++) expect((await post(first.url, body(b * 50, 50))).status).toBe(200);
      // The first body again: the same spans, so the same series (their rows merge on time).
      expect((await post(first.url, body(0, 50))).status).toBe(200);
      const before = await http(first.url, '/api/v1/sql', { method: 'POST', body: query });
      expect(before.status).toBe(200);
      await first.kill();
      const again = await startServer({ dataDir: first.dataDir });
      try {
        expect(again.logs.some((l) => l.msg === 'WAL replayed')).toBe(true);
        const after = await http(again.url, '/api/v1/sql', { method: 'POST', body: query });
        expect(after.status).toBe(200);
        expect(after.text).toBe(before.text);
        const lines = after.text.trim().split('\n');
        expect(lines).toHaveLength(201);
        expect(lines[1]).toBe('GET /items,cd00000000000000,/items/0,0,shop é');
        expect(lines[2]).toBe('"SELECT, items = ""x""",cd00000000000001,/items/1,1,shop é');
        const series = await http(again.url, '/api/v1/sql', { method: 'POST', body: 'SHOW SERIES FROM spans' });
        expect([series.status, series.text.trim().split('\n').length]).toEqual([200, 201]);
      } finally {
        await again.stop();
      }
    } finally {
      await first.kill();
      first.cleanup();
    }
  });
});
