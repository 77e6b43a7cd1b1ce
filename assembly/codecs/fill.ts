// Filling u64 ranges: runs of one value and arithmetic progressions (regular timestamps), two
// lanes per SIMD store. Writes exactly `n` values, never past them.

/** dst[0..n) = v. */
@inline export function fill64(dst: usize, v: u64, n: u32): void {
  const vv = i64x2.splat(<i64>v);
  const end = dst + (<usize>n << 3);
  let p = dst;
  while (end - p >= 16) {
    v128.store(p, vv);
    p += 16;
  }
  if (p < end) store<u64>(p, v);
}

/** dst[i] = first + i * step for i < n, wrapping modulo 2^64. */
export function fillProgression(dst: usize, first: i64, step: i64, n: u32): void {
  const end = dst + (<usize>n << 3);
  let p = dst;
  let v = i64x2.replace_lane(i64x2.splat(first), 1, first + step);
  const inc = i64x2.splat(step << 1);
  while (end - p >= 16) {
    v128.store(p, v);
    v = i64x2.add(v, inc);
    p += 16;
  }
  if (p < end) store<i64>(p, i64x2.extract_lane(v, 0));
}
