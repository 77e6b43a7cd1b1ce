// The shared row area of one memtable table: the rows of its small series (memtable.ts keeps a
// series here until it holds more than SMALL_SERIES_ROWS rows and a batch brings it many at
// once; a series that comes a few rows a batch stays here however long), appended in arrival order into
// pages of columns. High-cardinality data is the reason: with a span id among the tags every
// span is a series of its own, and giving each series its own typed arrays cost about 13 KB a
// span (a BigInt64Array of 32 rows and a typed array per column); here a one-row series costs
// one row of each page column, and a batch of such series is copied in one slice per column.
//
// Pages grow geometrically (64 rows, doubling to 8192), so a table with a few rows stays small;
// a column gets arrays only in the pages where some row has it, so a rare attribute does not
// widen every row of the table. STRING columns keep their values as UTF-8 (utf8-column.ts says
// why), copied from the write batch and into the flush's packs without decoding; `gather`, the
// read path, decodes them. Rows are only appended: rows a series left behind (when it
// moved to arrays of its own, or was deleted) stay until the memtable is flushed; they stay
// counted in `bytes`, so the memtable's limit still bounds the heap.

import { bug } from '../../core/errors.js';
import { ColumnKind, ValueType, type BatchTable } from '../../core/write-batch.js';
import { ColumnBuffer, copyColumn } from './column-buffer.js';
import {
  allocValues,
  type ColumnData,
  copyUtf8Column,
  type PackTarget,
  type PackValues,
  type RowSource,
  type SeriesRows,
  type Utf8Buffer,
  Utf8Column,
} from '../series/index.js';

const FIRST_PAGE_ROWS = 64;
const MAX_PAGE_ROWS = 8192;

interface Page {
  /** Area row id of the page's first row. */
  readonly start: number;
  readonly ts: BigInt64Array;
  /** `ts` as 32-bit words (copyRowsTo: no BigInt per timestamp copied). */
  readonly ts32: Int32Array;
  length: number;
  readonly columns: Map<number, PageColumn>;
  /**
   * The BIGINT and BIGINT UNSIGNED columns' values as 32-bit words, made with the column (page
   * columns never grow): gather and copyRowsTo move 64-bit values as two words, no BigInt each,
   * and a view made per run of rows cost a typed array per column per run.
   */
  readonly words: Map<number, Int32Array>;
}

type PageColumn = ColumnBuffer | Utf8Column;

/** Bytes a page column holds in arrays (a ColumnBuffer's strings are counted as they come). */
function heldBytes(c: PageColumn): number {
  return c instanceof Utf8Column ? c.allocated : c.bytesPerRow() * c.capacity;
}

export class RowArea implements RowSource {
  readonly #pages: Page[] = [];
  /** Rows appended so far (the id of the next row). */
  rows = 0;
  /** Bytes held: page arrays (capacity) and strings. */
  bytes = 0;

