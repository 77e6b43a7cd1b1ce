// SQL type names (CAST targets, CREATE TABLE columns) to engine types. CnosDB stores five field
// types; CAST accepts DataFusion's wider set, mapped onto the types this engine computes with
// (every integer width is BIGINT, within the narrow type's range: narrowIntegerRange; every
// float width DOUBLE).

import type { DataType as AstType } from '../sql/ast.js';
import { notImplemented, semanticError } from '../errors.js';
import {
  BOOLEAN,
  type DataType,
  DATE32,
  FLOAT32,
  FLOAT64,
  INT64,
  type IntegerRange,
  INTERVAL,
  TIME64,
  timestamp,
  UINT64,
  UTF8,
} from '../types/index.js';
import { ValueType } from '../../core/write-batch.js';
import { GEOMETRY_SUB_TYPES, geometryTypeName, type GeometryColumnType } from '../../core/geometry/geometry.js';

const INTEGERS = new Set(['BIGINT', 'INT', 'INTEGER', 'SMALLINT', 'TINYINT']);

const NARROW: Readonly<Record<string, [bits: bigint, name: string]>> = {
  TINYINT: [8n, 'Int8'],
  SMALLINT: [16n, 'Int16'],
  INT: [32n, 'Int32'],
  INTEGER: [32n, 'Int32'],
};

function rangeOf(bits: bigint, unsigned: boolean, arrow: string): IntegerRange {
  return unsigned
    ? { min: 0n, max: 2n ** bits - 1n, arrow }
    : { min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n, arrow };
}

/**
 * The range a CAST to TINYINT, SMALLINT or INT(EGER), signed or not, must land in: this engine
 * computes them as BIGINT, but a value outside the type is DataFusion's cast error, not a value.
 */
export function narrowIntegerRange(t: AstType): IntegerRange | undefined {
  const narrow = t.custom ? undefined : NARROW[t.name];
  if (narrow === undefined) return undefined;
  const [bits, name] = narrow;
  return rangeOf(bits, t.unsigned, t.unsigned ? `U${name}` : name);
}

/** The same for arrow_cast's type names (`Int8` ... `UInt32`). */
export function arrowIntegerRange(name: string): IntegerRange | undefined {
  const m = /^(U?)Int(8|16|32)$/.exec(name.trim());
  return m === null ? undefined : rangeOf(BigInt(m[2]!), m[1] === 'U', name.trim());
}

/** The engine type of a CAST target. */
export function castTargetType(t: AstType): DataType {
  if (t.custom) throw notImplemented(`Unsupported SQL type ${t.name}`);
  if (INTEGERS.has(t.name)) return t.unsigned ? UINT64 : INT64;
  switch (t.name) {
    // DataFusion 27's convert_simple_data_type: FLOAT and REAL are Float32, DOUBLE is Float64.
    case 'FLOAT':
    case 'REAL':
      return FLOAT32;
    case 'DOUBLE':
    case 'DECIMAL':
    case 'NUMERIC':
      return FLOAT64;
    case 'STRING':
    case 'VARCHAR':
    case 'CHAR':
    case 'TEXT':
      return UTF8;
    case 'BOOLEAN':
      return BOOLEAN;
    case 'TIMESTAMP': {
      const p = t.params[0];
      const unit = p === '0' ? 'Second' : p === '3' ? 'Millisecond' : p === '6' ? 'Microsecond' : 'Nanosecond';
      return t.timeZone === 'WITH' ? timestamp(unit, '+00:00') : timestamp(unit);
    }
    case 'DATE':
      return DATE32;
    case 'TIME':
      return TIME64;
    case 'INTERVAL':
      return INTERVAL;
    default:
      throw notImplemented(`Unsupported SQL type ${t.name}`);
  }
}

export interface FieldColumnType {
  type: DataType;
  valueType: ValueType;
  /** Shown by DESCRIBE: BIGINT, DOUBLE, ... */
  sqlName: string;
  geometry?: GeometryColumnType;
}

/**
 * GEOMETRY(<sub_type>, <srid>): a STRING field holding WKT, as CnosDB's are. CnosDB's checks in
 * its order: two parameters, a known sub type, srid 0; each error shows the type as written.
 */
function geometryColumnType(t: AstType, column: string): FieldColumnType {
  const bad = (why: string): Error =>
    semanticError(`Unexpected data type ${t.written ?? t.name} of ${column}, ${why}`, 'columnDataType');
  if (t.params.length !== 2) throw bad('format: GEOMETRY(<sub_type>, <srid>)');
  const [subType, srid] = t.params as [string, string];
  if (GEOMETRY_SUB_TYPES[subType] === undefined)
    throw bad(`sub_type must be ${Object.keys(GEOMETRY_SUB_TYPES).join(', ')}`);
  if (srid !== '0') throw bad('currently only supports 0, Cartesian coordinate system');
  return {
    type: UTF8,
    valueType: ValueType.String,
    sqlName: geometryTypeName({ subType, srid: 0 }),
    geometry: { subType, srid: 0 },
  };
}

/** The type of a CREATE TABLE / ADD FIELD column, or CnosDB's "Unexpected data type" error. */
export function fieldColumnType(t: AstType, column: string): FieldColumnType {
  if (!t.custom && t.params.length === 0) {
    if (t.name === 'BIGINT')
      return t.unsigned
        ? { type: UINT64, valueType: ValueType.Unsigned, sqlName: 'BIGINT UNSIGNED' }
        : { type: INT64, valueType: ValueType.BigInt, sqlName: 'BIGINT' };
    if (t.name === 'DOUBLE') return { type: FLOAT64, valueType: ValueType.Double, sqlName: 'DOUBLE' };
    if (t.name === 'STRING') return { type: UTF8, valueType: ValueType.String, sqlName: 'STRING' };
    if (t.name === 'BOOLEAN') return { type: BOOLEAN, valueType: ValueType.Boolean, sqlName: 'BOOLEAN' };
  }
  if (!t.custom && t.name === 'GEOMETRY') return geometryColumnType(t, column);
  if (!t.custom && t.name === 'TIMESTAMP') throw semanticError(`column time already exists in table`);
  throw semanticError(`Unexpected data type ${t.written ?? t.name} of ${column}, `, 'columnDataType');
}
