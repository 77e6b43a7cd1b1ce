// The data-quality ratios of CnosDB (after Apache IoTDB's data-quality library): over a series
// sorted by time, non-finite values are "special" and filled by linear interpolation between
// their finite neighbours; the gaps between timestamps, measured against their median, tell
// missing points (a gap of k medians hides k-1), redundant ones (a gap of at most half a median)
// and late ones (a short gap that makes up for a long one shortly before, within a window of 10
// timestamps); values, their variations, speeds and speed changes further than 3 MADs from their
// median are outliers.
//   completeness = 1 - (missing + special) / (count + missing)
//   consistency  = 1 - redundant / count
//   timeliness   = 1 - late / count
//   validity     = 1 - (value + variation + speed + speed-change outliers) / (4 count)

import { executionError } from '../errors.js';

export type DataQualityKind = 'completeness' | 'consistency' | 'timeliness' | 'validity';

function median(xs: readonly number[]): number {
  if (xs.length === 1) return xs[0]!;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 0 ? (s[mid - 1]! + s[mid]!) / 2 : s[mid]!;
}

/** Median absolute deviation, scaled to estimate a normal standard deviation. */
function mad(xs: readonly number[]): number {
  const m = median(xs);
  return 1.4826 * median(xs.map((x) => Math.abs(x - m)));
}

function outliers(xs: readonly number[], k: number): number {
  if (xs.length === 0) return 0;
  const m = median(xs);
  const sigma = mad(xs);
  let n = 0;
  for (const x of xs) if (Math.abs(x - m) > k * sigma) n++;
  return n;
}

/** Rust's f64::round: halves away from zero. */
const roundHalfAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

/** Fills NaNs in place by linear interpolation (extrapolation at the ends) between finite values. */
function fillGaps(times: readonly number[], values: number[]): void {
  const n = values.length;
  const at = (i: number, a: number, b: number): number =>
    values[a]! + (values[b]! - values[a]!) * ((times[i]! - times[a]!) / (times[b]! - times[a]!));
  let a = 0;
  while (a < n && Number.isNaN(values[a]!)) a++;
  let b = a + 1;
  while (b < n && Number.isNaN(values[b]!)) b++;
  if (b >= n) throw executionError('Datafusion: Execution error: At least two non-NaN values are needed');
  for (let i = 0; i < b; i++) values[i] = at(i, a, b);
  for (let i = b + 1; i < n; i++) {
    if (Number.isNaN(values[i]!)) continue;
    a = b;
    b = i;
    for (let j = a + 1; j < b; j++) values[j] = at(j, a, b);
  }
  for (let i = b + 1; i < n; i++) values[i] = at(i, a, b);
}

interface TimeAnomalies {
  missing: number;
  redundant: number;
  late: number;
}

function timeAnomalies(times: readonly number[]): TimeAnomalies {
  const WINDOW = 10;
  const gaps: number[] = [];
  for (let k = 0; k + 1 < times.length; k++) gaps.push(times[k + 1]! - times[k]!);
  const base = median(gaps);
  const out = { missing: 0, redundant: 0, late: 0 };
  const window: number[] = [];
  let i = 0;
  while (i < Math.min(WINDOW, times.length)) window.push(times[i++]!);
  while (window.length > 1) {
    const ratio = (window[1]! - window[0]!) / base;
    if (ratio <= 0.5) {
      window.splice(1, 1);
      out.redundant++;
    } else if (ratio >= 2 && ratio <= 9) {
      // A long gap: the points that arrive too soon after it are late ones, the rest missing.
      const hidden = roundHalfAway(ratio - 1);
      let late = 0;
      for (let j = 2; j < window.length; j++) {
        const r2 = (window[j]! - window[j - 1]!) / base;
        if (r2 >= 2) break;
        if (r2 <= 0.5) {
          late++;
          window.splice(j, 1);
          j--;
          if (late === hidden) break;
        }
      }
      out.late += late;
      out.missing += hidden - late;
    }
    window.shift();
    while (window.length < WINDOW && i < times.length) window.push(times[i++]!);
  }
  return out;
}

/** One of the four ratios of a series sorted by time (`values` may hold NaN for NULL). */
export function dataQualityRatio(
  kind: DataQualityKind,
  times: readonly number[],
  rawValues: readonly number[],
): number {
  const count = times.length;
  let special = 0;
  const values = rawValues.map((v) => {
    if (Number.isFinite(v)) return v;
    special++;
    return NaN;
  });
  fillGaps(times, values);
  if (kind !== 'validity') {
    const t = timeAnomalies(times);
    if (kind === 'completeness') return 1 - (t.missing + special) / (count + t.missing);
    if (kind === 'consistency') return 1 - t.redundant / count;
    return 1 - t.late / count;
  }
  const variation: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) variation.push(values[i + 1]! - values[i]!);
  const speed: number[] = [];
  for (let i = 0; i + 1 < values.length; i++) speed.push((values[i + 1]! - values[i]!) / (times[i + 1]! - times[i]!));
  const speedChange: number[] = [];
  for (let i = 0; i + 1 < speed.length; i++) speedChange.push(speed[i + 1]! - speed[i]!);
  const n = outliers(values, 3) + outliers(variation, 3) + outliers(speed, 3) + outliers(speedChange, 3);
  return 1 - (0.25 * n) / count;
}
