// Columns of text cells (CSV fields, JSON values) turned into the types a schema asks for, with
// the engine's casts (a string time is parsed, 'true' is TRUE) and, for a cell that does not
// parse, arrow-csv's error text, which CnosDB shows for a bad value in a COPY: "Error while
// parsing value hello word for column 4 at line 1" (column 0-based, line counted from the file's
// first line, the header being line 0).

import {
  castVector,
  type DataType,
  type Field,
  isValid,
  type RecordBatch,
  UTF8,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { executionError } from '../errors.js';

/** Infers a column type from its non-empty cells as arrow-csv does: integers, floats, booleans, timestamps, else text. */
export function inferTextType(cells: readonly (string | null)[]): DataType {
  let int = true;
  let float = true;
  let bool = true;
  let time = true;
  let seen = false;
  for (const c of cells) {
    if (c === null) continue;
    seen = true;
    if (int && !/^-?\d+$/.test(c)) int = false;
    if (float && !/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(c)) float = false;
    if (bool && !/^(true|false)$/i.test(c)) bool = false;
    if (time && !/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:?\d\d)?$/.test(c)) time = false;
    if (!int && !float && !bool && !time) break;
  }
  if (!seen) return UTF8;
  if (int) return { id: 'Int64' };
  if (float) return { id: 'Float64' };
  if (bool) return { id: 'Boolean' };
  if (time) return { id: 'Timestamp', unit: 'Nanosecond' };
  return UTF8;
}

/**
 * A batch of `fields` from text columns (one array of cells per field, null for a missing value).
 * `lineOf(i)` is the line of row `i` for the error text; `column(k)` the column number it names.
 */
export function typedBatch(
  fields: readonly Field[],
  cells: readonly (readonly (string | null)[])[],
  rows: number,
  lineOf: (row: number) => number,
  column: (k: number) => number,
): RecordBatch {
  const columns: Vector[] = fields.map((f, k) => {
    const text = vectorFrom(
      UTF8,
      cells[k]!,
      Uint8Array.from(cells[k]!, (c) => (c === null ? 0 : 1)),
    );
    if (f.type.id === 'Utf8') return text;
    const typed = castVector(text, f.type, true);
    for (let i = 0; i < rows; i++) {
      if (isValid(text, i) && !isValid(typed, i)) {
        throw executionError(
          `Arrow: Parser error: Error while parsing value ${cells[k]![i]} for column ${column(k)} at line ${lineOf(i)}`,
        );
      }
    }
    return typed;
  });
  return { schema: { fields }, columns, length: rows };
}
