// Zigzag maps signed deltas to unsigned so that small magnitudes of either sign get small codes
// (protobuf sint64). All delta arithmetic wraps modulo 2^64, so i64 min followed by max (a
// delta that overflows) still round-trips exactly, and u64 columns share the i64 codecs.

@inline export function zigzag(v: i64): u64 {
  return <u64>((v << 1) ^ (v >> 63));
}

@inline export function unzigzag(z: u64): i64 {
  return <i64>(z >> 1) ^ -<i64>(z & 1);
}

/**
 * dst[i] = zigzag(src[i + 1] - src[i] - base) for i < n - 1 (u64 arrays); returns their OR.
 * The base (the average step) centres the deltas of steadily rising series, such as
 * timestamps with jitter, on zero.
 */
export function zigzagDeltas(src: usize, n: u32, dst: usize, base: i64): u64 {
  let or: u64 = 0;
  if (n < 2) return 0;
  let prev = load<i64>(src);
  for (let i: u32 = 1; i < n; i++) {
    const v = load<i64>(src + (<usize>i << 3));
    const z = zigzag(v - prev - base);
    store<u64>(dst + (<usize>(i - 1) << 3), z);
    or |= z;
    prev = v;
  }
  return or;
}

/** dst[i] = zigzag of the delta-of-delta of values i, i+1, i+2, for i < n - 2; returns their OR. */
export function zigzagDeltasOfDeltas(src: usize, n: u32, dst: usize): u64 {
  let or: u64 = 0;
  if (n < 3) return 0;
  let prev = load<i64>(src, 8);
  let prevDelta = prev - load<i64>(src);
  for (let i: u32 = 2; i < n; i++) {
    const v = load<i64>(src + (<usize>i << 3));
    const d = v - prev;
    const z = zigzag(d - prevDelta);
    store<u64>(dst + (<usize>(i - 2) << 3), z);
    or |= z;
    prevDelta = d;
    prev = v;
  }
  return or;
}

/**
 * Turns n zigzag values at p (in place) back into values: order 1 is a delta stream starting
 * after `v`, each delta offset by the base `d` (out = prefix sums); order 2 a delta-of-delta
 * stream after `v` with running delta `d`.
 * `order` is a compile-time constant at every call site, so one loop remains per case.
 */
@inline export function undoZigzagInPlace(p: usize, n: u32, v: i64, d: i64, order: i32): void {
  const end = p + (<usize>n << 3);
  if (order == 1) {
    while (p < end) {
      v += unzigzag(load<u64>(p)) + d;
      store<i64>(p, v);
      p += 8;
    }
  } else {
    while (p < end) {
      d += unzigzag(load<u64>(p));
      v += d;
      store<i64>(p, v);
      p += 8;
    }
  }
}
