// The shortest decimal digits that read back to a double, and of those the nearest to it (ties to
// the even digit): the choice of JavaScript's Number-to-string, Rust's ryu and lexical, which
// every output format of the server prints. Ryū's method (Ulf Adams, "Ryū: fast float-to-string
// conversion", PLDI 2018): the bounds of the interval of decimals that round to the double are
// scaled by a power of ten through a 64 x 128-bit multiplication with a table of powers of five,
// then digits are removed while the interval still holds two candidates.
//
// The two tables of 125-bit powers of five (and of their reciprocals) are computed here when the
// module starts, with a small big-integer routine, instead of being written out as constants.

/** Significant bits kept of 5^i and of 2^k / 5^i. */
const POW5_BITS: i32 = 125;
/** 5^i for i < POW5_COUNT (binary exponents below zero), reciprocals for q < POW5_INV_COUNT (above). */
const POW5_COUNT: i32 = 326;
const POW5_INV_COUNT: i32 = 342;

/** [low, high] 64-bit words of each entry. */
const POW5 = new StaticArray<u64>(POW5_COUNT * 2);
const POW5_INV = new StaticArray<u64>(POW5_INV_COUNT * 2);

// ---- building the tables: little-endian base-2^32 big integers in fixed arrays ----

const LIMBS = 32; // 5^341 has 792 bits: 25 limbs
const big = new StaticArray<u32>(LIMBS); // 5^i
const rem = new StaticArray<u32>(LIMBS + 1); // remainder of the division

function bitLength(a: StaticArray<u32>, limbs: i32): i32 {
  for (let i = limbs - 1; i >= 0; i--) {
    const w = unchecked(a[i]);
    if (w != 0) return i * 32 + (32 - <i32>clz(w));
  }
  return 0;
}

/** Bits [from, from + 64) of `a` (zeros past its end or below bit 0). */
function bitsAt(a: StaticArray<u32>, limbs: i32, from: i32): u64 {
  let out: u64 = 0;
  for (let b = 0; b < 64; b += 32) {
    const at = from + b;
    let word: u64 = 0;
    if (at >= 0) {
      const i = at >> 5;
      const s = at & 31;
      const lo: u64 = i < limbs ? <u64>unchecked(a[i]) : 0;
      const hi: u64 = i + 1 < limbs ? <u64>unchecked(a[i + 1]) : 0;
      word = ((hi << 32) | lo) >> <u64>s;
    } else if (at > -32) {
      word = <u64>unchecked(a[0]) << <u64>-at;
    }
    out |= (word & 0xffffffff) << <u64>b;
  }
  return out;
}

