// Page statistics of a row group (segment v3, FORMAT.md §5.1): the group's rows cut at
// time-aligned boundaries ("pages" of `width` units, page k = [k·width, (k+1)·width)), and for
// each page and column the count/min/max/sum a whole block's statistics hold. A query that
// aggregates per time bucket reads these instead of decoding the blocks whenever the bucket
// width is a multiple of the page width on the same grid: TSBS mean per host per hour over a
// day is 100 series x 2 groups of 12 h, no group inside one bucket, every page inside one.
// Pure bytes, no Node imports (the browser sandbox reads segments too): the file stores these
// bytes as one zstd frame, compressed by the segment writer and decompressed by the reader.

import { floorDiv } from '../../core/precision.js';
import type { ValueType } from '../../core/write-batch.js';
import { computeStats, getStats, putStats, STATS_BYTES } from './block-stats.js';
import type { BlockStats } from './segment-format.js';
import { lowerBound, type FieldValues, type SeriesRows } from '../series/index.js';

/** Page widths the writer chooses from, in seconds: each divides the next, and each the common bucket widths above it (1 m, 5 m, 15 m, 1 h, 1 d). */
const PAGE_SECONDS = [1, 5, 60, 300, 3600, 86_400];
/** Fewest rows a page holds on average: smaller pages would cost more index than they save. */
export const MIN_PAGE_ROWS = 128;
const HEAD_BYTES = 24;

/**
 * The page width for a series of `n` sorted times, in the database precision: the narrowest on
 * the ladder whose pages average MIN_PAGE_ROWS rows. Undefined when the series lies within one
 * page of that width (its groups' own statistics say as much) or is too sparse for any.
 */
export function pageWidth(ts: BigInt64Array, n: number, unitsPerSecond: bigint): bigint | undefined {
  if (n < 2 * MIN_PAGE_ROWS) return undefined;
  const first = ts[0]!;
  const last = ts[n - 1]!;
  for (const s of PAGE_SECONDS) {
    const w = BigInt(s) * unitsPerSecond;
    const pages = Number(floorDiv(last, w) - floorDiv(first, w)) + 1;
    if (pages < 2) return undefined;
    if (n / pages >= MIN_PAGE_ROWS) return w;
  }
  return undefined;
}

/**
 * Moves the cuts between a series' row groups (`bounds`, from groupBounds) back to the start of
 * the page they fall in, so that no page is split between two groups and a query whose range
 * ends on page boundaries (whole hours) reads statistics only, no rows. Returns `bounds` as it
 * is when a moved cut would leave a group empty or over `maxRows`.
 */
export function pageAlignedBounds(
  bounds: Array<[number, number]>,
  ts: BigInt64Array,
  w: bigint,
  maxRows: number,
): Array<[number, number]> {
  if (bounds.length < 2) return bounds;
  const out: Array<[number, number]> = [];
  let lo = 0;
  for (let g = 0; g < bounds.length - 1; g++) {
    const cut = bounds[g]![1];
    // The first row at or after the start of the page holding the cut.
    const a = lowerBound(ts, cut, floorDiv(ts[cut]!, w) * w);
    if (a <= lo) return bounds;
    out.push([lo, a]);
    lo = a;
  }
  out.push([lo, bounds[bounds.length - 1]![1]]);
  return out.some(([x, y]) => y - x > maxRows) ? bounds : out;
}

/** A group's page statistics, decoded. Statistics are read from the bytes when asked. */
export class PageStats {
  readonly #dv: DataView;
  readonly #statsAt: number;
  readonly #decoded: Array<BlockStats | undefined>;

  constructor(
    /** Page width in the database precision. */
    readonly width: bigint,
    /** Number of the group's first page (its first time divided by width, floored). */
    readonly first: bigint,
    /** Per listed page (only pages holding rows are listed): its number minus `first`. */
    readonly page: Uint32Array,
    /** Per listed page: the end of its rows in the group (page i holds [rowEnd[i-1], rowEnd[i])). */
    readonly rowEnd: Uint32Array,
    readonly columnCount: number,
    dv: DataView,
    statsAt: number,
  ) {
    this.#dv = dv;
    this.#statsAt = statsAt;
    this.#decoded = new Array<BlockStats | undefined>(page.length * columnCount);
  }

  get count(): number {
    return this.page.length;
  }

