// The engine's error texts, shaped like the messages CnosDB 2.4 returns over HTTP (the phase
// prefix such as "Build logical plan: " is not part of them, as in CnosDB's error_message), so
// that the conformance cases' regexes match and users see familiar words. Every one is a
// UserError of the catalog in core/errors.ts; internal invariants use `bug()` instead.

import { UserError, type ErrorKind } from '../core/errors.js';

/** DataFusion's `DataFusionError::Plan`: 422 010001. */
export function planError(message: string): UserError {
  return new UserError('sqlPlan', `Datafusion: Error during planning: ${message}`);
}

/** A planning error raised inside one of DataFusion's analyzer rules, which names the rule. */
export function analyzerError(rule: string, message: string): UserError {
  return new UserError('sqlPlan', `Datafusion: ${rule}\ncaused by\nError during planning: ${message}`);
}

/** DataFusion's `DataFusionError::SchemaError` (unknown or ambiguous column): 422 010001. */
export function schemaError(message: string): UserError {
  return new UserError('sqlPlan', `Datafusion: Schema error: ${message}`);
}

/**
 * CnosDB's own semantic checks (DDL, SHOW, INSERT): 422, code 010003 (QueryError::Semantic), or
 * `kind`, the catalog entry of the numbered variant (010027-010046) whose template this text is.
 */
export function semanticError(message: string, kind: ErrorKind = 'sqlSemantic'): UserError {
  return new UserError(kind, `Semantic error: ${message}`);
}

/** A statement or function the engine does not support: 422 010005. */
export function notImplemented(message: string): UserError {
  return new UserError('notImplemented', `This feature is not implemented: ${message}`);
}

/** DataFusion's own NotImplemented (unsupported casts): CnosDB shows it with its prefix. */
export function datafusionNotImplemented(message: string): UserError {
  return new UserError('notImplemented', `Datafusion: This feature is not implemented: ${message}`);
}

/**
 * A failure while computing a result (division by zero, a bad cast of a value): 422 with CnosDB's
 * code for the wrapper its text names, 010002 for "Arrow: ...", else 010001.
 */
export function executionError(message: string): UserError {
  return new UserError(message.startsWith('Arrow: ') ? 'sqlArrow' : 'sqlExecute', message);
}

/** Arrow's cast error text, as CnosDB reports a bad value in INSERT or CAST. */
export function castError(message: string): UserError {
  return executionError(`Arrow: Cast error: ${message}`);
}

/** DataFusion's internal-error text, which CnosDB shows for a few unsupported argument shapes. */
export function internalError(message: string): UserError {
  return new UserError(
    'sqlPlan',
    `Datafusion: Internal error: ${message}. This was likely caused by a bug in DataFusion's code and we would welcome that you file an bug report in our issue tracker`,
  );
}
