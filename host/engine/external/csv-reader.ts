// CSV files as COPY INTO reads them (arrow-csv as DataFusion 27 sets it up): RFC 4180 fields with
// a one-byte delimiter, `"` quotes and `""` escapes, LF or CRLF line ends, an empty field NULL;
// with a header row the first line is skipped (its names are used only when no schema is given).
// Every line must have as many fields as the schema ("incorrect number of fields").

import { executionError } from '../errors.js';
import type { Field, RecordBatch } from '../types/index.js';
import { inferTextType, typedBatch } from './text-columns.js';

/** The records of a CSV text, each a list of fields (null: empty and unquoted). */
export function splitCsv(text: string, delimiter: string): (string | null)[][] {
  const d = delimiter.charCodeAt(0);
  const records: (string | null)[][] = [];
  let record: (string | null)[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) return records;
  for (;;) {
    // One field starting at i.
    let value: string | null;
    if (text.charCodeAt(i) === 34) {
      let out = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw executionError(`Arrow: Csv error: unterminated quoted field at record ${records.length + 1}`);
        out += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          out += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      value = out;
      // Anything between the closing quote and the delimiter is kept, as the csv crate does.
      let k = i;
      while (k < n && text.charCodeAt(k) !== d && text.charCodeAt(k) !== 10 && text.charCodeAt(k) !== 13) k++;
      value += text.slice(i, k);
      i = k;
    } else {
      let k = i;
      while (k < n && text.charCodeAt(k) !== d && text.charCodeAt(k) !== 10 && text.charCodeAt(k) !== 13) k++;
      value = k === i ? null : text.slice(i, k);
      i = k;
    }
    record.push(value);
    if (i < n && text.charCodeAt(i) === d) {
      i++;
      continue;
    }
    // End of record: CRLF, LF, or end of text; blank lines are skipped, as arrow-csv skips them.
    if (!(record.length === 1 && record[0] === null)) records.push(record);
    record = [];
    if (i < n && text.charCodeAt(i) === 13) i++;
    if (i < n && text.charCodeAt(i) === 10) i++;
    if (i >= n) return records;
  }
}

/**
 * The rows of a CSV file: by position into `schema` when given (the table's columns, CnosDB's
 * default), else with the header's names (or column_1, column_2, ...) and inferred types.
 */
export function readCsv(
  bytes: Uint8Array,
  delimiter: string,
  withHeader: boolean,
  schema: readonly Field[] | undefined,
): RecordBatch {
  const records = splitCsv(new TextDecoder('utf-8', { fatal: false }).decode(bytes), delimiter);
  const header = withHeader ? records.shift() : undefined;
  const first = withHeader ? 1 : 0;
  let fields: Field[];
  if (schema === undefined) {
    const width = header?.length ?? records[0]?.length ?? 0;
    const names = Array.from({ length: width }, (_, k) => header?.[k] ?? `column_${k + 1}`);
    fields = names.map((name, k) => ({ name, type: inferTextType(records.map((r) => r[k] ?? null)), nullable: true }));
  } else fields = [...schema];
  const cells: (string | null)[][] = fields.map(() => new Array<string | null>(records.length));
  records.forEach((r, i) => {
    if (r.length !== fields.length)
      throw executionError(
        `Arrow: Csv error: incorrect number of fields for line ${i + first + 1}, expected ${fields.length} got ${r.length}`,
      );
    for (let k = 0; k < r.length; k++) cells[k]![i] = r[k]!;
  });
  return typedBatch(
    fields,
    cells,
    records.length,
    (i) => i + first,
    (k) => k,
  );
}
