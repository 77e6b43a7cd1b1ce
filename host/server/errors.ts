// The one place where errors become HTTP responses (CONTRACT.md "Errors"). Write routes answer
// with an empty body; every other route with {"error_code","error_message"} JSON, but the
// InfluxDB routes, which answer in InfluxDB's shapes and statuses (influx-errors.ts), and the
// Elasticsearch and Loki routes, in theirs (log-errors.ts), the OTLP routes, which answer with a
// google.rpc.Status (otlp-errors.ts), and the Jaeger query API, which answers in jaeger-query's
// envelope with `errors`. All carry the code and message in X-Sundial-Error-Code /
// X-Sundial-Error headers.

import type { Boom } from '@hapi/boom';
import type { Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { Logger } from 'pino';
import { CorruptionError, ERRORS, UserError } from '../core/errors.js';
import { isNoSpace, NO_SPACE_MESSAGE, NO_SPACE_RETRY_S } from '../storage/index.js';
import { influxErrorBody, influxHeaders, influxStatus } from './influx-errors.js';
import { jsonBody } from './json-body.js';
import { esErrorBody, logRouteStatus, lokiErrorBody } from './log-errors.js';
import { requestLog } from './monitoring/index.js';
import { isOtlpJson, otlpErrorResponse } from './otlp-errors.js';

/**
 * How a route reports errors: InfluxDB's v1 `{"error"}` and v2 `{"code","message"}` for its
 * routes, Elasticsearch's `{"error":{...},"status"}` and Loki's text for theirs, OTLP's
 * google.rpc.Status for the OTLP/HTTP ones, jaeger-query's
 * `{"data":null,...,"errors":[{"code","msg"}]}` for the Jaeger query API.
 */
export type ErrorStyle = 'empty' | 'json' | 'influx' | 'influx2' | 'es' | 'loki' | 'otlp' | 'jaeger';

const MAX_HEADER_CHARS = 1000;

/** Makes a message safe for an HTTP header: printable ASCII, non-ASCII escaped as \uXXXX. */
export function headerSafe(message: string): string {
  let out = '';
  for (const ch of message) {
    const c = ch.codePointAt(0)!;
    if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c <= 0xffff) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\u{' + c.toString(16) + '}';
    if (out.length >= MAX_HEADER_CHARS) return out.slice(0, MAX_HEADER_CHARS - 3) + '...';
  }
  return out;
}

/** Classifies anything thrown while handling a request. */
export function toUserError(err: unknown, serverLogger: Logger, request: Request): UserError {
  if (err instanceof UserError) return err;
  const logger = requestLog(serverLogger, request);
  const boom = err as Partial<Boom> & Error;
  if (isNoSpace(err)) {
    // A catalog or manifest save that found the disk full (writes map their own: storage.ts).
    logger.warn({ err, path: request.path }, 'no space left on the data directory');
    return new UserError('noSpace', NO_SPACE_MESSAGE, { retryAfterS: NO_SPACE_RETRY_S });
  }
  if (err instanceof CorruptionError) {
    logger.error({ err, path: request.path }, 'corrupt data');
    return new UserError('corruptData', `${err.message} (CHECK DATABASE lists the damaged files of a database)`);
  }
  if (boom.isBoom && boom.output && !isBug(err)) {
    const status = boom.output.statusCode;
    const message = String(boom.output.payload?.message ?? boom.message);
    if (status === 413) return new UserError('bodyTooLarge', message);
    if (status === 415) return new UserError('badHeader', message);
    if (status >= 400 && status < 500) return new UserError('badParameter', message);
    if (status === 503) return new UserError('unavailable', message, { retryAfterS: 1 });
  }
  logger.error({ err, path: request.path, method: request.method }, 'internal error');
  const text =
    err instanceof Error && err.message.startsWith('BUG:') ? err.message : 'internal error; see the server log';
  return new UserError('internal', text);
}

function isBug(err: unknown): boolean {
  // hapi boomifies errors thrown by handlers with status 500; keep them as internal errors.
  const boom = err as Partial<Boom>;
  return !!boom.isServer && !(err instanceof UserError);
}

/** Builds the response for `err` in the route's style. */
export function errorResponse(h: ResponseToolkit, err: UserError, style: ErrorStyle): ResponseObject {
  if (style === 'influx' || style === 'influx2') {
    const res = influxHeaders(jsonBody(h, influxErrorBody(err, style)));
    res.code(influxStatus(err));
    res.header('X-Influxdb-Error', headerSafe(err.message));
    return withErrorHeaders(res, err);
  }
  if (style === 'es') {
    // Elasticsearch's clients refuse any answer without this header, errors included.
    return withErrorHeaders(
      jsonBody(h, esErrorBody(err)).code(logRouteStatus(err)).header('X-Elastic-Product', 'Elasticsearch'),
      err,
    );
  }
  if (style === 'loki')
    return withErrorHeaders(
      h.response(lokiErrorBody(err)).type('text/plain; charset=utf-8').code(logRouteStatus(err)),
      err,
    );
  if (style === 'otlp')
    return withErrorHeaders(
      otlpErrorResponse(h, err, isOtlpJson(h.request.headers['content-type'] as string | undefined)),
      err,
    );
  const res =
    style === 'json'
      ? jsonBody(h, JSON.stringify({ error_code: err.code, error_message: err.message }))
      : style === 'jaeger'
        ? jsonBody(
            h,
            JSON.stringify({
              data: null,
              total: 0,
              limit: 0,
              offset: 0,
              errors: [{ code: err.status, msg: err.message }],
            }),
          )
        : h.response();
  res.code(err.status);
  return withErrorHeaders(res, err);
}

function withErrorHeaders(res: ResponseObject, err: UserError): ResponseObject {
  res.header('X-Sundial-Error-Code', err.code);
  res.header('X-Sundial-Error', headerSafe(err.message));
  if (err.status === 401) res.header('WWW-Authenticate', 'Basic realm="sundial", charset="UTF-8"');
  if (err.retryAfterS !== undefined) res.header('Retry-After', String(err.retryAfterS));
  return res;
}

export { ERRORS };
