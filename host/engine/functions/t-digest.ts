// A merging t-digest (Dunning and Ertl, "Computing extremely accurate quantiles using t-digests",
// arXiv:1902.04023) with the k2 scale function, as DataFusion 27 uses it for
// approx_percentile_cont and approx_median: the same compression bound (a centroid closes when
// the running weight passes k_to_q(k, maxSize) * count) and the same interpolation between
// neighbouring centroids, so small inputs, where every value stays its own centroid, give
// DataFusion's numbers exactly. Digests are immutable; merging returns a new one.

export interface Centroid {
  mean: number;
  weight: number;
}

/** The quantile at which centroid number `k` of `d` may close (the k2 scale function, inverted). */
function kToQ(k: number, d: number): number {
  const r = k / d;
  if (r >= 0.5) {
    const b = 1 - r;
    return 1 - 2 * b * b;
  }
  return 2 * r * r;
}

export class TDigest {
  readonly centroids: readonly Centroid[];
  readonly maxSize: number;
  /** Rows seen (DataFusion counts a weighted row once). */
  readonly count: number;
  readonly min: number;
  readonly max: number;

  constructor(maxSize: number, centroids: readonly Centroid[] = [], count = 0, min = NaN, max = NaN) {
    this.maxSize = maxSize;
    this.centroids = centroids;
    this.count = count;
    this.min = min;
    this.max = max;
  }

  /** This digest with `sorted` (ascending values, weight 1 each) folded in. */
  mergeSorted(sorted: readonly number[]): TDigest {
    if (sorted.length === 0) return this;
    const count = this.count + sorted.length;
    const lo = sorted[0]!;
    const hi = sorted[sorted.length - 1]!;
    const min = this.count > 0 ? Math.min(this.min, lo) : lo;
    const max = this.count > 0 ? Math.max(this.max, hi) : hi;
    // Centroids and values in one ascending stream (a centroid first only when strictly smaller).
    const stream: Centroid[] = [];
    let c = 0;
    let v = 0;
    while (c < this.centroids.length || v < sorted.length) {
      if (c < this.centroids.length && (v >= sorted.length || this.centroids[c]!.mean < sorted[v]!))
        stream.push({ ...this.centroids[c++]! });
      else stream.push({ mean: sorted[v++]!, weight: 1 });
    }
    return new TDigest(this.maxSize, compress(stream, count, this.maxSize, 2), count, min, max);
  }

  /** Several digests as one (DataFusion's merge_digests). */
  static merge(digests: readonly TDigest[], maxSize: number): TDigest {
    const all: Centroid[] = [];
    let count = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const d of digests) {
      if (d.count <= 0) continue;
      min = Math.min(min, d.min);
      max = Math.max(max, d.max);
      count += d.count;
      for (const c of d.centroids) all.push({ ...c });
    }
    if (all.length === 0) return new TDigest(maxSize);
    // A stable sort keeps equal means in input order, as DataFusion's pairwise merge does.
    all.sort(byMean);
    // DataFusion's merge_digests checks the first bound twice (it does not advance k after
    // computing it), unlike merge_sorted_f64: kept, as it decides which centroids merge.
    return new TDigest(maxSize, compress(all, count, maxSize, 1), count, min, max);
  }

  /** The estimated value at quantile q (0 for an empty digest). */
  quantile(q: number): number {
    const cs = this.centroids;
    if (cs.length === 0) return 0;
    const rank = q * this.count;
    let pos: number;
    let t: number;
    if (q > 0.5) {
      if (q >= 1) return this.max;
      pos = 0;
      t = this.count;
      for (let k = cs.length - 1; k >= 0; k--) {
        t -= cs[k]!.weight;
        if (rank >= t) {
          pos = k;
          break;
        }
      }
    } else {
      if (q <= 0) return this.min;
      pos = cs.length - 1;
      t = 0;
      for (let k = 0; k < cs.length; k++) {
        if (rank < t + cs[k]!.weight) {
          pos = k;
          break;
        }
        t += cs[k]!.weight;
      }
    }
    let delta = 0;
    let lo = this.min;
    let hi = this.max;
    if (cs.length > 1) {
      if (pos === 0) {
        delta = cs[1]!.mean - cs[0]!.mean;
        hi = cs[1]!.mean;
      } else if (pos === cs.length - 1) {
        delta = cs[pos]!.mean - cs[pos - 1]!.mean;
        lo = cs[pos - 1]!.mean;
      } else {
        delta = (cs[pos + 1]!.mean - cs[pos - 1]!.mean) / 2;
        lo = cs[pos - 1]!.mean;
        hi = cs[pos + 1]!.mean;
      }
    }
    const value = cs[pos]!.mean + ((rank - t) / cs[pos]!.weight - 0.5) * delta;
    if (Number.isNaN(lo) && Number.isNaN(hi)) return value;
    return Math.min(Math.max(value, lo), hi);
  }
}

/**
 * Centroids in ascending mean, NaN after every number: DataFusion orders them through
 * OrderedFloat, and a centroid of total weight 0 closes with mean 0/0 (a weighted row of weight 0).
 */
function byMean(a: Centroid, b: Centroid): number {
  const an = Number.isNaN(a.mean);
  const bn = Number.isNaN(b.mean);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  return a.mean - b.mean;
}

/**
 * Merges an ascending stream of centroids under the size bound; the result is sorted. The first
 * bound is k = 1; `nextK` is the k of the second one.
 */
function compress(stream: Centroid[], count: number, maxSize: number, nextK: number): Centroid[] {
  const out: Centroid[] = [];
  let limit = kToQ(1, maxSize) * count;
  let k = nextK;
  let cur = stream[0]!;
  let soFar = cur.weight;
  let sum = 0;
  let weight = 0;
  const close = (): void => {
    const total = sum + cur.weight * cur.mean;
    cur.weight += weight;
    cur.mean = total / cur.weight;
  };
  for (let i = 1; i < stream.length; i++) {
    const next = stream[i]!;
    soFar += next.weight;
    if (soFar <= limit) {
      sum += next.mean * next.weight;
      weight += next.weight;
    } else {
      close();
      out.push(cur);
      sum = 0;
      weight = 0;
      limit = kToQ(k++, maxSize) * count;
      cur = next;
    }
  }
  close();
  out.push(cur);
  out.sort(byMean);
  return out;
}
