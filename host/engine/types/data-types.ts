// SQL data types of the engine. Names follow Arrow/DataFusion, because CnosDB's result column
// names embed them (an unaliased literal is named `Int64(1)`) and its errors print them.

export type TimeUnit = 'Second' | 'Millisecond' | 'Microsecond' | 'Nanosecond';

export type DataType =
  | { id: 'Null' }
  | { id: 'Boolean' }
  | { id: 'Int64' }
  | { id: 'UInt64' }
  | { id: 'Float64' }
  /**
   * Arrow's Float32, which DataFusion 27 computes in where a function's first candidate is
   * Float32 (log and atan2 of integers) and which CAST(x AS FLOAT / REAL) gives. Held in a
   * Float64Array, every value rounded to single precision (Math.fround), shown with the shortest
   * digits that read back to the same single.
   */
  | { id: 'Float32' }
  | { id: 'Utf8' }
  /** Bytes (ST_AsBinary's WKB), held as lowercase hex text: Arrow shows Binary so. */
  | { id: 'Binary' }
  /** `tz` undefined: a timestamp without time zone (table `time` columns); 'UTC' for now(). */
  | { id: 'Timestamp'; unit: TimeUnit; tz?: string }
  /** Days since the epoch. */
  | { id: 'Date32' }
  /** Nanoseconds since midnight (Arrow's Time64(Nanosecond); current_time()). */
  | { id: 'Time64' }
  /** Arrow's IntervalMonthDayNano. */
  | { id: 'Interval' }
  | { id: 'Struct'; fields: Field[] }
  | { id: 'List'; item: DataType };

export interface Field {
  name: string;
  type: DataType;
  nullable: boolean;
  /** For columns read from a table: the table (or alias) qualifying the name. */
  qualifier?: string;
}

export const NULL: DataType = { id: 'Null' };
export const BOOLEAN: DataType = { id: 'Boolean' };
export const INT64: DataType = { id: 'Int64' };
export const UINT64: DataType = { id: 'UInt64' };
export const FLOAT64: DataType = { id: 'Float64' };
export const FLOAT32: DataType = { id: 'Float32' };
export const UTF8: DataType = { id: 'Utf8' };
export const BINARY: DataType = { id: 'Binary' };
export const INTERVAL: DataType = { id: 'Interval' };
export const DATE32: DataType = { id: 'Date32' };
export const TIME64: DataType = { id: 'Time64' };
export const timestamp = (unit: TimeUnit = 'Nanosecond', tz?: string): DataType =>
  tz === undefined ? { id: 'Timestamp', unit } : { id: 'Timestamp', unit, tz };

export function typeEquals(a: DataType, b: DataType): boolean {
  if (a.id !== b.id) return false;
  if (a.id === 'Timestamp' && b.id === 'Timestamp') return a.unit === b.unit && a.tz === b.tz;
  if (a.id === 'Struct' && b.id === 'Struct') {
    return (
      a.fields.length === b.fields.length &&
      a.fields.every((f, i) => f.name === b.fields[i]!.name && typeEquals(f.type, b.fields[i]!.type))
    );
  }
  if (a.id === 'List' && b.id === 'List') return typeEquals(a.item, b.item);
  return true;
}

/** Arrow's display of a type, as DataFusion prints it in names and errors: `Timestamp(Nanosecond, None)`. */
export function typeName(t: DataType): string {
  switch (t.id) {
    case 'Timestamp':
      return `Timestamp(${t.unit}, ${t.tz === undefined ? 'None' : `Some("${t.tz}")`})`;
    case 'Interval':
      return 'Interval(MonthDayNano)';
    case 'Time64':
      return 'Time64(Nanosecond)';
    case 'Struct':
      return `Struct([${t.fields.map((f) => `Field { name: "${f.name}", data_type: ${typeName(f.type)}, nullable: ${f.nullable} }`).join(', ')}])`;
    case 'List':
      return `List(${typeName(t.item)})`;
    default:
      return t.id;
  }
}

/** The SQL name CnosDB shows for a column type (DESCRIBE TABLE): BIGINT, DOUBLE, TIMESTAMP(NANOSECOND)... */
export function sqlTypeName(t: DataType): string {
  switch (t.id) {
    case 'Int64':
      return 'BIGINT';
    case 'UInt64':
      return 'BIGINT UNSIGNED';
    case 'Float64':
      return 'DOUBLE';
    case 'Utf8':
      return 'STRING';
    case 'Boolean':
      return 'BOOLEAN';
    case 'Timestamp':
      return `TIMESTAMP(${t.unit.toUpperCase()})`;
    default:
      return typeName(t).toUpperCase();
  }
}

export const isNumeric = (t: DataType): boolean =>
  t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64' || t.id === 'Float32';
/** DOUBLE or Float32: both held as a Float64Array. */
export const isFloat = (t: DataType): boolean => t.id === 'Float64' || t.id === 'Float32';
export const isInteger = (t: DataType): boolean => t.id === 'Int64' || t.id === 'UInt64';

/** The unit of a database's time column: its PRECISION option (CnosDB's NS, US, MS). */
export function precisionUnit(precision: 'NS' | 'US' | 'MS'): 'Nanosecond' | 'Microsecond' | 'Millisecond' {
  return precision === 'MS' ? 'Millisecond' : precision === 'US' ? 'Microsecond' : 'Nanosecond';
}

/** Nanoseconds per unit of a timestamp type. */
export function unitNanos(unit: TimeUnit): bigint {
  switch (unit) {
    case 'Second':
      return 1_000_000_000n;
    case 'Millisecond':
      return 1_000_000n;
    case 'Microsecond':
      return 1000n;
    case 'Nanosecond':
      return 1n;
  }
}
