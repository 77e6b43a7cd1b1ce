// Line-protocol text for `sundial import`'s converted formats (CSV, NDJSON, Parquet) and for
// `sundial export --format lp`: escaping as the server's parser reads it (tag keys and values,
// field keys: `,` `=` and space; a table name: `,` and space; a string field: `"` and `\`; a
// backslash elsewhere stays as it is, as InfluxDB keeps it), and the field types the columns hold.

import { parseRfc3339Ns } from '../ingest/rfc3339.js';

export const COLUMN_TYPES = ['double', 'bigint', 'unsigned', 'boolean', 'string'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export function isColumnType(s: string): s is ColumnType {
  return (COLUMN_TYPES as readonly string[]).includes(s);
}

const KEY_SPECIAL = /[,= ]/g;
const NAME_SPECIAL = /[, ]/g;
const STRING_SPECIAL = /["\\]/g;
// Tested without /g, whose lastIndex would carry from one test to the next.
const HAS_KEY_SPECIAL = /[,= ]/;
const HAS_NAME_SPECIAL = /[, ]/;
const HAS_STRING_SPECIAL = /["\\]/;

export function escapeKey(s: string): string {
  return HAS_KEY_SPECIAL.test(s) ? s.replace(KEY_SPECIAL, '\\$&') : s;
}

export function escapeTable(s: string): string {
  return HAS_NAME_SPECIAL.test(s) ? s.replace(NAME_SPECIAL, '\\$&') : s;
}

export function quoteString(s: string): string {
  return '"' + (HAS_STRING_SPECIAL.test(s) ? s.replace(STRING_SPECIAL, '\\$&') : s) + '"';
}

const INTEGER = /^-?\d+$/;
const UNSIGNED = /^\d+$/;
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const I64_MAX = 9223372036854775807n;
const U64_MAX = 18446744073709551615n;

/** A text value as a field of `type`: the line-protocol text, or an Error saying why not. */
export function fieldText(type: ColumnType, v: string): string | Error {
  switch (type) {
    case 'double': {
      if (DECIMAL.test(v))
        return v[0] === '.' ? '0' + v : v.startsWith('-.') ? '-0' + v.slice(1) : v.endsWith('.') ? v + '0' : v;
      return new Error(`'${clip(v)}' is not a DOUBLE`);
    }
    case 'bigint':
      if (INTEGER.test(v) && (v.length < 19 || (BigInt(v) <= I64_MAX && BigInt(v) >= -I64_MAX - 1n))) return v + 'i';
      return new Error(`'${clip(v)}' is not a BIGINT`);
    case 'unsigned':
      if (UNSIGNED.test(v) && (v.length < 20 || BigInt(v) <= U64_MAX)) return v + 'u';
      return new Error(`'${clip(v)}' is not a BIGINT UNSIGNED`);
    case 'boolean': {
      const l = v.toLowerCase();
      if (l === 'true' || l === 't') return 'true';
      if (l === 'false' || l === 'f') return 'false';
      return new Error(`'${clip(v)}' is not a BOOLEAN`);
    }
    case 'string':
      return quoteString(v);
  }
}

/** The type a sample of text values suggests: the narrowest of bigint, double, boolean, string. */
export function inferType(values: Iterable<string>): ColumnType | undefined {
  let seen = false;
  let integer = true;
  let decimal = true;
  let boolean = true;
  for (const v of values) {
    seen = true;
    if (integer && !INTEGER.test(v)) integer = false;
    if (decimal && !DECIMAL.test(v)) decimal = false;
    if (boolean) {
      const l = v.toLowerCase();
      if (l !== 'true' && l !== 'false') boolean = false;
    }
    if (!integer && !decimal && !boolean) return 'string';
  }
  if (!seen) return undefined;
  return integer ? 'bigint' : decimal ? 'double' : boolean ? 'boolean' : 'string';
}

export function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 60) + '...' : s;
}

/** A time value as nanoseconds: an integer in units of `factor` ns, or an RFC 3339 date-time (UTC without an offset). */
export function timeNs(v: string, factor: bigint): bigint | Error {
  if (INTEGER.test(v)) return BigInt(v) * factor;
  const ns = parseRfc3339Ns(v);
  return typeof ns === 'string' ? new Error(`time '${clip(v)}': ${ns}`) : ns;
}

/** Nanoseconds per unit of a precision name. */
export const PRECISION_NS: Record<string, bigint> = { ns: 1n, us: 1000n, ms: 1_000_000n, s: 1_000_000_000n };