  #newPage(): Page {
    const last = this.#pages.at(-1);
    const cap = last === undefined ? FIRST_PAGE_ROWS : Math.min(MAX_PAGE_ROWS, last.ts.length * 2);
    const ts = new BigInt64Array(cap);
    const page: Page = {
      start: this.rows,
      ts,
      ts32: new Int32Array(ts.buffer),
      length: 0,
      columns: new Map(),
      words: new Map(),
    };
    this.#pages.push(page);
    this.bytes += cap * 8 + 64;
    return page;
  }

  /** The page holding area row `row`. */
  #pageOf(row: number): Page {
    const pages = this.#pages;
    let hi = pages.length - 1;
    if (row >= pages[hi]!.start) return pages[hi]!;
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (pages[mid]!.start <= row) lo = mid;
      else hi = mid - 1;
    }
    return pages[lo]!;
  }

  /**
   * Appends rows [start, start + count) of a batch table whose columns map to `ids` (0 = skip).
   * Returns the area row id of the first; the rows keep their order and get consecutive ids.
   */
  append(table: BatchTable, ids: ArrayLike<number>, start: number, count: number): number {
    const first = this.rows;
    const cols = table.columns;
    while (count > 0) {
      let page = this.#pages.at(-1);
      if (page === undefined || page.length === page.ts.length) page = this.#newPage();
      const at = page.length;
      const take = Math.min(count, page.ts.length - at);
      page.ts.set(table.timestamps.subarray(start, start + take), at);
      let carried = 0;
      for (let ci = 0; ci < cols.length; ci++) {
        const col = cols[ci]!;
        const id = ids[ci]!;
        if (col.kind !== ColumnKind.Field || id === 0) continue;
        let buf = page.columns.get(id);
        if (buf === undefined) {
          buf =
            col.type === ValueType.String
              ? new Utf8Column(page.ts.length, at)
              : new ColumnBuffer(col.type, page.ts.length, at);
          page.columns.set(id, buf);
          const v = buf instanceof ColumnBuffer ? buf.values : undefined;
          if (v instanceof BigInt64Array || v instanceof BigUint64Array)
            page.words.set(id, new Int32Array(v.buffer, v.byteOffset, v.length * 2));
          this.bytes += heldBytes(buf) + 64;
        } else if (buf.type !== col.type) {
          // The catalog rejects type changes before anything is appended.
          throw bug(`column ${col.name} (id ${id}) of the row area is type ${buf.type}, batch has ${col.type}`);
        }
        carried++;
        const hadValidity = buf.validity !== undefined;
        this.bytes +=
          buf instanceof Utf8Column ? copyUtf8Column(buf, col, start, take, at) : copyColumn(buf, col, start, take, at);
        if (!hadValidity && buf.validity !== undefined) this.bytes += buf.capacity;
      }
      // Columns of the page this batch does not carry are absent for the new rows.
      if (carried < page.columns.size) {
        for (const [id, buf] of page.columns) {
          if (carries(table, ids, id)) continue;
          const hadValidity = buf.validity !== undefined;
          buf.markAbsent(at, at + take);
          if (!hadValidity) this.bytes += buf.capacity;
        }
      }
      page.length += take;
      this.rows += take;
      start += take;
      count -= take;
    }
    return first;
  }

  /** The timestamp of area row `row`. */
  ts(row: number): bigint {
    const p = this.#pageOf(row);
    return p.ts[row - p.start]!;
  }

  /**
   * The rows with the given area ids (`first`, `first + 1`, ... when `list` is undefined), in that
   * order, as new arrays of exactly `n` rows. A column is included when some of the rows has it,
   * and, with `ids`, is one of them: a query reads only the columns it asked for, and gathering
   * the others cost most of a `count(*)` over a memtable of spans (their strings decoded from
   * UTF-8 one by one).
   */
  gather(first: number, list: readonly number[] | undefined, n: number, ids?: readonly number[]): SeriesRows {
    const ts = new BigInt64Array(n);
    const columns = new Map<number, ColumnData & { validity: Uint8Array; present: number }>();
    if (n === 0) return { length: 0, ts, columns: new Map() };
    if (n === 1) {
      // The common case (a span): no validity vectors to allocate and drop.
      const row = list === undefined ? first : list[0]!;
      const page = this.#pageOf(row);
      const o = row - page.start;
      ts[0] = page.ts[o]!;
      const one = new Map<number, ColumnData>();
      for (const [id, c] of pageColumns(page, ids)) {
        if (c.validity !== undefined && c.validity[o] === 0) continue;
        const values = allocValues(c.type, 1);
        if (c instanceof Utf8Column) (values as string[])[0] = c.data.get(o);
        else (values as Float64Array)[0] = (c.values as Float64Array)[o]!;
        one.set(id, { type: c.type, values, validity: undefined });
      }
      return { length: 1, ts, columns: one };
    }
    // Column by column over runs of rows in one page, as copyRowsTo: a series that stays in the
    // area while it grows (memtable.ts, OWN_ARRAYS_MIN_SLICE) has thousands of rows here, and row
    // by row every value paid for iterating its page's columns.
    const runPage: Page[] = [];
    const runFrom: number[] = [];
    const off = offsets(n);
    let page: Page | undefined;
    const ts32 = new Int32Array(ts.buffer);
    for (let i = 0; i < n; i++) {
      const row = list === undefined ? first + i : list[i]!;
      if (page === undefined || row < page.start || row >= page.start + page.length) {
        page = this.#pageOf(row);
        runPage.push(page);
        runFrom.push(i);
      }
      const o = row - page.start;
      off[i] = o;
      ts32[2 * i] = page.ts32[2 * o]!;
      ts32[2 * i + 1] = page.ts32[2 * o + 1]!;
    }
    runFrom.push(n);
    const words = new Map<number, Int32Array>();
    for (let r = 0; r < runPage.length; r++) {
      const from = runFrom[r]!;
      const to = runFrom[r + 1]!;
      const p = runPage[r]!;
      for (const [id, c] of pageColumns(p, ids)) {
        let out = columns.get(id);
        const cv = c.validity;
        for (let i = from; i < to; i++) {
          const o = off[i]!;
          if (cv !== undefined && cv[o] === 0) continue;
          if (out === undefined) {
            const values = allocValues(c.type, n);
            columns.set(id, (out = { type: c.type, values, validity: new Uint8Array(n), present: 0 }));
            if (values instanceof BigInt64Array || values instanceof BigUint64Array)
              words.set(id, new Int32Array(values.buffer, values.byteOffset, values.length * 2));
          }
          const src32 = p.words.get(id);
          out.present +=
            src32 === undefined
              ? gatherRun(c, off, i, to, out.values, out.validity)
              : gatherWords(src32, cv, off, i, to, words.get(id)!, out.validity);
          break;
        }
      }
    }
    const result = new Map<number, ColumnData>();
    for (const [id, c] of columns)
      result.set(id, { type: c.type, values: c.values, validity: c.present === n ? undefined : c.validity });
    return { length: n, ts, columns: result };
  }

  /**
   * Copies area rows `rows[0, n)` into a pack at `target.at` onward, column by column: the
   * flush's path for all the small series of a pack at once (segment-writer.ts, #settle). Copied
   * row by row, every value paid for finding its page column, a type switch and a call; here
   * runs of rows in one page share the lookups, and each column's loop sees one type. The rows
   * come in area order, so runs are long (server flushes of 34,816 spans: 17% more spans/s).
   */
  copyRowsTo(rows: Int32Array, n: number, target: PackTarget): void {
    // The runs of rows in one page: [runFrom[r], runFrom[r + 1]) lie in runPage[r].
    const runPage: Page[] = [];
    const runFrom: number[] = [];
    const off = offsets(n);
    let page: Page | undefined;
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      if (page === undefined || row < page.start || row >= page.start + page.length) {
        page = this.#pageOf(row);
        runPage.push(page);
        runFrom.push(i);
      }
      off[i] = row - page.start;
    }
    runFrom.push(n);
    const base = target.at;
    const ts32 = target.ts32;
    for (let r = 0; r < runPage.length; r++) {
      const src = runPage[r]!.ts32;
      for (let i = runFrom[r]!; i < runFrom[r + 1]!; i++) {
        ts32[2 * (base + i)] = src[2 * off[i]!]!;
        ts32[2 * (base + i) + 1] = src[2 * off[i]! + 1]!;
      }
    }
    const ids = target.ids;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      let present = 0;
      for (let r = 0; r < runPage.length; r++) {
        const from = runFrom[r]!;
        const to = runFrom[r + 1]!;
        const c = runPage[r]!.columns.get(id);
        if (c === undefined) {
          if (target.validity[k] === undefined)
            target.validity[k] = new Uint8Array(target.ts.length).fill(1, 0, base + from);
          continue;
        }
        // Rows absent in the page column need a validity vector in the pack, made at the first one.
        if (c.validity !== undefined && target.validity[k] === undefined) {
          for (let i = from; i < to; i++) {
            if (c.validity[off[i]!] === 0) {
              target.validity[k] = new Uint8Array(target.ts.length).fill(1, 0, base + i);
              break;
            }
          }
        }
        const validity = target.validity[k];
        present +=
          c instanceof Utf8Column
            ? copyUtf8Run(c, off, from, to, target.values[k] as Utf8Buffer, base, validity)
            : copyTypedRun(c, off, from, to, target.values[k] as Exclude<PackValues, Utf8Buffer>, base, validity);
      }
      target.present[k]! += present;
    }
  }

  /** Forgets a column (ALTER TABLE DROP). Returns the change in bytes held. */
  dropColumn(id: number): number {
    let delta = 0;
    for (const p of this.#pages) {
      const c = p.columns.get(id);
      if (c === undefined) continue;
      p.columns.delete(id);
      p.words.delete(id);
      delta -= heldBytes(c) + 64;
    }
    this.bytes += delta;
    return delta;
  }
}