function buildTables(): void {
  for (let i = 0; i < LIMBS; i++) unchecked((big[i] = 0));
  big[0] = 1;
  let limbs = 1;
  const count = POW5_INV_COUNT > POW5_COUNT ? POW5_INV_COUNT : POW5_COUNT;
  for (let q = 0; q < count; q++) {
    const len = bitLength(big, limbs);
    if (q < POW5_COUNT) {
      // The top POW5_BITS bits of 5^q (shifted left when it has fewer).
      const from = len - POW5_BITS;
      unchecked((POW5[2 * q] = bitsAt(big, limbs, from)));
      unchecked((POW5[2 * q + 1] = bitsAt(big, limbs, from + 64) & ((<u64>1 << <u64>(POW5_BITS - 64)) - 1)));
    }
    if (q < POW5_INV_COUNT) {
      // floor(2^(len - 1 + POW5_BITS) / 5^q) + 1, by POW5_BITS steps of binary long division
      // from the remainder 2^(len - 1) (< 5^q for q > 0; 5^0 = 1 is the exact 2^POW5_BITS).
      let qlo: u64 = 0;
      let qhi: u64 = 0;
      if (q == 0) qhi = <u64>1 << <u64>(POW5_BITS - 64);
      else {
        for (let i = 0; i <= LIMBS; i++) unchecked((rem[i] = 0));
        unchecked((rem[(len - 1) >> 5] = <u32>1 << <u32>((len - 1) & 31)));
        const rl = limbs + 1;
        for (let step = 0; step < POW5_BITS; step++) {
          // rem <<= 1
          let carry: u32 = 0;
          for (let i = 0; i < rl; i++) {
            const w = unchecked(rem[i]);
            unchecked((rem[i] = (w << 1) | carry));
            carry = w >> 31;
          }
          // rem >= 5^q ?
          let ge = true;
          for (let i = rl - 1; i >= 0; i--) {
            const x = unchecked(rem[i]);
            const y: u32 = i < limbs ? unchecked(big[i]) : 0;
            if (x != y) {
              ge = x > y;
              break;
            }
          }
          qhi = (qhi << 1) | (qlo >> 63);
          qlo <<= 1;
          if (ge) {
            qlo |= 1;
            let borrow: i64 = 0;
            for (let i = 0; i < rl; i++) {
              const y: i64 = i < limbs ? <i64>unchecked(big[i]) : 0;
              const d: i64 = <i64>unchecked(rem[i]) - y - borrow;
              borrow = d < 0 ? 1 : 0;
              unchecked((rem[i] = <u32>(d & 0xffffffff)));
            }
          }
        }
      }
      qlo += 1;
      if (qlo == 0) qhi += 1;
      unchecked((POW5_INV[2 * q] = qlo));
      unchecked((POW5_INV[2 * q + 1] = qhi));
    }
    // big *= 5
    let carry: u64 = 0;
    for (let i = 0; i < limbs; i++) {
      const p = <u64>unchecked(big[i]) * 5 + carry;
      unchecked((big[i] = <u32>(p & 0xffffffff)));
      carry = p >> 32;
    }
    if (carry != 0) unchecked((big[limbs++] = <u32>carry));
  }
}

buildTables();

// ---- the conversion ----

