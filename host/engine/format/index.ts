// Output formats of SQL results (CONTRACT.md "SQL"): Accept negotiation and one incremental
// writer per format, producing bytes batch by batch so that a chunked response streams in
// constant memory (text/table excepted: its widths need every row). Runtime-agnostic.
//
//   csv, tsv    csv-writer.ts     header always, RFC 4180 quoting only where needed
//   json        json-writer.ts    one array of row objects, keys in column order
//   ndjson      json-writer.ts    one object per line
//   table       table-writer.ts   Arrow's pretty_format_batches box
//   arrow       arrow-writer.ts   Arrow IPC stream (application/vnd.apache.arrow.stream)

import type { Schema } from '../types/index.js';
import { ArrowWriter } from './arrow-writer.js';
import { CsvWriter } from './csv-writer.js';
import { errorObjectBytes, JsonWriter } from './json-writer.js';
import { negotiateFormat, type ResultFormat } from './negotiate.js';
import type { ResultWriter } from './result-writer.js';
import { TableWriter } from './table-writer.js';
import type { MemoryPool } from '../memory/index.js';

export { negotiateFormat, type ResultFormat, type ResultWriter };
export { displayScalar, displayValue, intervalText, timestampText } from '../types/index.js';
export { formatArrowF64, formatJsonF64, formatRustF64 } from '../types/index.js';

/** A writer of `format`; one that must hold the whole answer (text/table) charges it to `memory`. */
export function createResultWriter(format: ResultFormat, schema: Schema, memory?: MemoryPool): ResultWriter {
  switch (format) {
    case 'csv':
      return new CsvWriter(schema, 44);
    case 'tsv':
      return new CsvWriter(schema, 9);
    case 'json':
      return new JsonWriter(schema, false);
    case 'ndjson':
      return new JsonWriter(schema, true);
    case 'table':
      return new TableWriter(schema, memory);
    case 'arrow':
      return new ArrowWriter(schema);
  }
}

const LF = new Uint8Array([10]);

/**
 * What ends a chunked stream when an error happens after bytes were sent: the error object on its
 * own line. Every writer's output so far ends at a row boundary (CSV, TSV and NDJSON rows end with
 * LF); a JSON array is closed first, so that the body is the rows' array followed by the error
 * object (a JSON sequence that JSON.parse rejects as a whole, so a careless client cannot take
 * the truncated result for a complete one).
 */
export function streamErrorTrailer(format: ResultFormat, code: string, message: string): Uint8Array | undefined {
  // An Arrow stream has no place for an error: the connection is cut instead, so that a reader
  // fails on the stream's missing end rather than take part of it for the whole.
  if (format === 'arrow') return undefined;
  const object = errorObjectBytes(code, message);
  const head = format === 'json' ? new Uint8Array([93, 10]) : format === 'table' ? LF : new Uint8Array(0);
  const out = new Uint8Array(head.length + object.length + 1);
  out.set(head, 0);
  out.set(object, head.length);
  out[out.length - 1] = 10;
  return out;
}
