// A tenant's `_limiter` option (CnosDB 2.4's TenantLimiterConfig, set by `CREATE TENANT ... WITH
// _limiter = '<json>'` or `ALTER TENANT ... SET _limiter = '<json>'`, or by the limiter groups
// `object_config ...` / `coord_data_in ...` that the parser turns into that JSON): object limits and request
// token buckets. Parsed and checked here once, stored in the catalog as the checked object
// (FORMAT.md §3), shown back in CnosDB's JSON shape by cluster_schema.tenants.
//
// Departures, each because CnosDB's behaviour would silently leave a tenant unlimited: unknown
// keys are an error (CnosDB's serde ignores them), and the 2.3 names `data_in`, `data_out`,
// `queries`, `writes`, which CnosDB 2.4's own documentation still shows, are read as
// `http_data_in` ... `http_writes` (2.4 ignores them). `http_concurrent_queries` is Sundial's own
// key: SQL requests of the tenant running at once.

import { UserError } from '../core/errors.js';

/** CnosDB's RateBucketConfig: `initial` tokens, `refill` more every `interval` ms, at most `max`. */
export interface RateBucket {
  max: number | null;
  initial: number;
  refill: number;
  interval: number;
}

/** CnosDB's Bucket: the remote (meta) bucket that limits, and the local cache of it. */
export interface Bucket {
  remote_bucket: RateBucket;
  local_bucket: { max: number | null; initial: number };
}

export const OBJECT_LIMITS = [
  'max_users_number',
  'max_databases',
  'max_shard_number',
  'max_replicate_number',
  'max_retention_time',
] as const;
export type ObjectLimitName = (typeof OBJECT_LIMITS)[number];

export const REQUEST_BUCKETS = [
  'coord_data_in',
  'coord_data_out',
  'coord_queries',
  'coord_writes',
  'http_data_in',
  'http_data_out',
  'http_queries',
  'http_writes',
] as const;
export type RequestBucketName = (typeof REQUEST_BUCKETS)[number];

export interface LimiterConfig {
  object_config: Record<ObjectLimitName, number | null> | null;
  request_config: (Record<RequestBucketName, Bucket | null> & { http_concurrent_queries?: number | null }) | null;
}

const LEGACY_NAMES: Readonly<Record<string, RequestBucketName>> = {
  data_in: 'http_data_in',
  data_out: 'http_data_out',
  queries: 'http_queries',
  writes: 'http_writes',
};

function bad(detail: string): never {
  throw new UserError('sqlParse', `sql parser error: invalid _limiter: ${detail}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkKeys(o: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) bad(`unknown key "${k}" in ${where}; expected one of ${allowed.join(', ')}`);
  }
}

function count(v: unknown, where: string, nullable: boolean): number | null {
  if (v === null || v === undefined) {
    if (nullable) return null;
    bad(`${where} is required`);
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    bad(`${where} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return v;
}

function parseBucket(v: unknown, where: string): Bucket | null {
  if (v === null || v === undefined) return null;
  if (!isObject(v)) bad(`${where} must be an object or null`);
  checkKeys(v, ['remote_bucket', 'local_bucket'], where);
  const r = v.remote_bucket;
  const l = v.local_bucket;
  if (!isObject(r)) bad(`${where}.remote_bucket must be an object`);
  if (!isObject(l)) bad(`${where}.local_bucket must be an object`);
  checkKeys(r, ['max', 'initial', 'refill', 'interval'], `${where}.remote_bucket`);
  checkKeys(l, ['max', 'initial'], `${where}.local_bucket`);
  const interval = count(r.interval, `${where}.remote_bucket.interval`, false)!;
  if (interval === 0) bad(`${where}.remote_bucket.interval must be at least 1 (milliseconds)`);
  return {
    remote_bucket: {
      max: count(r.max, `${where}.remote_bucket.max`, true),
      initial: count(r.initial, `${where}.remote_bucket.initial`, false)!,
      refill: count(r.refill, `${where}.remote_bucket.refill`, false)!,
      interval,
    },
    local_bucket: {
      max: count(l.max, `${where}.local_bucket.max`, true),
      initial: count(l.initial, `${where}.local_bucket.initial`, false)!,
    },
  };
}

/** Parses and checks a `_limiter` JSON text; UserError sqlParse naming the bad key otherwise. */
export function parseLimiterConfig(text: string): LimiterConfig {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    bad(`not JSON: ${(e as Error).message}`);
  }
  if (!isObject(v)) bad('want a JSON object with object_config and request_config');
  checkKeys(v, ['object_config', 'request_config'], 'the limiter');
  let objectConfig: LimiterConfig['object_config'] = null;
  if (v.object_config !== null && v.object_config !== undefined) {
    const o = v.object_config;
    if (!isObject(o)) bad('object_config must be an object or null');
    checkKeys(o, OBJECT_LIMITS, 'object_config');
    objectConfig = Object.fromEntries(OBJECT_LIMITS.map((k) => [k, count(o[k], `object_config.${k}`, true)])) as Record<
      ObjectLimitName,
      number | null
    >;
  }
  let requestConfig: LimiterConfig['request_config'] = null;
  if (v.request_config !== null && v.request_config !== undefined) {
    const rc = v.request_config;
    if (!isObject(rc)) bad('request_config must be an object or null');
    checkKeys(rc, [...REQUEST_BUCKETS, ...Object.keys(LEGACY_NAMES), 'http_concurrent_queries'], 'request_config');
    const out = Object.fromEntries(
      REQUEST_BUCKETS.map((k) => [k, parseBucket(rc[k], `request_config.${k}`)]),
    ) as Record<RequestBucketName, Bucket | null>;
    for (const [legacy, name] of Object.entries(LEGACY_NAMES)) {
      if (rc[legacy] === undefined || rc[legacy] === null) continue;
      if (rc[name] !== undefined && rc[name] !== null) bad(`request_config has both ${legacy} and ${name}; give one`);
      out[name] = parseBucket(rc[legacy], `request_config.${legacy}`);
    }
    const concurrent = count(rc.http_concurrent_queries, 'request_config.http_concurrent_queries', true);
    if (concurrent === 0) bad('request_config.http_concurrent_queries must be at least 1 (or null)');
    requestConfig = concurrent === null ? out : { ...out, http_concurrent_queries: concurrent };
  }
  return { object_config: objectConfig, request_config: requestConfig };
}

/** Checks a stored limiter (catalog load): the same rules as parsing. */
export function checkLimiterConfig(v: unknown): LimiterConfig {
  return parseLimiterConfig(JSON.stringify(v));
}

/** The object limit `name`, or undefined when there is none. */
export function objectLimit(config: LimiterConfig | null, name: ObjectLimitName): number | undefined {
  return config?.object_config?.[name] ?? undefined;
}
