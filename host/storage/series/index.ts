// A series' rows as every storage layer holds them (sorted by time, columns by id), and the
// UTF-8 and validity vectors they are made of. The bottom of storage: imports only core.

export {
  allocValues,
  type ColumnData,
  compareI64,
  concatRows,
  copyValue,
  type FieldValues,
  filterRows,
  lowerBound,
  normalizeRows,
  type PackSource,
  type PackTarget,
  type PackValues,
  type RowSource,
  type SeriesRows,
  sliceByTime,
  sliceRows,
} from './series-data.js';
export { copyUtf8Column, Utf8Buffer, Utf8Column } from './utf8-column.js';
export { copyValidity, markAbsent } from './validity.js';
