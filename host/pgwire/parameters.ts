// `$1` parameters of the extended query protocol: each value, decoded from its text or binary
// form by the type the client declared, becomes a SQL literal of the engine's dialect (strings
// quoted with '' doubled: the engine's lexer knows no backslash escape), and the statement text
// is rebuilt token by token, so that a value can never end its literal and become SQL. A value
// sent without a type (`pg` sends them all so) is a number when its text is a number written
// canonically, else a string: a number compares right with a numeric field and, cast by the
// engine, with a tag; a numeric string would compare as text ('10' < '9').

import { UserError } from '../core/errors.js';
import type { PgToken } from './sql-text.js';
import { OID } from './pg-types.js';

const INTEGER = /^-?(?:0|[1-9][0-9]{0,17})$/;
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,17})\.[0-9]{0,16}[1-9]$/;
const NUMERIC_TEXT = /^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const PG_EPOCH_US = 946_684_800_000_000n;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const bad = (message: string): UserError => new UserError('invalidParam', message);

export function quoteString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A NULL, or a value of a declared or unknown type, as a literal. */
export function parameterLiteral(value: Buffer | null, format: number, typeOid: number, index: number): string {
  if (value === null) return 'NULL';
  if (format === 1) return binaryLiteral(value, typeOid, index);
  let text: string;
  try {
    text = utf8.decode(value);
  } catch {
    throw bad(`parameter $${index} is not valid UTF-8`);
  }
  return textLiteral(text, typeOid, index);
}

function numberLiteral(text: string, index: number, integer: boolean): string {
  const t = text.trim();
  if (!integer && /^[-+]?(nan|infinity|inf)$/i.test(t))
    return `CAST(${quoteString(t.replace(/^\+/, '').toLowerCase().startsWith('-') ? '-inf' : /nan/i.test(t) ? 'NaN' : 'inf')} AS DOUBLE)`;
  if (integer ? !/^[-+]?[0-9]+$/.test(t) : !NUMERIC_TEXT.test(t))
    throw bad(
      `parameter $${index}: invalid input syntax for type ${integer ? 'integer' : 'number'}: ${JSON.stringify(text.slice(0, 100))}`,
    );
  return t.startsWith('+') ? t.slice(1) : t;
}

function textLiteral(text: string, typeOid: number, index: number): string {
  switch (typeOid) {
    case OID.int2:
    case OID.int4:
    case OID.int8:
    case OID.oid:
      return numberLiteral(text, index, true);
    case OID.float4:
    case OID.float8:
    case OID.numeric:
      return numberLiteral(text, index, false);
    case OID.bool: {
      const t = text.trim().toLowerCase();
      if (['t', 'true', 'y', 'yes', 'on', '1'].includes(t)) return 'TRUE';
      if (['f', 'false', 'n', 'no', 'off', '0'].includes(t)) return 'FALSE';
      throw bad(`parameter $${index}: invalid input syntax for type boolean: ${JSON.stringify(text.slice(0, 100))}`);
    }
    case OID.timestamp:
    case OID.timestamptz:
      return `CAST(${quoteString(text)} AS TIMESTAMP)`;
    case 0:
    case OID.unknown:
      return INTEGER.test(text) || DECIMAL.test(text) ? text : quoteString(text);
    default:
      return quoteString(text);
  }
}

function binaryLiteral(b: Buffer, typeOid: number, index: number): string {
  const want = (n: number): void => {
    if (b.length !== n)
      throw bad(`parameter $${index}: binary value of type ${typeOid} is ${b.length} bytes, want ${n}`);
  };
  switch (typeOid) {
    case OID.bool:
      want(1);
      return b[0] === 0 ? 'FALSE' : 'TRUE';
    case OID.int2:
      want(2);
      return String(b.readInt16BE(0));
    case OID.int4:
    case OID.oid:
      want(4);
      return typeOid === OID.oid ? String(b.readUInt32BE(0)) : String(b.readInt32BE(0));
    case OID.int8:
      want(8);
      return String(b.readBigInt64BE(0));
    case OID.float4:
    case OID.float8: {
      want(typeOid === OID.float4 ? 4 : 8);
      const x = typeOid === OID.float4 ? b.readFloatBE(0) : b.readDoubleBE(0);
      if (Number.isNaN(x)) return "CAST('NaN' AS DOUBLE)";
      if (!Number.isFinite(x)) return x > 0 ? "CAST('inf' AS DOUBLE)" : "CAST('-inf' AS DOUBLE)";
      const s = String(x);
      return /[.e]/.test(s) ? s : `${s}.0`;
    }
    case OID.timestamp:
    case OID.timestamptz: {
      want(8);
      // Microseconds since 2000-01-01 as the engine's nanosecond literal.
      const ns = (b.readBigInt64BE(0) + PG_EPOCH_US) * 1000n;
      return `CAST(${ns} AS TIMESTAMP)`;
    }
    case OID.bytea:
      return quoteString(b.toString('hex'));
    case 0:
    case OID.unknown:
    case OID.text:
    case OID.varchar:
    case OID.bpchar:
    case OID.name:
    case OID.json:
      try {
        return quoteString(utf8.decode(b));
      } catch {
        throw bad(`parameter $${index} is not valid UTF-8`);
      }
    default:
      throw new UserError('notImplemented', `This feature is not implemented: binary parameters of type ${typeOid}`);
  }
}

/** The highest `$n` in the tokens (the count of parameters a statement takes). */
export function parameterCount(tokens: readonly PgToken[]): number {
  let max = 0;
  for (const t of tokens) if (t.kind === 'param') max = Math.max(max, Number(t.value));
  return max;
}

/** `sql` with each `$n` token replaced by literals[n - 1]. */
export function substitute(sql: string, tokens: readonly PgToken[], literals: readonly string[]): string {
  let out = '';
  let at = 0;
  for (const t of tokens) {
    if (t.kind !== 'param') continue;
    const n = Number(t.value);
    const literal = literals[n - 1];
    if (literal === undefined) throw new UserError('pgProtocol', `there is no parameter $${n}`);
    // A space on each side: `-$1` with -5 must not become `--5` (a comment).
    out += sql.slice(at, t.start) + ' ' + literal + ' ';
    at = t.end;
  }
  return out + sql.slice(at);
}
