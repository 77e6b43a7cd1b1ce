// + - * / % on 64-bit integer columns with SQL's errors: overflow of the result type and
// division by zero are reported (the first row where it happens), never wrapped. Rows marked
// NULL in the validity bytes are skipped, so the garbage in their slots cannot fail a query.

import { F_SCALAR, F_UNSIGNED } from './compare';

export const AR_ADD: u32 = 0;
export const AR_SUB: u32 = 1;
export const AR_MUL: u32 = 2;
export const AR_DIV: u32 = 3;
export const AR_REM: u32 = 4;

/** Result codes: the row index shifted left by 2, or'ed with one of these. */
export const AR_OVERFLOW: i32 = 1;
export const AR_DIVIDE_BY_ZERO: i32 = 2;

// Status of the last row (0 fine): set by the helpers below.
let status: i32 = 0;

@inline
function signed(x: i64, y: i64, op: u32): i64 {
  switch (op) {
    case AR_ADD: {
      const r = x + y;
      if (((x ^ r) & (y ^ r)) < 0) status = AR_OVERFLOW;
      return r;
    }
    case AR_SUB: {
      const r = x - y;
      if (((x ^ y) & (x ^ r)) < 0) status = AR_OVERFLOW;
      return r;
    }
    case AR_MUL: {
      const r = x * y;
      if (x != 0 && (r / x != y || (x == -1 && y == i64.MIN_VALUE))) status = AR_OVERFLOW;
      return r;
    }
    case AR_DIV:
      if (y == 0) {
        status = AR_DIVIDE_BY_ZERO;
        return 0;
      }
      if (x == i64.MIN_VALUE && y == -1) {
        status = AR_OVERFLOW;
        return 0;
      }
      return x / y;
    default:
      if (y == 0) {
        status = AR_DIVIDE_BY_ZERO;
        return 0;
      }
      if (y == -1) return 0;
      return x % y;
  }
}

@inline
function unsigned(x: u64, y: u64, op: u32): u64 {
  switch (op) {
    case AR_ADD: {
      const r = x + y;
      if (r < x) status = AR_OVERFLOW;
      return r;
    }
    case AR_SUB:
      if (y > x) status = AR_OVERFLOW;
      return x - y;
    case AR_MUL: {
      const r = x * y;
      if (x != 0 && r / x != y) status = AR_OVERFLOW;
      return r;
    }
    case AR_DIV:
      if (y == 0) {
        status = AR_DIVIDE_BY_ZERO;
        return 0;
      }
      return x / y;
    default:
      if (y == 0) {
        status = AR_DIVIDE_BY_ZERO;
        return 0;
      }
      return x % y;
  }
}

/** The common case, signed: one loop per operator, overflow only flagged (rows found later). */
function fastSigned(a: usize, b: usize, n: usize, op: u32, scalar: bool, out: usize): bool {
  let bad: i64 = 0;
  const bs: usize = scalar ? 0 : 8;
  let pb = b;
  switch (op) {
    case AR_ADD:
      for (let i: usize = 0; i < n; i++, pb += bs) {
        const x = load<i64>(a + (i << 3));
        const y = load<i64>(pb);
        const r = x + y;
        bad |= (x ^ r) & (y ^ r);
        store<i64>(out + (i << 3), r);
      }
      return bad < 0;
    case AR_SUB:
      for (let i: usize = 0; i < n; i++, pb += bs) {
        const x = load<i64>(a + (i << 3));
        const y = load<i64>(pb);
        const r = x - y;
        bad |= (x ^ y) & (x ^ r);
        store<i64>(out + (i << 3), r);
      }
      return bad < 0;
    case AR_MUL: {
      // Factors that both fit in 32 bits cannot overflow; anything else takes the exact path.
      let wide: i64 = 0;
      for (let i: usize = 0; i < n; i++, pb += bs) {
        const x = load<i64>(a + (i << 3));
        const y = load<i64>(pb);
        wide |= ((x >> 31) ^ (x >> 63)) | ((y >> 31) ^ (y >> 63));
        store<i64>(out + (i << 3), x * y);
      }
      return wide != 0;
    }
    default:
      return true;
  }
}

/** The exact path: every row checked, NULL rows skipped, the first failure reported. */
function exact(a: usize, b: usize, n: usize, op: u32, scalar: bool, isUnsigned: bool, valid: usize, out: usize): i32 {
  status = 0;
  for (let i: usize = 0; i < n; i++) {
    if (valid != 0 && load<u8>(valid + i) == 0) {
      store<u64>(out + (i << 3), 0);
      continue;
    }
    const pb = scalar ? b : b + (i << 3);
    if (isUnsigned) store<u64>(out + (i << 3), unsigned(load<u64>(a + (i << 3)), load<u64>(pb), op));
    else store<i64>(out + (i << 3), signed(load<i64>(a + (i << 3)), load<i64>(pb), op));
    if (status != 0) return (<i32>i << 2) | status;
  }
  return -1;
}

/**
 * out[i] = a[i] op b[i] (or b[0] with F_SCALAR) for `n` 8-byte values; `valid` points to n
 * validity bytes (1 = present) or is 0 when every row is present. Returns -1 when every row
 * succeeded, else (row << 2) | AR_OVERFLOW or AR_DIVIDE_BY_ZERO for the first failing row, and
 * -2 for an unknown op. The values of NULL rows are unspecified.
 */
export function k_arith_i64(a: usize, b: usize, n: usize, op: u32, flags: u32, valid: usize, out: usize): i32 {
  if (op > AR_REM) return -2;
  const scalar = (flags & F_SCALAR) != 0;
  const isUnsigned = (flags & F_UNSIGNED) != 0;
  // Signed +, -, * run one loop without per-row branches; only a flagged batch is checked row
  // by row (with NULLs skipped, since their slots hold anything).
  if (!isUnsigned && op <= AR_MUL && !fastSigned(a, b, n, op, scalar, out)) return -1;
  return exact(a, b, n, op, scalar, isUnsigned, valid, out);
}
