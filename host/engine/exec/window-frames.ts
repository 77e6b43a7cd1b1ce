// The window frame of every row of one sorted partition, as [start, end) row ranges. Without a
// frame clause the frame is DataFusion's default: the whole partition without ORDER BY, else
// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the row and its peers). ROWS counts rows,
// GROUPS counts peer groups, RANGE compares the single ORDER BY key's values: ascending, a
// PRECEDING bound of d at key k is the first row with key >= k - d (descending: <= k + d). Rows
// whose key is NULL take their NULL peers as the value-bounded ends.

import { intervalNanos, type IntervalValue, isValid, unitNanos, type Vector } from '../types/index.js';
import { executionError } from '../errors.js';
import type { FrameBoundSpec, SortExpr, WindowFrameSpec } from '../plan/expr.js';
import type { WindowFrames } from '../functions/function-types.js';

/** peers[i]: the first row of row i's peer group; the result: one past its last row. */
function peerEnds(peers: Int32Array): Int32Array {
  const n = peers.length;
  const ends = new Int32Array(n);
  let i = n - 1;
  while (i >= 0) {
    const first = peers[i]!;
    for (let k = first; k <= i; k++) ends[k] = i + 1;
    i = first - 1;
  }
  return ends;
}

/**
 * Frames of a partition of `n` rows sorted by `order`; `key` holds the first ORDER BY key's
 * values of the partition's rows in that order (needed for RANGE offsets only).
 */
export function windowFrames(
  frame: WindowFrameSpec | undefined,
  order: readonly SortExpr[],
  n: number,
  peers: Int32Array,
  key: Vector | undefined,
): WindowFrames {
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  if (frame === undefined) {
    if (order.length === 0) end.fill(n);
    else end.set(peerEnds(peers));
    return { start, end };
  }
  const ends = peerEnds(peers);
  switch (frame.units) {
    case 'ROWS':
      for (let i = 0; i < n; i++) {
        start[i] = rowsBound(frame.start, i, n, true);
        end[i] = rowsBound(frame.end, i, n, false);
      }
      break;
    case 'GROUPS': {
      // Peer groups numbered in order, with each group's first row.
      const group = new Int32Array(n);
      const firsts: number[] = [];
      for (let i = 0; i < n; i++) {
        if (peers[i] === i) firsts.push(i);
        group[i] = firsts.length - 1;
      }
      firsts.push(n);
      const groups = firsts.length - 1;
      const at = (b: FrameBoundSpec, g: number, isStart: boolean): number => {
        if (b.kind === 'unbounded') return isStart ? 0 : n;
        const target =
          b.kind === 'current' ? g : b.kind === 'preceding' ? g - (b.offset as number) : g + (b.offset as number);
        if (target < 0) return 0;
        if (target >= groups) return n;
        return isStart ? firsts[target]! : firsts[target + 1]!;
      };
      for (let i = 0; i < n; i++) {
        start[i] = at(frame.start, group[i]!, true);
        end[i] = at(frame.end, group[i]!, false);
      }
      break;
    }
    case 'RANGE':
      rangeFrames(frame, order[0], n, peers, ends, key, start, end);
      break;
  }
  return { start, end };
}

function rowsBound(b: FrameBoundSpec, i: number, n: number, isStart: boolean): number {
  let at: number;
  if (b.kind === 'unbounded') return isStart ? 0 : n;
  if (b.kind === 'current') at = i;
  else at = b.kind === 'preceding' ? i - (b.offset as number) : i + (b.offset as number);
  if (!isStart) at++;
  return Math.min(Math.max(at, 0), n);
}

function rangeFrames(
  frame: WindowFrameSpec,
  sortKey: SortExpr | undefined,
  n: number,
  peers: Int32Array,
  ends: Int32Array,
  key: Vector | undefined,
  start: Int32Array,
  end: Int32Array,
): void {
  const valueBounded = (b: FrameBoundSpec): boolean => b.kind === 'preceding' || b.kind === 'following';
  if (!valueBounded(frame.start) && !valueBounded(frame.end)) {
    for (let i = 0; i < n; i++) {
      start[i] = frame.start.kind === 'unbounded' ? 0 : peers[i]!;
      end[i] = frame.end.kind === 'unbounded' ? n : ends[i]!;
    }
    return;
  }
  if (key === undefined || sortKey === undefined) {
    throw executionError('Datafusion: Execution error: A RANGE frame with an offset needs exactly one ORDER BY key');
  }
  // Positions: the key made ascending (negated for DESC), as bigints for integer and time keys.
  const asc = sortKey.asc;
  const pos: (bigint | number)[] = new Array(n);
  let lo = 0;
  let hi = n;
  while (lo < n && !isValid(key, lo)) lo++;
  while (hi > lo && !isValid(key, hi - 1)) hi--;
  const raw = key.values as ArrayLike<bigint | number>;
  for (let i = lo; i < hi; i++) {
    const v = raw[i]!;
    pos[i] = asc ? v : typeof v === 'bigint' ? -v : -v;
  }
  const delta = (offset: number | IntervalValue): bigint | number => {
    if (typeof offset === 'number') {
      if (key.type.id === 'Float64') return offset;
      if (!Number.isInteger(offset))
        throw executionError(
          `Datafusion: Execution error: RANGE offset ${offset} does not fit the ORDER BY key of type ${key.type.id}`,
        );
      return BigInt(offset);
    }
    const ns = intervalNanos(offset);
    if (key.type.id !== 'Timestamp' || ns === undefined)
      throw executionError(
        'Datafusion: Execution error: An interval RANGE offset needs a timestamp ORDER BY key and no months',
      );
    return ns / unitNanos(key.type.unit);
  };
  /** The first row in [lo, hi) whose position is >= target (or > target when `strict`). */
  const search = (target: bigint | number, strict: boolean): number => {
    let a = lo;
    let b = hi;
    while (a < b) {
      const m = (a + b) >> 1;
      const p = pos[m]!;
      if (strict ? p <= target : p < target) a = m + 1;
      else b = m;
    }
    return a;
  };
  const shift = (p: bigint | number, d: bigint | number, sign: 1 | -1): bigint | number =>
    typeof p === 'bigint' ? p + BigInt(sign) * (d as bigint) : p + sign * (d as number);
  for (let i = 0; i < n; i++) {
    const nullKey = i < lo || i >= hi;
    for (const isStart of [true, false]) {
      const b = isStart ? frame.start : frame.end;
      let at: number;
      if (b.kind === 'unbounded') at = isStart ? 0 : n;
      else if (b.kind === 'current' || nullKey) at = isStart ? peers[i]! : ends[i]!;
      else {
        const d = delta(b.offset);
        const target = shift(pos[i]!, d, b.kind === 'preceding' ? -1 : 1);
        at = search(target, !isStart);
      }
      if (isStart) start[i] = at;
      else end[i] = at;
    }
  }
}
