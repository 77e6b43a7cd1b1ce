// Loki pushes (`/api/v1/es/_bulk?log_type=loki`) whose entries share timestamps (issue 25: a
// winston-loki client stamping milliseconds sent 300 lines and 124 were stored while the reply was
// 200). Every distinct line is kept, in JSON and snappy protobuf, in ns and ms databases, within a
// request and across two; an identical [timestamp, line] pair collapses, as in Loki.

import protobuf from 'protobufjs';
import { compressSync } from 'snappy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

const PUSH = protobuf
  .parse(
    // grafana/loki pkg/push/push.proto, the messages Promtail sends (gogoproto options dropped).
    `syntax = "proto3"; package logproto;
     message PushRequest { repeated StreamAdapter streams = 1; }
     message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
     message EntryAdapter { Timestamp timestamp = 1; string line = 2; }
     message Timestamp { int64 seconds = 1; int32 nanos = 2; }`,
  )
  .root.lookupType('logproto.PushRequest');

type Entry = [ms: number, line: string];
interface Stream {
  labels: Record<string, string>;
  entries: Entry[];
}

/** 2024-02-01T00:00:00Z in milliseconds. */
const BASE_MS = 1706745600000;

/**
 * 300 lines as a millisecond logger stamps them: 10 lines in each of 30 milliseconds, 20 ms apart
 * (so that the lines moved within a millisecond never reach the next one, in either precision).
 */
const LINES: Entry[] = Array.from({ length: 300 }, (_, i) => [BASE_MS + Math.floor(i / 10) * 20, `GET /item/${i} 200`]);

function jsonBody(streams: Stream[]): Buffer {
  const values = (s: Stream) => s.entries.map(([ms, line]) => [`${BigInt(ms) * 1_000_000n}`, line]);
  return Buffer.from(JSON.stringify({ streams: streams.map((s) => ({ stream: s.labels, values: values(s) })) }));
}

function protobufBody(streams: Stream[]): Buffer {
  const labels = (l: Record<string, string>) =>
    `{${Object.entries(l)
      .map(([k, v]) => `${k}="${v}"`)
      .join(', ')}}`;
  const message = PUSH.fromObject({
    streams: streams.map((s) => ({
      labels: labels(s.labels),
      entries: s.entries.map(([ms, line]) => ({
        timestamp: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 },
        line,
      })),
    })),
  });
  return compressSync(Buffer.from(PUSH.encode(message).finish()));
}

const ENCODINGS = [
  { name: 'JSON', contentType: 'application/json', body: jsonBody },
  { name: 'snappy protobuf', contentType: 'application/x-protobuf', body: protobufBody },
] as const;

/** The database precision's units in a millisecond. */
const PER_MS = { ns: 1_000_000n, ms: 1n } as const;

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
  await csv("CREATE DATABASE loki_ns WITH PRECISION 'ns'");
  await csv("CREATE DATABASE loki_ms WITH PRECISION 'ms'");
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

const { csv } = sqlChecks(() => server.url);

async function push(db: string, table: string, contentType: string, body: Buffer, query = ''): Promise<void> {
  const r = await http(server.url, `/api/v1/es/_bulk?db=${db}&table=${table}&log_type=loki${query}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  expect([r.status, r.text]).toEqual([200, '']);
}

/** `table`'s rows as `time-in-db-units,columns...` lines, ordered by time and then the columns. */
async function rows(db: string, table: string, columns: string): Promise<string[]> {
  const text = await csv(`SELECT CAST(time AS BIGINT) AS t, ${columns} FROM ${table} ORDER BY t, ${columns}`, db);
  return text.trimEnd().split('\n').slice(1);
}

for (const enc of ENCODINGS) {
  for (const unit of ['ns', 'ms'] as const) {
    describe(`${enc.name} in a ${unit} database`, () => {
      const db = `loki_${unit}`;
      const table = enc.name === 'JSON' ? 'json' : 'proto';
      const at = (ms: number, k: number): bigint => BigInt(ms) * PER_MS[unit] + BigInt(k);
      // The k-th distinct line of a millisecond goes k units of the precision later.
      const expected = (lines: readonly Entry[], extra = ''): string[] =>
        lines.map(([ms, line], i) => `${at(ms, i % 10)},${line}${extra}`);

      it('keeps 300 lines that share timestamps, in one request, and collapses repeated pairs', async () => {
        // Lines 0 and 7 are sent twice at their own times: the repeats add nothing.
        const sent = [...LINES, LINES[0]!, LINES[7]!];
        await push(db, `${table}_one`, enc.contentType, enc.body([{ labels: { job: 'app' }, entries: sent }]));
        expect(await rows(db, `${table}_one`, 'msg, job')).toEqual(expected(LINES, ',app'));
      });

      it('keeps them when a millisecond is split between two requests', async () => {
        // Lines 140-144 in the first request, 145-149 in the second, all in one millisecond.
        await push(
          db,
          `${table}_two`,
          enc.contentType,
          enc.body([{ labels: { job: 'app' }, entries: LINES.slice(0, 145) }]),
        );
        await push(
          db,
          `${table}_two`,
          enc.contentType,
          enc.body([{ labels: { job: 'app' }, entries: LINES.slice(145) }]),
        );
        // A third request repeats a line of the split millisecond from each side: nothing changes.
        await push(
          db,
          `${table}_two`,
          enc.contentType,
          enc.body([{ labels: { job: 'app' }, entries: [LINES[143]!, LINES[148]!] }]),
        );
        // The second request sent again, as a client retries one whose reply it lost.
        await push(
          db,
          `${table}_two`,
          enc.contentType,
          enc.body([{ labels: { job: 'app' }, entries: LINES.slice(145) }]),
        );
        expect(await rows(db, `${table}_two`, 'msg, job')).toEqual(expected(LINES, ',app'));
      });

      it('keeps streams apart whether their labels are tags or fields', async () => {
        const streams: Stream[] = [
          {
            labels: { level: 'info' },
            entries: [
              [BASE_MS, 'a'],
              [BASE_MS, 'b'],
            ],
          },
          {
            labels: { level: 'warn' },
            entries: [
              [BASE_MS, 'a'],
              [BASE_MS + 1, 'c'],
            ],
          },
        ];
        // Labels as fields: one series, so the second stream's lines move past the first's
        // (and 'c', sent at the millisecond after, past the moved 'a').
        await push(db, `${table}_fields`, enc.contentType, enc.body(streams));
        const fields =
          unit === 'ns'
            ? [
                `${at(BASE_MS, 0)},a,info`,
                `${at(BASE_MS, 1)},b,info`,
                `${at(BASE_MS, 2)},a,warn`,
                `${at(BASE_MS + 1, 0)},c,warn`,
              ]
            : [
                `${at(BASE_MS, 0)},a,info`,
                `${at(BASE_MS, 1)},b,info`,
                `${at(BASE_MS, 2)},a,warn`,
                `${at(BASE_MS, 3)},c,warn`,
              ];
        expect(await rows(db, `${table}_fields`, 'msg, level')).toEqual(fields);
        // Labels as tags: one series per stream, each line at its own time.
        await push(db, `${table}_tags`, enc.contentType, enc.body(streams), '&tag_columns=level');
        expect(await rows(db, `${table}_tags`, 'msg, level')).toEqual([
          `${at(BASE_MS, 0)},a,info`,
          `${at(BASE_MS, 0)},a,warn`,
          `${at(BASE_MS, 1)},b,info`,
          `${at(BASE_MS + 1, 0)},c,warn`,
        ]);
      });
    });
  }
}