/** A page's columns, or those of them among `ids` (gather). */
function pageColumns(page: Page, ids: readonly number[] | undefined): Iterable<[number, PageColumn]> {
  if (ids === undefined) return page.columns;
  const out: Array<[number, PageColumn]> = [];
  for (const id of ids) {
    const c = page.columns.get(id);
    if (c !== undefined) out.push([id, c]);
  }
  return out;
}

/** A scratch for copyRowsTo's page offsets, kept between calls (a pack has at most a few thousand rows). */
let offsetScratch = new Int32Array(4096);
function offsets(n: number): Int32Array {
  if (offsetScratch.length < n) offsetScratch = new Int32Array(Math.max(n, offsetScratch.length * 2));
  return offsetScratch;
}

/**
 * Copies the STRING values at page offsets `off[from, to)` to pack rows `base + from` onward;
 * absent ones are left out (`validity`, when the pack has one, marks the present). Returns how
 * many were present.
 */
function copyUtf8Run(
  c: Utf8Column,
  off: Int32Array,
  from: number,
  to: number,
  dst: Utf8Buffer,
  base: number,
  validity: Uint8Array | undefined,
): number {
  const cv = c.validity;
  const bytes = c.data.bytes;
  const offs = c.data.offsets;
  let present = 0;
  for (let i = from; i < to; i++) {
    const o = off[i]!;
    if (cv !== undefined && cv[o] === 0) continue;
    dst.setBytes(base + i, bytes, offs[o]!, offs[o + 1]!);
    if (validity !== undefined) validity[base + i] = 1;
    present++;
  }
  return present;
}

