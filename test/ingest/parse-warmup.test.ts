// The parse warm-up's generated bodies (host/ingest/parse-warmup.ts): one of every format a parse
// job takes, each parsing to rows with either log parser (the Wasm scanner and the reference), so
// that the warm-up runs the code real bodies run. test/server/parse-workers.test.ts checks that
// the workers run it at start and store nothing.

import { beforeAll, describe, expect, it } from 'vitest';
import { readWriteBatch } from '../../host/core/write-batch.js';
import { LineProtocolScanner } from '../../host/ingest/line-protocol.js';
import { LogScanner } from '../../host/ingest/log-scan.js';
import { runParseJob, type ParseJob } from '../../host/ingest/parse-jobs.js';
import { warmupJobs } from '../../host/ingest/parse-warmup.js';
import { loadCore } from '../support/core.js';

let scanner: LogScanner;
let lineProtocol: LineProtocolScanner;

beforeAll(async () => {
  const core = await loadCore();
  scanner = new LogScanner(core);
  lineProtocol = new LineProtocolScanner(core);
});

/** Every format of ParseJob; a format added there without a warm-up body fails the first test. */
const FORMATS: ReadonlyArray<ParseJob['format']> = [
  'otlp-protobuf',
  'otlp-json',
  'bulk',
  'ndjson',
  'loki-json',
  'loki-protobuf',
  'opentsdb-json',
  'prom-write',
  'otlp-metrics-protobuf',
  'otlp-metrics-json',
  'otlp-logs-protobuf',
  'otlp-logs-json',
  'line-protocol',
];

const rowsOf = (batches: Uint8Array[]): number => batches.reduce((n, b) => n + readWriteBatch(b).rowCount, 0);

describe('parse warm-up bodies', () => {
  it('cover every parse job format once', () => {
    expect(warmupJobs(Date.now()).map((w) => w.job.format)).toEqual(FORMATS);
  });

  for (const withScanner of [true, false]) {
    it(`each parse to rows, with ${withScanner ? 'the Wasm log scanner' : 'the reference log parser'}`, () => {
      const rows = warmupJobs(Date.now()).map(({ job, body }) => [
        job.format,
        rowsOf(runParseJob(job, Buffer.from(body), withScanner ? scanner : undefined, lineProtocol).batches),
      ]);
      // 128 spans, documents, Loki lines, OpenTSDB points, metric data points, log records and lines a
      // body; 32 Prometheus series of 4 samples.
      expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(FORMATS.map((f) => [f, 128])));
    });
  }

  it('have spans of every attribute type, events, links and statuses, as real SDKs send', () => {
    const spans = warmupJobs(Date.now()).find((w) => w.job.format === 'otlp-json')!;
    const text = new TextDecoder().decode(spans.body);
    for (const part of [
      '"stringValue"',
      '"intValue"',
      '"doubleValue"',
      '"boolValue"',
      '"events":[{',
      '"links":[{',
      '"parentSpanId"',
      '"message":"failed"',
    ])
      expect(text).toContain(part);
  });
});
