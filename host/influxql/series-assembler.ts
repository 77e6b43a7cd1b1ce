// The engine's rows of one measurement query -> InfluxDB series: rows grouped by their tags (the
// query orders by them, so a series' rows arrive together), each row's time in nanoseconds, empty
// GROUP BY time buckets filled (null, a number, previous, linear) between the WHERE clause's
// bounds, then LIMIT and OFFSET per series, as InfluxDB applies them after filling. Rows leave in
// pieces of at most `pieceRows`, so a chunked response never holds a whole series.

import { getValue, type RecordBatch, toNanos, type Vector } from '../engine/types/index.js';
import { statementError } from './errors.js';
import { MAX_FILL_BUCKETS, type FillPlan, type MeasurementPlan, type Transform } from './translate-select.js';

export type Cell = bigint | number | string | boolean | null;

export interface SeriesPiece {
  readonly name: string;
  /** The series' tags (GROUP BY), sorted by key; undefined without GROUP BY tags. */
  readonly tags: Readonly<Record<string, string>> | undefined;
  /** `time` first, then the value columns. */
  readonly columns: readonly string[];
  /** Each row's first cell is its time in nanoseconds (bigint). */
  readonly rows: Cell[][];
  /** More rows of the same series follow in the next piece. */
  readonly continues: boolean;
}

function cell(v: Vector, i: number): Cell {
  const x = getValue(v, i);
  if (x === null) return null;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'bigint' || typeof x === 'string' || typeof x === 'boolean') {
    if (typeof x === 'bigint' && v.type.id === 'Timestamp') return toNanos(x, v.type.unit);
    return x;
  }
  return JSON.stringify(x, (_k, val: unknown) => (typeof val === 'bigint' ? val.toString() : val));
}

/** The time of row `i` of a Timestamp vector, in nanoseconds. */
function timeNs(v: Vector, i: number): bigint {
  if (v.type.id !== 'Timestamp') throw new Error(`BUG: InfluxQL time column is ${v.type.id}`);
  return toNanos((v.values as BigInt64Array)[i]!, v.type.unit);
}

/** One series being assembled: fill state, then LIMIT/OFFSET. */
class SeriesState {
  readonly tags: Record<string, string> | undefined;
  readonly out: Cell[][] = [];
  #seen = 0;
  #emitted = 0;
  #next: bigint | undefined;
  #previous: Cell[] | undefined;
  #filled = 0;
  /** fill(linear) and transformations: every row of the series (filled ones marked), finished at the end. */
  readonly #buffered: Array<{ row: Cell[]; filled: boolean }> | undefined;

  constructor(
    readonly key: string,
    tags: Record<string, string> | undefined,
    readonly plan: MeasurementPlan,
  ) {
    this.tags = tags;
    this.#buffered = plan.fill?.fill.kind === 'linear' || plan.transforms !== undefined ? [] : undefined;
  }

  /** Whether LIMIT is reached (rows after it are dropped). */
  get full(): boolean {
    return this.plan.limit !== undefined && this.#emitted >= this.plan.limit;
  }

  #emit(row: Cell[]): void {
    if (this.#seen++ < this.plan.offset) return;
    if (this.full) return;
    this.#emitted++;
    this.out.push(row);
  }

