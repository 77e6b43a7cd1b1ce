// Write path warm-up for high-cardinality data. A table of spans (or of request logs keyed by
// request id) is a series per row: its rows take the memtable's row area, the flush's packs of
// small series and a compaction of many one-row series, code that the query warm-up's table (24
// long series) never runs. Until V8 has compiled it, a fresh server spent about 40% of its CPU
// on compiling and interpreting it: 98,304 OTLP spans loaded at 27-30 k spans/s into a fresh
// server, against 42-44 k/s after 40,960 spans had been loaded first (bench/ingest.ts, 2 cores).
// So the warm-up writes rows of that shape into the query warm-up's scratch storage, flushes
// them and compacts the files, through the same Storage calls as a request's batches.

import { ValueType } from '../core/write-batch.js';
import { RowBatcher, type FieldInput } from '../ingest/row-batcher.js';
import type { DatabaseDef } from '../meta/index.js';
import type { Storage } from '../storage/index.js';

/** Rows per request, as an OpenTelemetry SDK batch; requests per flush; flushes. */
const ROWS_PER_REQUEST = 512;
const REQUESTS_PER_FLUSH = 8;
const FLUSHES = 4;
const START_NS = 1_451_606_400_000_000_000n; // 2016-01-01T00:00:00Z

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const str = (name: string, value: string): FieldInput => ({ name, type: ValueType.String, value });
const num = (name: string, value: number): FieldInput => ({ name, type: ValueType.Double, value });

/** A request's batch: `ROWS_PER_REQUEST` span-shaped rows, each a series of its own. */
function request(first: number): Uint8Array[] {
  const out = new RowBatcher();
  let x = 0x2545f491 ^ first;
  const hex = (digits: number): string => {
    let s = '';
    while (s.length < digits) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      s += (x >>> 4).toString(16).padStart(7, '0');
    }
    return s.slice(0, digits);
  };
  let trace = '';
  let parent = '';
  for (let i = first; i < first + ROWS_PER_REQUEST; i++) {
    if (i % 8 === 0) {
      trace = hex(32);
      parent = '';
    }
    const span = hex(16);
    const child = parent !== '';
    // Tags in byte order of their names, as the OTLP parser gives them.
    const tags: Array<[string, string]> = [
      ['name', child ? 'SELECT items' : 'GET /api/items'],
      ['parent_span_id', parent],
      ['scope', 'instrumentation-http'],
      ['service', `shop-${i % 3}`],
      ['span_id', span],
      ['status', child ? 'STATUS_CODE_UNSET' : 'STATUS_CODE_OK'],
      ['trace_id', trace],
      ['trace_state', ''],
      ['version', '0.52.0'],
    ];
    const fields: FieldInput[] = [
      str('schema_url', ''),
      str('host.name', `node-${i % 7}`),
      num('dropped_attributes', 0),
      str('kind', child ? 'SPAN_KIND_CLIENT' : 'SPAN_KIND_SERVER'),
      num('duration', (x >>> 8) % 50_000_000),
      ...(child
        ? [
            str('db.system', 'postgresql'),
            str('db.statement', 'SELECT * FROM items WHERE id = $1'),
            str('net.peer.name', 'db-1'),
          ]
        : [str('http.method', 'GET'), str('http.target', `/api/items/${i}`), str('http.status_code', '200')]),
      ...(i % 16 === 0 ? [num('event_0/time', i), str('event_0/name', 'cache miss')] : []),
      str('status_message', ''),
    ];
    out.add('spans', tags, START_NS + BigInt(i) * 1_000_000n, fields);
    if (!child) parent = span;
  }
  return out.finish();
}

/** Writes, flushes and compacts span-shaped rows in `db` of a scratch storage, yielding between requests. */
export async function warmWritePath(storage: Storage, db: DatabaseDef, signal: AbortSignal): Promise<number> {
  let rows = 0;
  for (let f = 0; f < FLUSHES && !signal.aborted; f++) {
    for (let r = 0; r < REQUESTS_PER_FLUSH && !signal.aborted; r++) {
      await storage.write(db, request(rows));
      rows += ROWS_PER_REQUEST;
      await turn();
    }
    await storage.flushAll(db);
  }
  if (!signal.aborted) await storage.compactDatabase(db);
  return rows;
}
