// How the InfluxDB routes (/ping, /write, /query, /api/v2/write) report failures: the statuses
// InfluxDB uses for each of Sundial's error kinds (it has no 422: what Sundial answers 422 is a
// 400 there, a missing database a 404, a missing privilege a 403), v1's `{"error":"..."}` and
// v2's `{"code":"invalid","message":"..."}` bodies, and the version headers InfluxDB clients read.

import type { ResponseObject } from '@hapi/hapi';
import type { ErrorKind, UserError } from '../core/errors.js';

/** The InfluxDB API Sundial answers as (X-Influxdb-Version): 1.8, the last 1.x with /api/v2/write. */
export const INFLUXDB_VERSION = '1.8.10';
export const INFLUXDB_BUILD = 'OSS';

const STATUS: Partial<Record<ErrorKind, number>> = {
  auth: 401,
  privilege: 403,
  tenantNotFound: 404,
  databaseNotFound: 404,
  tableNotFound: 404,
  bodyTooLarge: 413,
  limitReached: 429,
  unavailable: 503,
  internal: 500,
  corruptData: 500,
  queryTimeout: 500,
};

/** The status of `err` on an InfluxDB route: 4xx errors InfluxDB has no status for are 400. */
export function influxStatus(err: UserError): number {
  const s = STATUS[err.kind];
  if (s !== undefined) return s;
  return err.status >= 500 ? err.status : 400;
}

/** InfluxDB 2's error codes by status (its `influxdb.Error` codes). */
const V2_CODES: Readonly<Record<number, string>> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  405: 'method not allowed',
  413: 'request too large',
  429: 'too many requests',
  500: 'internal error',
  503: 'unavailable',
};

/** The JSON error body of an InfluxDB route. */
export function influxErrorBody(err: UserError, style: 'influx' | 'influx2'): string {
  if (style === 'influx') return JSON.stringify({ error: err.message });
  return JSON.stringify({ code: V2_CODES[influxStatus(err)] ?? 'internal error', message: err.message });
}

/** The headers every InfluxDB 1.x answer carries. */
export function influxHeaders<T extends ResponseObject>(res: T): T {
  res.header('X-Influxdb-Version', INFLUXDB_VERSION);
  res.header('X-Influxdb-Build', INFLUXDB_BUILD);
  return res;
}
