// The engine's bottom layer, Arrow's part in DataFusion: data types, vectors and batches, time
// arithmetic, coercion and casts, comparison, value text. Other folders import it from here.
export { arrowCastType } from './arrow-cast.js';
export {
  andValidity,
  concatVectors,
  constantVector,
  emptyBatch,
  getValue,
  isValid,
  nonNullMask,
  sliceBatch,
  sliceVector,
  takeVector,
  typeOfValueType,
  validityOf,
  vectorFrom,
  VectorBuilder,
  type IntervalValue,
  type RecordBatch,
  type Scalar,
  type Schema,
  type Vector,
  type VectorValues,
} from './batch.js';
export { ByteSink, utf8Bytes } from './byte-sink.js';
export { castVector, checkCast, scalarToString } from './cast.js';
export { binarySignature, canCast, commonType, comparisonCoercion } from './coercion.js';
export { compare, compareStrings } from './compare.js';
export {
  BINARY,
  BOOLEAN,
  DATE32,
  FLOAT32,
  FLOAT64,
  INT64,
  INTERVAL,
  NULL,
  TIME64,
  UINT64,
  UTF8,
  precisionUnit,
  sqlTypeName,
  timestamp,
  typeEquals,
  typeName,
  unitNanos,
  type DataType,
  type Field,
  type TimeUnit,
} from './data-types.js';
export {
  displayScalar,
  displayValue,
  intervalText,
  timeOfDayText,
  timestampText,
} from './display-text.js';
export {
  formatArrowF64,
  formatJsonF64,
  formatRustF64,
  writeArrowF64,
  writeJsonF32,
  writeJsonF64,
} from './float-text.js';
export { checkIntegerRange, type IntegerRange } from './integer-range.js';
export { installKernels, int64Kernels, kernelCore } from './kernels.js';
export { literalName } from './literal-name.js';
export { displayPrecedence, operatorText, type BinaryOperator } from './operators.js';
export { formatBytes, formatDuration } from './option-text.js';
export { TimestampWriter, writeDate } from './time-text.js';
export {
  NS_PER_DAY,
  NS_PER_SECOND,
  addInterval,
  civilFromDays,
  daysFromCivil,
  floorDiv,
  formatTimestamp,
  fromNanos,
  inI64,
  INTERVAL_UNITS,
  intervalNanos,
  parseInterval,
  parseTimestampNanos,
  timestampParseFailure,
  toNanos,
} from './time.js';