  /**
   * Statistics of column `column` (index into the series entry's columns) in listed page i,
   * decoded once (the pages stay in the block cache; queries over them ask again and again).
   */
  stats(column: number, i: number, type: ValueType): BlockStats {
    const at = column * this.page.length + i;
    let s = this.#decoded[at];
    if (s === undefined) this.#decoded[at] = s = getStats(this.#dv, this.#statsAt + at * STATS_BYTES, type);
    return s;
  }
}

/**
 * Encodes the pages of a group of `n` rows at width `w`:
 *   width i64, first i64, pageCount u32, columnCount u32,
 *   pageCount x (page u32, rowEnd u32), then columnCount x pageCount statistics records.
 * `columns` are the group's present columns in entry order.
 */
export function encodePages(
  rows: SeriesRows,
  n: number,
  w: bigint,
  columns: ReadonlyArray<{ id: number; type: ValueType }>,
): Uint8Array {
  const ts = rows.ts;
  const first = floorDiv(ts[0]!, w);
  // Page boundaries by binary search: a few dozen reads instead of a division per row.
  const page: number[] = [];
  const rowEnd: number[] = [];
  let lo = 0;
  while (lo < n) {
    const k = floorDiv(ts[lo]!, w);
    const a = lowerBound(ts, n, (k + 1n) * w);
    page.push(Number(k - first));
    rowEnd.push(a);
    lo = a;
  }
  const count = page.length;
  const out = new Uint8Array(HEAD_BYTES + count * 8 + columns.length * count * STATS_BYTES);
  const dv = new DataView(out.buffer);
  dv.setBigInt64(0, w, true);
  dv.setBigInt64(8, first, true);
  dv.setUint32(16, count, true);
  dv.setUint32(20, columns.length, true);
  let p = HEAD_BYTES;
  for (let i = 0; i < count; i++) {
    dv.setUint32(p, page[i]!, true);
    dv.setUint32(p + 4, rowEnd[i]!, true);
    p += 8;
  }
  for (const c of columns) {
    const col = rows.columns.get(c.id)!;
    for (let i = 0, from = 0; i < count; from = rowEnd[i]!, i++) {
      putStats(dv, p, rangeStats(c.type, col.values, col.validity, from, rowEnd[i]!), c.type);
      p += STATS_BYTES;
    }
  }
  return out;
}

function rangeStats(
  type: ValueType,
  values: FieldValues,
  validity: Uint8Array | undefined,
  from: number,
  to: number,
): BlockStats {
  const v = Array.isArray(values) ? values.slice(from, to) : values.subarray(from, to);
  return computeStats(type, v, validity?.subarray(from, to), to - from);
}

/**
 * Decodes and checks the page block of a group of `rows` rows spanning [minTs, maxTs] with
 * `columnCount` columns; returns why it is malformed instead when it is.
 */
export function decodePages(
  b: Uint8Array,
  rows: number,
  minTs: bigint,
  maxTs: bigint,
  columnCount: number,
): PageStats | string {
  if (b.length < HEAD_BYTES) return `page block of ${b.length} bytes is shorter than its header`;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const width = dv.getBigInt64(0, true);
  const first = dv.getBigInt64(8, true);
  const count = dv.getUint32(16, true);
  const cols = dv.getUint32(20, true);
  if (width <= 0n) return `page width ${width} is not positive`;
  if (cols !== columnCount) return `page block of ${cols} columns, the group has ${columnCount}`;
  if (count === 0 || b.length !== HEAD_BYTES + count * 8 + cols * count * STATS_BYTES)
    return `page block of ${b.length} bytes does not hold ${count} pages of ${cols} columns`;
  if (floorDiv(minTs, width) !== first) return `first page ${first} does not hold the group's first time ${minTs}`;
  const page = new Uint32Array(count);
  const rowEnd = new Uint32Array(count);
  for (let i = 0, p = HEAD_BYTES; i < count; i++, p += 8) {
    page[i] = dv.getUint32(p, true);
    rowEnd[i] = dv.getUint32(p + 4, true);
    if (i === 0 ? page[i] !== 0 || rowEnd[i] === 0 : page[i]! <= page[i - 1]! || rowEnd[i]! <= rowEnd[i - 1]!)
      return `page ${i} is out of order`;
  }
  if (rowEnd[count - 1] !== rows) return `pages hold ${rowEnd[count - 1]} rows, the group ${rows}`;
  if (floorDiv(maxTs, width) !== first + BigInt(page[count - 1]!))
    return `last page does not hold the group's last time ${maxTs}`;
  return new PageStats(width, first, page, rowEnd, cols, dv, HEAD_BYTES + count * 8);
}
