// How the log shippers' routes report failures: the Elasticsearch routes (/api/v1/es/...) with
// Elasticsearch's error object, and Loki's push with Loki's plain-text line, both at the statuses
// those servers use (neither has 422: what Sundial answers 422 is a 400 there, a missing index or
// database a 404, a missing privilege or tenant a 403). Shippers decide by the status alone: they
// send a batch again after 429 and 5xx, and drop it after any other 4xx. The Elasticsearch body
// keeps Sundial's `error_code` and `error_message` beside `error` and `status` (CnosDB's clients
// of this route read those).

import type { ErrorKind, UserError } from '../core/errors.js';

const STATUS: Partial<Record<ErrorKind, number>> = {
  auth: 401,
  privilege: 403,
  tenantNotFound: 403,
  databaseNotFound: 404,
  tableNotFound: 404,
  bodyTooLarge: 413,
  limitReached: 429,
};

/** The status of `err` on a log shipper's route: 4xx errors those servers have no status for are 400. */
export function logRouteStatus(err: UserError): number {
  const s = STATUS[err.kind];
  if (s !== undefined) return s;
  return err.status >= 500 ? err.status : 400;
}

/** Elasticsearch's exception type for each kind of error (its `error.type`). */
const ES_TYPES: Partial<Record<ErrorKind, string>> = {
  auth: 'security_exception',
  privilege: 'security_exception',
  tenantNotFound: 'security_exception',
  databaseNotFound: 'index_not_found_exception',
  tableNotFound: 'index_not_found_exception',
  schemaConflict: 'document_parsing_exception',
  limitReached: 'es_rejected_execution_exception',
  unavailable: 'cluster_block_exception',
};

/** Elasticsearch's error type for `err`. */
export function esErrorType(err: UserError): string {
  return ES_TYPES[err.kind] ?? (err.status >= 500 ? 'exception' : 'illegal_argument_exception');
}

/** Elasticsearch's error body (`error.root_cause`, `error.type`, `error.reason`, `status`), plus Sundial's code and message. */
export function esErrorBody(err: UserError): string {
  const cause = { type: esErrorType(err), reason: err.message };
  return JSON.stringify({
    error: { root_cause: [cause], ...cause },
    status: logRouteStatus(err),
    error_code: err.code,
    error_message: err.message,
  });
}

/** Loki's error body: the message and a newline, as Go's http.Error writes it. */
export function lokiErrorBody(err: UserError): string {
  return `${err.message}\n`;
}
