// RFC 3339 date-times in the extended format to nanoseconds since the epoch: the port of
// host/ingest/rfc3339.ts (the reference) for the JSON log scanner. `YYYY-MM-DD`, then optionally
// `T`, `t` or a space and `hh:mm[:ss[(.|,)fraction]]`, then optionally `Z`, `z` or `±hh[:mm]` /
// `±hhmm`; fraction digits past nine are truncated. Anything else, including ISO 8601's basic
// format and times outside the i64 nanosecond range, is left to the reference: parse() returns
// false and the scanner bails.

/** The result of the last successful parse. */
export let parsedNs: i64 = 0;

/** `n` decimal digits at `p` (inside `[.., e)`) as a number, or -1. */
function digits(p: usize, n: usize, e: usize): i32 {
  if (p + n > e) return -1;
  let v: i32 = 0;
  for (let i: usize = 0; i < n; i++) {
    const c = <i32>load<u8>(p + i) - 0x30;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

@inline
function at(p: usize, e: usize): u32 {
  return p < e ? <u32>load<u8>(p) : 0;
}

/** Floor division for the civil-date arithmetic (years before 1 March of year 0 go negative). */
@inline
function floorDiv(a: i64, b: i64): i64 {
  const q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/** Days from 1970-01-01 to the civil date (proleptic Gregorian; Howard Hinnant's algorithm). */
function daysFromCivil(y: i64, m: i64, d: i64): i64 {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const doy = floorDiv(153 * (m + (m > 2 ? -3 : 9)) + 2, 5) + d - 1;
  const doe = yoe * 365 + floorDiv(yoe, 4) - floorDiv(yoe, 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: i32, m: i32): i32 {
  if (m == 2) return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28;
  return m == 4 || m == 6 || m == 9 || m == 11 ? 30 : 31;
}

/** Parses the ASCII text `[p, p + n)`; true with `parsedNs` set, or false for the reference to judge. */
export function parseRfc3339(p: usize, n: usize): bool {
  const e = p + n;
  if (at(p + 4, e) != 0x2d) return false; // not the extended format
  const y = digits(p, 4, e);
  if (y < 0) return false;
  const mo = digits(p + 5, 2, e);
  if (mo < 0 || at(p + 7, e) != 0x2d) return false;
  const d = digits(p + 8, 2, e);
  if (d < 0) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return false;
  let pos = p + 10;
  let h: i32 = 0;
  let mi: i32 = 0;
  let sec: i32 = 0;
  let frac: i64 = 0;
  const t = at(pos, e);
  if (pos < e && (t == 0x54 || t == 0x74 || t == 0x20)) {
    h = digits(pos + 1, 2, e);
    if (h < 0 || at(pos + 3, e) != 0x3a) return false;
    mi = digits(pos + 4, 2, e);
    if (mi < 0) return false;
    pos += 6;
    if (at(pos, e) == 0x3a) {
      sec = digits(pos + 1, 2, e);
      if (sec < 0) return false;
      pos += 3;
      const c = at(pos, e);
      if (pos < e && (c == 0x2e || c == 0x2c)) {
        pos++;
        const start = pos;
        let k = 0;
        while (pos < e) {
          const x = <i32>load<u8>(pos) - 0x30;
          if (x < 0 || x > 9) break;
          if (k < 9) {
            frac = frac * 10 + x;
            k++;
          }
          pos++;
        }
        if (pos == start) return false;
        for (; k < 9; k++) frac *= 10;
      }
    }
    if (h > 23 || mi > 59 || sec > 59) return false;
  }
  let offsetMin: i64 = 0;
  if (pos < e) {
    const c = <u32>load<u8>(pos);
    if (c == 0x5a || c == 0x7a) {
      pos++;
    } else if (c == 0x2b || c == 0x2d) {
      const oh = digits(pos + 1, 2, e);
      if (oh < 0) return false;
      let om: i32 = 0;
      pos += 3;
      if (at(pos, e) == 0x3a && pos < e) {
        om = digits(pos + 1, 2, e);
        if (om < 0) return false;
        pos += 3;
      } else if (pos < e) {
        om = digits(pos, 2, e);
        if (om < 0) return false;
        pos += 2;
      }
      if (oh > 23 || om > 59) return false;
      offsetMin = (c == 0x2d ? -1 : 1) * (<i64>oh * 60 + om);
    }
  }
  if (pos != e) return false;
  const seconds = daysFromCivil(y, mo, d) * 86400 + <i64>h * 3600 + <i64>mi * 60 + sec - offsetMin * 60;
  return toNs(seconds, frac);
}

/** `seconds * 1e9 + frac` (frac in [0, 1e9)) into parsedNs, false outside i64. */
function toNs(seconds: i64, frac: i64): bool {
  if (seconds >= -9223372036 && seconds <= 9223372035) {
    parsedNs = seconds * 1000000000 + frac;
    return true;
  }
  // The two edge seconds: i64 holds -9223372036.854775808 s to 9223372036.854775807 s.
  if (seconds == -9223372037 && frac >= 145224192) {
    parsedNs = -9223372036000000000 + (frac - 1000000000);
    return true;
  }
  if (seconds == 9223372036 && frac <= 854775807) {
    parsedNs = 9223372036000000000 + frac;
    return true;
  }
  return false;
}
