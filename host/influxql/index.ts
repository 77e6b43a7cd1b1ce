// InfluxQL, runtime-agnostic (no node:*): text -> statements (parser.ts) -> SQL trees run by
// Sundial's engine, or catalog reads for SHOW (executor.ts) -> InfluxDB 1.x JSON (results-json.ts).
// The host gives the engine, the catalog and the privilege checks (InfluxQLHost).

export type { Statement } from './ast.js';
export { InfluxQLParseError, InfluxQLStatementError } from './errors.js';
export { executeInfluxQL, type ExecuteOptions, type InfluxQLHost, type StatementResult } from './executor.js';
export { parseInfluxQL } from './parser.js';
export { resultsJson, toJson, type JsonOptions } from './results-json.js';
export { EPOCH_UNITS, rfc3339Nano } from './time.js';
export { planSelect, type SelectPlan } from './translate-select.js';
