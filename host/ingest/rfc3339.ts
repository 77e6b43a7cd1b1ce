// RFC 3339 / ISO 8601 date-times to nanoseconds since the epoch, exactly (BigInt arithmetic, so
// no fraction digit is lost to a double). Accepted: `YYYY-MM-DD`, then optionally `T` (or `t`,
// or a space) and `hh:mm[:ss[.fraction]]`, then optionally `Z`/`z` or an offset `±hh[:mm]` /
// `±hhmm`; and ISO 8601's basic format of the same (`20240131T120000.5Z`, `20240131`). No offset
// means UTC. Any number of fraction digits; beyond nine they are truncated
// (toward the past, as a nanosecond clock would). Date.parse is not used: it keeps only
// milliseconds and accepts many non-ISO forms. Runtime-agnostic.

import { daysFromCivil } from '../core/calendar.js';

const NS_PER_S = 1_000_000_000n;

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** The value of `n` decimal digits at `at`, or -1 if any is not a digit. */
function digits(s: string, at: number, n: number): number {
  if (at + n > s.length) return -1;
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Parses `text` to nanoseconds since the epoch. Returns a string describing the problem when it
 * is not a valid date-time (the caller wraps it in its own error kind and position).
 */
export function parseRfc3339Ns(text: string): bigint | string {
  if (text[4] !== '-') {
    const extended = extendedFromBasic(text);
    if (extended !== undefined) {
      const r = parseRfc3339Ns(extended);
      return typeof r === 'string' ? r.replace(extended, text) : r;
    }
  }
  const bad = `'${text.length > 40 ? text.slice(0, 40) + '...' : text}' is not an RFC 3339 time (want e.g. 2024-01-31T12:00:00.5Z)`;
  const y = digits(text, 0, 4);
  if (y < 0 || text[4] !== '-') return bad;
  const mo = digits(text, 5, 2);
  if (mo < 0 || text[7] !== '-') return bad;
  const d = digits(text, 8, 2);
  if (d < 0) return bad;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return `'${text}' has no such date`;
  let pos = 10;
  let h = 0;
  let mi = 0;
  let sec = 0;
  let fracNs = 0n;
  if (pos < text.length && (text[pos] === 'T' || text[pos] === 't' || text[pos] === ' ')) {
    h = digits(text, pos + 1, 2);
    if (h < 0 || text[pos + 3] !== ':') return bad;
    mi = digits(text, pos + 4, 2);
    if (mi < 0) return bad;
    pos += 6;
    if (text[pos] === ':') {
      sec = digits(text, pos + 1, 2);
      if (sec < 0) return bad;
      pos += 3;
      if (text[pos] === '.' || text[pos] === ',') {
        let n = 0;
        let frac = 0;
        pos++;
        const start = pos;
        while (pos < text.length) {
          const c = text.charCodeAt(pos) - 48;
          if (c < 0 || c > 9) break;
          if (n < 9) {
            frac = frac * 10 + c;
            n++;
          }
          pos++;
        }
        if (pos === start) return bad;
        for (; n < 9; n++) frac *= 10;
        fracNs = BigInt(frac);
      }
    }
    // 60 would be a leap second; like most databases (and Go's time.Parse) refuse it.
    if (h > 23 || mi > 59 || sec > 59) return `'${text}' has no such time of day`;
  }
  let offsetMin = 0;
  if (pos < text.length) {
    const c = text[pos];
    if (c === 'Z' || c === 'z') {
      pos++;
    } else if (c === '+' || c === '-') {
      const oh = digits(text, pos + 1, 2);
      if (oh < 0) return bad;
      let om = 0;
      pos += 3;
      if (text[pos] === ':') {
        om = digits(text, pos + 1, 2);
        if (om < 0) return bad;
        pos += 3;
      } else if (pos < text.length) {
        om = digits(text, pos, 2);
        if (om < 0) return bad;
        pos += 2;
      }
      if (oh > 23 || om > 59) return `'${text}' has an invalid UTC offset`;
      offsetMin = (c === '-' ? -1 : 1) * (oh * 60 + om);
    }
  }
  if (pos !== text.length) return bad;
  const seconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offsetMin * 60;
  return BigInt(seconds) * NS_PER_S + fracNs;
}

/** ISO 8601's basic format (`20240131T120000.5+0100`) written in the extended one, if it is one. */
const BASIC = /^(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(\d{2})(?:(\d{2})([.,]\d+)?)?)?([Zz]|[+-]\d{2}(?:\d{2})?)?$/;

function extendedFromBasic(text: string): string | undefined {
  const m = BASIC.exec(text);
  if (m === null) return undefined;
  let out = `${m[1]}-${m[2]}-${m[3]}`;
  if (m[4] !== undefined) out += `T${m[4]}:${m[5]}${m[6] === undefined ? '' : `:${m[6]}${m[7] ?? ''}`}`;
  return out + (m[8] ?? '');
}
