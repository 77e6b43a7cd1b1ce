// The `key=value&key=value` option strings of CnosDB's data-repair functions, read as serde reads
// them into a struct (serde_urlencoded): pairs split at the first '=', '+' and %-escapes decoded,
// empty pairs skipped, and an unknown or repeated key refused in serde's words.

import { executionError } from '../errors.js';

const fail = (message: string): Error =>
  executionError(`Datafusion: Execution error: Fail to parse argument: ${message}`);

/** serde's list of expected fields: `a`, `a` or `b`, one of `a`, `b`, `c`. */
function expected(fields: readonly string[]): string {
  const q = fields.map((f) => `\`${f}\``);
  if (q.length === 1) return `expected ${q[0]}`;
  if (q.length === 2) return `expected ${q[0]} or ${q[1]}`;
  return `expected one of ${q.join(', ')}`;
}

function decode(s: string): string {
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

/** The options in `text` by key; every key must be one of `fields`, each at most once. */
export function parseUrlOptions(text: string, fields: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? '' : decode(pair.slice(eq + 1));
    if (!fields.includes(key)) throw fail(`unknown field \`${key}\`, ${expected(fields)}`);
    if (out.has(key)) throw fail(`duplicate field \`${key}\``);
    out.set(key, value);
  }
  return out;
}

/** A signed 64-bit integer option, as Rust's i64::from_str reads it. */
export function integerOption(text: string): bigint {
  if (text === '') throw fail('cannot parse integer from empty string');
  if (!/^[+-]?\d+$/.test(text)) throw fail('invalid digit found in string');
  const v = BigInt(text);
  if (v > 2n ** 63n - 1n) throw fail('number too large to fit in target type');
  if (v < -(2n ** 63n)) throw fail('number too small to fit in target type');
  return v;
}

/** A float option, as Rust's f64::from_str reads it. */
export function floatOption(text: string): number {
  if (!/^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i.test(text))
    throw fail('invalid float literal');
  const t = text.toLowerCase().replace(/^\+/, '');
  if (t.endsWith('nan')) return NaN;
  if (t.endsWith('inf') || t.endsWith('infinity')) return t.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}
