// Database options as DESCRIBE DATABASE and information_schema.databases show them: durations as
// humantime's format_duration ("3months 8days 16h 19m 12s"; a year is 365.25 days, a month 30.44
// days), sizes in binary units with Rust's float text ("286.102294921875 MiB").

import { formatRustF64 } from './float-text.js';

const YEAR_S = 31_557_600;
const MONTH_S = 2_630_016;
const DAY_S = 86_400;

const plural = (n: number, unit: string): string => `${n}${unit}${n === 1 ? '' : 's'}`;

/** A duration as humantime's format_duration writes it; INF for null. */
export function formatDuration(ms: number | null): string {
  if (ms === null) return 'INF';
  const totalS = Math.floor(ms / 1000);
  const subMs = ms - totalS * 1000;
  const parts: string[] = [];
  const years = Math.floor(totalS / YEAR_S);
  const ydays = totalS % YEAR_S;
  const months = Math.floor(ydays / MONTH_S);
  const mdays = ydays % MONTH_S;
  const days = Math.floor(mdays / DAY_S);
  const daySecs = mdays % DAY_S;
  if (years > 0) parts.push(plural(years, 'year'));
  if (months > 0) parts.push(plural(months, 'month'));
  if (days > 0) parts.push(plural(days, 'day'));
  const h = Math.floor(daySecs / 3600);
  const m = Math.floor((daySecs % 3600) / 60);
  const s = daySecs % 60;
  if (h > 0) parts.push(`${h}h`);
  if (m > 0) parts.push(`${m}m`);
  if (s > 0) parts.push(`${s}s`);
  const millis = Math.floor(subMs);
  if (millis > 0) parts.push(`${millis}ms`);
  const micros = Math.round((subMs - millis) * 1000);
  if (micros > 0) parts.push(`${micros}us`);
  return parts.length === 0 ? '0s' : parts.join(' ');
}

/** Bytes in the largest binary unit that keeps the value at least 1: "128 MiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${formatRustF64(v)} ${units[u]}`;
}
