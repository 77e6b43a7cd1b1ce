// The column types of an external table: the engine types its file readers produce (Boolean,
// Int64, UInt64, Float64, Utf8, Timestamp without zone), stored in the catalog as Arrow's display
// of the type, which is also what DESCRIBE shows for them (CnosDB prints the Arrow schema).

import type { DataType as AstType } from '../sql/ast.js';
import { notImplemented } from '../errors.js';
import {
  BOOLEAN,
  type DataType,
  FLOAT64,
  INT64,
  timestamp,
  type TimeUnit,
  typeName,
  UINT64,
  UTF8,
} from '../types/index.js';

/** The type a stored name stands for; the catalog checked the name when it loaded it. */
export function parseTypeName(text: string): DataType {
  switch (text) {
    case 'Boolean':
      return BOOLEAN;
    case 'Int64':
      return INT64;
    case 'UInt64':
      return UINT64;
    case 'Float64':
      return FLOAT64;
    case 'Utf8':
      return UTF8;
  }
  const m = /^Timestamp\((Second|Millisecond|Microsecond|Nanosecond), None\)$/.exec(text);
  if (m === null) throw new Error(`BUG: external column type ${text} passed the catalog's check`);
  return timestamp(m[1] as TimeUnit);
}

/**
 * A declared column's type: every integer width BIGINT and every float width DOUBLE (the engine
 * computes in those); types the readers cannot produce are refused.
 */
export function externalColumnType(t: AstType, column: string): DataType {
  if (!t.custom) {
    if (['BIGINT', 'INT', 'INTEGER', 'SMALLINT', 'TINYINT'].includes(t.name)) return t.unsigned ? UINT64 : INT64;
    if (['FLOAT', 'REAL', 'DOUBLE'].includes(t.name)) return FLOAT64;
    if (['STRING', 'VARCHAR', 'CHAR', 'TEXT'].includes(t.name)) return UTF8;
    if (t.name === 'BOOLEAN') return BOOLEAN;
    if (t.name === 'TIMESTAMP' && t.timeZone !== 'WITH') {
      const p = t.params[0];
      return timestamp(p === '0' ? 'Second' : p === '3' ? 'Millisecond' : p === '6' ? 'Microsecond' : 'Nanosecond');
    }
  }
  throw notImplemented(
    `external table column ${column} of type ${t.written ?? t.name}: BOOLEAN, BIGINT [UNSIGNED], DOUBLE, STRING and TIMESTAMP are supported`,
  );
}

/** A type the readers inferred (CSV, JSON) or found (Parquet), as an external column may have it. */
export function inferredColumnType(type: DataType, column: string): DataType {
  if (type.id === 'Null') return UTF8;
  if (
    ['Boolean', 'Int64', 'UInt64', 'Float64', 'Utf8'].includes(type.id) ||
    (type.id === 'Timestamp' && type.tz === undefined)
  )
    return type;
  throw notImplemented(`external table column ${column} of type ${typeName(type)}`);
}
