// Query parameters and their header fallbacks (CONTRACT.md: `tenant`, `db` and `table` may also
// come as request headers; the query parameter wins). Bad values are 400 040001.

import type { Request } from '@hapi/hapi';
import { UserError } from '../core/errors.js';
import type { RequestUnit } from '../core/precision.js';
import { DEFAULT_DATABASE, DEFAULT_TENANT } from '../meta/index.js';

/** One query parameter as a string; a repeated parameter is an error. */
export function queryParam(request: Request, name: string): string | undefined {
  const v = request.query[name] as unknown;
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new UserError('badParameter', `query parameter '${name}' is given ${v.length} times`);
  return String(v);
}

/** A query parameter, else the request header of the same name. */
export function paramOrHeader(request: Request, name: string): string | undefined {
  const q = queryParam(request, name);
  if (q !== undefined) return q;
  const h = request.headers[name];
  return h === undefined ? undefined : String(h);
}

export function tenantOf(request: Request): string {
  return paramOrHeader(request, 'tenant') ?? DEFAULT_TENANT;
}

export function databaseOf(request: Request): string {
  return paramOrHeader(request, 'db') ?? DEFAULT_DATABASE;
}

export type RequestPrecision = RequestUnit;

/**
 * `precision` spellings, any case: CnosDB's ns, us, ms, s and InfluxDB's n, u, µ, m (minutes)
 * and h, which its clients send (node `influx` and python `influxdb` default to `n`).
 */
const PRECISIONS: Readonly<Record<string, RequestUnit>> = {
  n: 'ns',
  ns: 'ns',
  u: 'us',
  µ: 'us',
  us: 'us',
  ms: 'ms',
  s: 's',
  m: 'm',
  h: 'h',
};

/** `precision` (default ns); anything else is 400. */
export function precisionOf(request: Request): RequestPrecision {
  const p = queryParam(request, 'precision');
  if (p === undefined) return 'ns';
  const v = PRECISIONS[p.toLowerCase()];
  if (v !== undefined) return v;
  throw new UserError('badParameter', `invalid precision '${p}': want ns (or n), us (or u), ms, s, m or h`);
}

/** A boolean parameter: true/1/yes, false/0/no (any case); anything else is 400. */
export function booleanParam(request: Request, name: string, fallback: boolean): boolean {
  const v = queryParam(request, name);
  if (v === undefined) return fallback;
  const l = v.toLowerCase();
  if (l === 'true' || l === '1' || l === 'yes') return true;
  if (l === 'false' || l === '0' || l === 'no') return false;
  throw new UserError('badParameter', `invalid ${name} '${v}': want true or false`);
}