  #fillRow(f: FillPlan, t: bigint): Cell[] {
    if (++this.#filled > MAX_FILL_BUCKETS)
      throw statementError(`max-select-buckets limit exceeded: (${this.#filled}/${MAX_FILL_BUCKETS})`);
    const n = this.plan.columns.length;
    const row: Cell[] = [t];
    for (let c = 0; c < n; c++) {
      switch (f.fill.kind) {
        case 'null':
        case 'linear':
          row.push(f.fill.kind === 'null' && f.countColumns[c] === true ? 0n : null);
          break;
        case 'value':
          row.push(f.fill.value);
          break;
        case 'previous':
          row.push(this.#previous?.[c + 1] ?? null);
          break;
      }
    }
    return row;
  }

  #push(row: Cell[], filled: boolean): void {
    if (this.#buffered !== undefined) this.#buffered.push({ row, filled });
    else this.#emit(row);
    if (!filled) this.#previous = row;
    else if (this.plan.fill?.fill.kind === 'previous') this.#previous = row;
  }

  add(row: Cell[]): void {
    const f = this.plan.fill;
    if (f === undefined) {
      this.#push(row, false);
      return;
    }
    const t = row[0] as bigint;
    const step = this.plan.descending ? -f.intervalNs : f.intervalNs;
    if (this.#next === undefined) this.#next = this.plan.descending ? f.endNs : (f.startNs ?? t);
    while (this.plan.descending ? this.#next > t : this.#next < t) {
      this.#push(this.#fillRow(f, this.#next), true);
      this.#next += step;
    }
    this.#push(row, false);
    this.#next = t + step;
  }

  /** Fills the buckets after the last row, interpolates fill(linear), applies the transformations. */
  finish(): void {
    const f = this.plan.fill;
    if (f !== undefined && this.#next !== undefined) {
      if (this.plan.descending) {
        if (f.startNs !== undefined)
          for (; this.#next >= f.startNs; this.#next -= f.intervalNs) this.#push(this.#fillRow(f, this.#next), true);
      } else for (; this.#next <= f.endNs; this.#next += f.intervalNs) this.#push(this.#fillRow(f, this.#next), true);
    }
    if (this.#buffered === undefined) return;
    if (f?.fill.kind === 'linear') interpolate(this.#buffered, this.plan.columns.length);
    const rows = this.#buffered.map((r) => r.row);
    const out =
      this.plan.transforms === undefined ? rows : transform(rows, this.plan.transforms, this.plan.dropBeforeNs);
    for (const r of out) this.#emit(r);
  }
}

/** fill(linear): a filled row between two rows with numbers gets the value on the line between them. */
function interpolate(rows: Array<{ row: Cell[]; filled: boolean }>, columns: number): void {
  for (let c = 1; c <= columns; c++) {
    let prev = -1;
    for (let i = 0; i < rows.length; i++) {
      if (rows[i]!.filled) continue;
      const v = rows[i]!.row[c];
      if (typeof v !== 'number' && typeof v !== 'bigint') {
        prev = -1;
        continue;
      }
      if (prev >= 0 && i - prev > 1) {
        const a = rows[prev]!.row;
        const b = rows[i]!.row;
        const t0 = Number(a[0] as bigint);
        const t1 = Number(b[0] as bigint);
        const v0 = Number(a[c]);
        const v1 = Number(v);
        for (let k = prev + 1; k < i; k++) {
          const t = Number(rows[k]!.row[0] as bigint);
          const x = v0 + ((v1 - v0) * (t - t0)) / (t1 - t0);
          rows[k]!.row[c] = typeof v === 'bigint' ? BigInt(Math.trunc(x)) : x;
        }
      }
      prev = i;
    }
  }
}

function num(v: Cell): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

/**
 * Each transformed column computed over the series' rows in order, skipping NULLs as InfluxDB's
 * reducers do (derivative and difference between consecutive values, a running sum, a moving
 * average of the last n values); rows before `dropBeforeNs` dropped (read only as the first
 * rows' predecessors), and when every column is a transformation, rows where none has a value.
 */
function transform(
  rows: Cell[][],
  transforms: readonly (Transform | undefined)[],
  dropBeforeNs: bigint | undefined,
): Cell[][] {
  const out = rows.map((r) => [...r]);
  transforms.forEach((t, k) => {
    if (t === undefined) return;
    const c = k + 1;
    let prevT: bigint | undefined;
    let prevV: Cell = null;
    let sum: number | bigint | undefined;
    const window: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i]![c]!;
      if (v === null || (typeof v !== 'number' && typeof v !== 'bigint')) {
        out[i]![c] = null;
        continue;
      }
      const time = rows[i]![0] as bigint;
      let r: Cell = null;
      switch (t.kind) {
        case 'derivative':
          if (prevT !== undefined) {
            r = (num(v) - num(prevV)) / (Number(time - prevT) / Number(t.unitNs));
            if (t.nonNegative && r < 0) r = null;
          }
          break;
        case 'difference':
          if (prevT !== undefined) {
            r = typeof v === 'bigint' && typeof prevV === 'bigint' ? v - prevV : num(v) - num(prevV);
            if (t.nonNegative && r < 0) r = null;
          }
          break;
        case 'cumulative_sum':
          sum = sum === undefined ? v : typeof sum === 'bigint' && typeof v === 'bigint' ? sum + v : num(sum) + num(v);
          r = sum;
          break;
        case 'moving_average':
          window.push(num(v));
          if (window.length > t.n) window.shift();
          if (window.length === t.n) r = window.reduce((a, b) => a + b, 0) / t.n;
          break;
      }
      out[i]![c] = r;
      prevT = time;
      prevV = v;
    }
  });
  const allTransformed = transforms.every((t) => t !== undefined);
  return out.filter((r) => {
    const time = r[0] as bigint;
    if (dropBeforeNs !== undefined && time < dropBeforeNs) return false;
    return !allTransformed || r.some((x, i) => i > 0 && x !== null);
  });
}

/**
 * The series of one measurement query, in pieces of at most `pieceRows` rows (a series longer
 * than that comes as several pieces, each but the last with `continues`).
 */
export async function* assembleSeries(
  plan: MeasurementPlan,
  batches: AsyncIterable<RecordBatch>,
  pieceRows: number,
): AsyncGenerator<SeriesPiece> {
  const columns = ['time', ...plan.columns];
  const tagNames = [...plan.groupTags, ...plan.constantTags].sort();
  const hasTags = tagNames.length > 0;
  let cur: SeriesState | undefined;
  const timeCol = plan.timeFromQuery ? 1 : 0;
  const piece = (s: SeriesState, continues: boolean): SeriesPiece => ({
    name: plan.name,
    tags: s.tags,
    columns,
    rows: s.out.splice(0, s.out.length),
    continues,
  });
  for await (const batch of batches) {
    const cols = batch.columns;
    const timeVec = plan.timeFromQuery ? cols[0]! : undefined;
    const tagVecs = cols.slice(timeCol, timeCol + plan.groupTags.length);
    const valueStart = timeCol + plan.groupTags.length;
    const countVec = plan.emptyCheck ? cols[valueStart + plan.columns.length]! : undefined;
    const pieces: SeriesPiece[] = [];
    for (let i = 0; i < batch.length; i++) {
      if (countVec !== undefined && getValue(countVec, i) === 0n) continue;
      let key = '';
      for (const v of tagVecs) key += `${(getValue(v, i) as string | null) ?? ''}\0`;
      if (cur === undefined || cur.key !== key) {
        if (cur !== undefined) {
          cur.finish();
          pieces.push(piece(cur, false));
        }
        let tags: Record<string, string> | undefined;
        if (hasTags) {
          tags = {};
          for (const n of tagNames) {
            const k = plan.groupTags.indexOf(n);
            tags[n] = k < 0 ? '' : ((getValue(tagVecs[k]!, i) as string | null) ?? '');
          }
        }
        cur = new SeriesState(key, tags, plan);
      }
      if (cur.full) continue;
      const row: Cell[] = [timeVec === undefined ? plan.constantTimeNs : timeNs(timeVec, i)];
      for (let c = 0; c < plan.columns.length; c++) row.push(cell(cols[valueStart + c]!, i));
      cur.add(row);
      if (cur.out.length >= pieceRows) pieces.push(piece(cur, true));
    }
    for (const p of pieces) if (p.rows.length > 0 || !p.continues) yield p;
  }
  if (cur !== undefined) {
    cur.finish();
    yield piece(cur, false);
  }
}