/** The high 64 bits of a * b. */
@inline
function umulh(a: u64, b: u64): u64 {
  const aLo = a & 0xffffffff;
  const aHi = a >> 32;
  const bLo = b & 0xffffffff;
  const bHi = b >> 32;
  const ll = aLo * bLo;
  const lh = aLo * bHi;
  const hl = aHi * bLo;
  const hh = aHi * bHi;
  const mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/** (m * [lo, hi]) >> j for m < 2^55 and j >= 64: the top bits of a 64 x 128-bit product. */
@inline
function mulShift(m: u64, lo: u64, hi: u64, j: i32): u64 {
  const b0hi = umulh(m, lo);
  const b2lo = m * hi;
  const b2hi = umulh(m, hi);
  const sum = b0hi + b2lo;
  const top = b2hi + (sum < b0hi ? 1 : 0);
  const s = j - 64;
  // (top:sum) >> s, 0 < s < 64
  return (sum >> <u64>s) | (top << <u64>(64 - s));
}

// Division by constants as multiplications (a 64-bit division costs tens of cycles).
@inline
export function div10(x: u64): u64 {
  return umulh(x, 0xcccccccccccccccd) >> 3;
}

@inline
function div100(x: u64): u64 {
  return umulh(x >> 2, 0x28f5c28f5c28f5c3) >> 2;
}

@inline
export function div1e8(x: u64): u64 {
  return umulh(x, 0xabcc77118461cefd) >> 26;
}

@inline
function pow5Bits(e: i32): i32 {
  return <i32>((<u32>e * 1217359) >> 19) + 1;
}

function pow5Factor(v: u64): i32 {
  let count = 0;
  while (v > 0) {
    const q = umulh(v, 0xcccccccccccccccd) >> 2;
    if (v - q * 5 != 0) return count;
    v = q;
    count++;
  }
  return 0;
}

function decimalLength(v: u64): i32 {
  let n = 1;
  let p: u64 = 10;
  while (n < 20 && v >= p) {
    n++;
    p *= 10;
  }
  return n;
}

/** Results of `shortest`: the digits as an integer, their count, the power of ten of the first. */
export let shortestDigits: u64 = 0;
export let shortestLength: i32 = 0;
export let shortestExponent: i32 = 0;

/** Decimals with up to this many fraction digits take the fast path below. */
const FAST_FRACTION_DIGITS = 3;
/** While m < 2^50, at most one k-digit decimal lies within half an ulp of x (float-text.ts). */
const FAST_LIMIT: f64 = 1125899906842624.0;

/**
 * The digits of x > 0 when x * 10^k rounds to an integer m that reads back to x for some k <= 3
 * (measurements with a few decimals, integers): the first such k gives the shortest digits, and
 * the nearest, without Ryū's digit-by-digit removal. False otherwise.
 */
function shortestFixed(x: f64): bool {
  let p: f64 = 1;
  for (let k = 0; k <= FAST_FRACTION_DIGITS; k++) {
    const m = nearest(x * p);
    if (m >= FAST_LIMIT) return false;
    if (m / p == x) {
      let digits = <u64>m;
      let len = decimalLength(digits);
      const exp = len - 1 - k;
      if (k == 0) {
        // An integer's trailing zeros are not digits of it.
        for (;;) {
          const q = div10(digits);
          if (digits - q * 10 != 0) break;
          digits = q;
          len--;
        }
      }
      shortestDigits = digits;
      shortestLength = len;
      shortestExponent = exp;
      return true;
    }
    p *= 10;
  }
  return false;
}

/** The shortest nearest digits of a finite, nonzero |x| into the three results above. */
export function shortest(x: f64): void {
  if (shortestFixed(x)) return;
  const bits = reinterpret<u64>(x);
  const ieeeMantissa = bits & ((<u64>1 << 52) - 1);
  const ieeeExponent = <i32>((bits >> 52) & 0x7ff);
  let e2: i32;
  let m2: u64;
  if (ieeeExponent == 0) {
    e2 = 1 - 1023 - 52 - 2;
    m2 = ieeeMantissa;
  } else {
    e2 = ieeeExponent - 1023 - 52 - 2;
    m2 = (<u64>1 << 52) | ieeeMantissa;
  }
  const acceptBounds = (m2 & 1) == 0;
  const mv = 4 * m2;
  const mmShift: u64 = m2 != <u64>1 << 52 || ieeeExponent <= 1 ? 1 : 0;

  let vr: u64;
  let vp: u64;
  let vm: u64;
  let e10: i32;
  let vmIsTrailingZeros = false;
  let vrIsTrailingZeros = false;
  if (e2 >= 0) {
    // q = max(0, floor(e2 * log10(2)) - 1)
    let q = <i32>((<u32>e2 * 78913) >> 18) - 1;
    if (q < 0) q = 0;
    e10 = q;
    const k = POW5_BITS + pow5Bits(q) - 1;
    const i = -e2 + q + k;
    const lo = unchecked(POW5_INV[2 * q]);
    const hi = unchecked(POW5_INV[2 * q + 1]);
    vr = mulShift(4 * m2, lo, hi, i);
    vp = mulShift(4 * m2 + 2, lo, hi, i);
    vm = mulShift(4 * m2 - 1 - mmShift, lo, hi, i);
    if (q <= 21) {
      // Only one of mp, mv and mm can be a multiple of 5, if any.
      if (mv % 5 == 0) vrIsTrailingZeros = pow5Factor(mv) >= q;
      else if (acceptBounds) vmIsTrailingZeros = pow5Factor(mv - 1 - mmShift) >= q;
      else vp -= pow5Factor(mv + 2) >= q ? 1 : 0;
    }
  } else {
    // q = max(0, floor(-e2 * log10(5)) - 1)
    let q = <i32>((<u32>-e2 * 732923) >> 20) - 1;
    if (q < 0) q = 0;
    e10 = q + e2;
    const i = -e2 - q;
    const k = pow5Bits(i) - POW5_BITS;
    const j = q - k;
    const lo = unchecked(POW5[2 * i]);
    const hi = unchecked(POW5[2 * i + 1]);
    vr = mulShift(4 * m2, lo, hi, j);
    vp = mulShift(4 * m2 + 2, lo, hi, j);
    vm = mulShift(4 * m2 - 1 - mmShift, lo, hi, j);
    if (q <= 1) {
      vrIsTrailingZeros = (<u32>(~mv & 1)) >= <u32>q;
      if (acceptBounds) vmIsTrailingZeros = <u32>(~(mv - 1 - mmShift) & 1) >= <u32>q;
      else vp -= 1;
    } else if (q < 63) {
      vrIsTrailingZeros = (mv & ((<u64>1 << <u64>(q - 1)) - 1)) == 0;
    }
  }

  const vpLength = decimalLength(vp);
  let removed = 0;
  let lastRemovedDigit: u64 = 0;
  let output: u64;
  if (vmIsTrailingZeros || vrIsTrailingZeros) {
    // The general case (rare): ties and exact trailing zeros decide the last digit.
    for (;;) {
      const vpDiv10 = div10(vp);
      const vmDiv10 = div10(vm);
      if (vpDiv10 <= vmDiv10) break;
      const vrDiv10 = div10(vr);
      vmIsTrailingZeros = vmIsTrailingZeros && vm - vmDiv10 * 10 == 0;
      vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0;
      lastRemovedDigit = vr - vrDiv10 * 10;
      vr = vrDiv10;
      vp = vpDiv10;
      vm = vmDiv10;
      removed++;
    }
    if (vmIsTrailingZeros) {
      for (;;) {
        const vmDiv10 = div10(vm);
        if (vm - vmDiv10 * 10 != 0) break;
        const vrDiv10 = div10(vr);
        vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0;
        lastRemovedDigit = vr - vrDiv10 * 10;
        vr = vrDiv10;
        vp = div10(vp);
        vm = vmDiv10;
        removed++;
      }
    }
    // An exact tie (...50000) rounds to the even digit.
    if (vrIsTrailingZeros && lastRemovedDigit == 5 && (vr & 1) == 0) lastRemovedDigit = 4;
    output = vr + ((vr == vm && (!acceptBounds || !vmIsTrailingZeros)) || lastRemovedDigit >= 5 ? 1 : 0);
  } else {
    // The common case: two digits at a time while possible, then one.
    let roundUp = false;
    const vpDiv100 = div100(vp);
    const vmDiv100 = div100(vm);
    if (vpDiv100 > vmDiv100) {
      const vrDiv100 = div100(vr);
      roundUp = vr - vrDiv100 * 100 >= 50;
      vr = vrDiv100;
      vp = vpDiv100;
      vm = vmDiv100;
      removed += 2;
      for (;;) {
        const p100 = div100(vp);
        const m100 = div100(vm);
        if (p100 <= m100) break;
        const r100 = div100(vr);
        roundUp = vr - r100 * 100 >= 50;
        vr = r100;
        vp = p100;
        vm = m100;
        removed += 2;
      }
    }
    for (;;) {
      const vpDiv10 = div10(vp);
      const vmDiv10 = div10(vm);
      if (vpDiv10 <= vmDiv10) break;
      const vrDiv10 = div10(vr);
      roundUp = vr - vrDiv10 * 10 >= 5;
      vr = vrDiv10;
      vp = vpDiv10;
      vm = vmDiv10;
      removed++;
    }
    output = vr + (vr == vm || roundUp ? 1 : 0);
  }
  shortestDigits = output;
  shortestLength = vpLength - removed;
  shortestExponent = e10 + vpLength - 1;
}
