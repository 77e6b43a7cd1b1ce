// CSV and TSV as CnosDB writes them (arrow-csv 42 on the csv crate, CONTRACT.md "SQL"): a header
// row, always; `,` or TAB between fields; LF after every row; a field is quoted only when it
// holds the delimiter, `"`, CR or LF (quotes doubled); NULL is an empty field, and a row whose
// only field is empty is written `""` so that it is not a blank line (csv-core does the same).
// Values: booleans `true`/`false`, integers exact, DOUBLE as Arrow displays it (`1.0`, `1.0e-6`),
// timestamps with nine fraction digits and no zone (a zoned value as its UTC instant); Interval,
// Struct and List as Arrow displays
// them (CnosDB cannot write those to CSV at all).

import {
  ByteSink,
  displayValue,
  type RecordBatch,
  type Schema,
  TimestampWriter,
  writeArrowF64,
  writeDate,
} from '../types/index.js';
import {
  K_BOOL,
  K_DATE,
  K_F64,
  K_I64,
  K_NULL,
  K_OTHER,
  K_TIMESTAMP,
  K_U64,
  K_UTF8,
  readColumn,
  writeI64,
  writeU64,
  type ColumnReader,
} from './column-reader.js';
import { copyText, formatFloatColumn } from './float-column.js';
import type { ResultWriter } from './result-writer.js';

const QUOTE = 34;
const LF = 10;
const CR = 13;
/** Bytes reserved per field for fixed-width values (int64 20, timestamp with zone 36, double 24). */
const FIELD_RESERVE = 40;

export class CsvWriter implements ResultWriter {
  readonly #schema: Schema;
  readonly #delimiter: number;
  readonly #sink = new ByteSink();
  readonly #scratch = new ByteSink(64);
  readonly #timestamps: Array<TimestampWriter | undefined>;
  #started = false;

  /** `delimiter`: 44 (`,`) for CSV, 9 (TAB) for TSV. */
  constructor(schema: Schema, delimiter: number) {
    this.#schema = schema;
    this.#delimiter = delimiter;
    this.#timestamps = schema.fields.map((f) =>
      f.type.id === 'Timestamp' ? new TimestampWriter(f.type.unit, f.type.tz, 'csv') : undefined,
    );
  }

  write(batch: RecordBatch): Uint8Array {
    this.#start();
    this.#rows(batch);
    return this.#sink.take();
  }

  end(): Uint8Array {
    this.#start();
    return this.#sink.take();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const sink = this.#sink;
    const fields = this.#schema.fields;
    fields.forEach((f, c) => {
      if (c > 0) sink.byte(this.#delimiter);
      writeCsvString(sink, f.name, this.#delimiter);
    });
    if (fields.length === 1 && fields[0]!.name === '') sink.ascii('""');
    sink.byte(LF);
  }

  /**
   * The text of a constant column's value (tags in scan output: one value per series chunk),
   * formatted once per batch; undefined for kinds written row by row.
   */
  #constantText(col: ColumnReader, c: number): Uint8Array | undefined {
    const s = this.#scratch;
    s.reserve(FIELD_RESERVE);
    switch (col.kind) {
      case K_UTF8:
        writeCsvString(s, col.strings[0]!, this.#delimiter);
        break;
      case K_I64:
        writeI64(s, col.ints, col.bigints, 0);
        break;
      case K_F64:
        writeArrowF64(s, col.floats[0]!);
        break;
      case K_TIMESTAMP:
        this.#timestamps[c]!.write(s, col.bigints, col.ints, 0);
        break;
      default:
        return undefined;
    }
    return s.take();
  }

  #rows(batch: RecordBatch): void {
    const sink = this.#sink;
    const delimiter = this.#delimiter;
    const columns = batch.columns.map(readColumn);
    const timestamps = this.#timestamps;
    const ncols = columns.length;
    const n = batch.length;
    const constants = columns.map((col, c) =>
      n > 1 && col.vector.constant === true && col.validity === undefined ? this.#constantText(col, c) : undefined,
    );
    const floats = columns.map((col, c) =>
      col.kind === K_F64 && constants[c] === undefined ? formatFloatColumn(col.floats, 0) : undefined,
    );
    let rowReserve = ncols * FIELD_RESERVE + 2;
    for (const t of constants) if (t !== undefined) rowReserve += t.length;
    for (let r = 0; r < n; r++) {
      sink.reserve(rowReserve);
      const rowStart = sink.pos;
      for (let c = 0; c < ncols; c++) {
        if (c > 0) sink.buf[sink.pos++] = delimiter;
        const text = constants[c];
        if (text !== undefined) {
          sink.buf.set(text, sink.pos);
          sink.pos += text.length;
          continue;
        }
        const col = columns[c]!;
        if (col.validity !== undefined && col.validity[r] === 0) continue;
        switch (col.kind) {
          case K_I64:
            writeI64(sink, col.ints, col.bigints, r);
            break;
          case K_F64: {
            const t = floats[c];
            if (t === undefined) writeArrowF64(sink, col.floats[r]!);
            else copyText(sink, t, r);
            break;
          }
          case K_TIMESTAMP:
            timestamps[c]!.write(sink, col.bigints, col.ints, r);
            break;
          case K_UTF8:
            writeCsvString(sink, col.strings[r]!, delimiter);
            break;
          case K_BOOL:
            sink.ascii(col.bools[r] === 1 ? 'true' : 'false');
            break;
          case K_U64:
            writeU64(sink, col.ints, col.bigints, r);
            break;
          case K_DATE:
            writeDate(sink, col.ints[r]!);
            break;
          case K_NULL:
            break;
          case K_OTHER:
            writeCsvString(sink, displayValue(col.vector, r), delimiter);
            break;
        }
        if (sink.buf.length - sink.pos < FIELD_RESERVE) sink.reserve(rowReserve);
      }
      if (ncols === 1 && sink.pos === rowStart) {
        sink.buf[sink.pos++] = QUOTE;
        sink.buf[sink.pos++] = QUOTE;
      }
      sink.buf[sink.pos++] = LF;
    }
  }
}

/** A field, quoted (and its quotes doubled) only when it holds the delimiter, `"`, CR or LF. */
export function writeCsvString(sink: ByteSink, s: string, delimiter: number): void {
  const n = s.length;
  // The common case, ASCII that needs no quotes, in one pass that copies as it checks.
  sink.reserve(n);
  const b = sink.buf;
  const start = sink.pos;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === delimiter || c === QUOTE || c === LF || c === CR || c >= 0x80) break;
    b[start + i] = c;
  }
  if (i === n) {
    sink.pos = start + n;
    return;
  }
  let quote = false;
  let ascii = true;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === delimiter || c === QUOTE || c === LF || c === CR) quote = true;
    else if (c >= 0x80) ascii = false;
  }
  if (!quote) {
    if (ascii) sink.ascii(s);
    else sink.utf8(s);
    return;
  }
  sink.reserve(2 * n + 2);
  sink.buf[sink.pos++] = QUOTE;
  if (ascii) {
    const buf = sink.buf;
    let p = sink.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) buf[p++] = QUOTE;
      buf[p++] = c;
    }
    sink.pos = p;
  } else {
    // Quote by quote: replaceAll keeps every match, which exhausted the heap over 1e8 (issue 24).
    let from = 0;
    for (let q = s.indexOf('"'); q >= 0; q = s.indexOf('"', q + 1)) {
      sink.utf8(s.slice(from, q + 1));
      sink.byte(QUOTE);
      from = q + 1;
    }
    sink.utf8(s.slice(from));
  }
  sink.byte(QUOTE);
}