/**
 * Copies the values of page column `c` at offsets `off[from, to)` to rows `from` onward of
 * `values` and marks them in `validity`; absent ones are left out. Returns how many were present.
 */
function gatherRun(
  c: PageColumn,
  off: Int32Array,
  from: number,
  to: number,
  values: ColumnData['values'],
  validity: Uint8Array,
): number {
  const cv = c.validity;
  let present = 0;
  if (c instanceof Utf8Column) {
    const dst = values as string[];
    for (let i = from; i < to; i++) {
      const o = off[i]!;
      if (cv !== undefined && cv[o] === 0) continue;
      dst[i] = c.data.get(o);
      validity[i] = 1;
      present++;
    }
    return present;
  }
  const src = c.values as Float64Array | Uint8Array;
  const dst = values as Float64Array | Uint8Array;
  for (let i = from; i < to; i++) {
    const o = off[i]!;
    if (cv !== undefined && cv[o] === 0) continue;
    dst[i] = src[o]!;
    validity[i] = 1;
    present++;
  }
  return present;
}

/** gatherRun for 64-bit values, as two 32-bit words each (`src32`: Page.words; `dst32`: the values'). */
function gatherWords(
  src32: Int32Array,
  cv: Uint8Array | undefined,
  off: Int32Array,
  from: number,
  to: number,
  dst32: Int32Array,
  validity: Uint8Array,
): number {
  let present = 0;
  for (let i = from; i < to; i++) {
    const o = off[i]!;
    if (cv !== undefined && cv[o] === 0) continue;
    dst32[2 * i] = src32[2 * o]!;
    dst32[2 * i + 1] = src32[2 * o + 1]!;
    validity[i] = 1;
    present++;
  }
  return present;
}

/** copyUtf8Run for the typed columns; 64-bit values move as two 32-bit words (no BigInt each). */
function copyTypedRun(
  c: ColumnBuffer,
  off: Int32Array,
  from: number,
  to: number,
  dst: Exclude<PackValues, Utf8Buffer>,
  base: number,
  validity: Uint8Array | undefined,
): number {
  const cv = c.validity;
  let present = 0;
  if (dst instanceof BigInt64Array || dst instanceof BigUint64Array) {
    const s = c.values as BigInt64Array;
    const src32 = new Int32Array(s.buffer, s.byteOffset, s.length * 2);
    const dst32 = new Int32Array(dst.buffer, dst.byteOffset, dst.length * 2);
    for (let i = from; i < to; i++) {
      const o = off[i]!;
      if (cv !== undefined && cv[o] === 0) continue;
      dst32[2 * (base + i)] = src32[2 * o]!;
      dst32[2 * (base + i) + 1] = src32[2 * o + 1]!;
      if (validity !== undefined) validity[base + i] = 1;
      present++;
    }
    return present;
  }
  const src = c.values as Float64Array | Uint8Array;
  for (let i = from; i < to; i++) {
    const o = off[i]!;
    if (cv !== undefined && cv[o] === 0) continue;
    dst[base + i] = src[o]!;
    if (validity !== undefined) validity[base + i] = 1;
    present++;
  }
  return present;
}

function carries(table: BatchTable, ids: ArrayLike<number>, id: number): boolean {
  const cols = table.columns;
  for (let ci = 0; ci < cols.length; ci++) if (ids[ci] === id && cols[ci]!.kind === ColumnKind.Field) return true;
  return false;
}
