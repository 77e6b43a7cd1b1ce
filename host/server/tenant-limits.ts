// Per-tenant request limits from the tenant's `_limiter` option (meta/limiter-config.ts):
// token buckets for queries and writes per interval and bytes in and out, and a cap on the SQL
// requests running at once. Past a limit the request gets 429 030024 with a Retry-After for that
// tenant only: every tenant has its own buckets, and a tenant without `_limiter` has none.
//
// On one node CnosDB's remote bucket (meta) is the limit: `initial` tokens, `refill` more every
// `interval` ms, at most `max` (null: no cap). The local bucket is a per-node cache of it and is
// not needed here. Both the http_* and the coord_* bucket of a kind apply, as a request passes
// CnosDB's HTTP layer and then its coordinator. A request larger than a bucket's `max` passes
// once the bucket is full and leaves it in debt, so it can always make progress.
// Bytes out are known only after the result is written: a query is admitted while its tenant's
// data_out buckets are not in debt, and its bytes are charged once sent.

import { UserError } from '../core/errors.js';
import type { LimiterConfig, RateBucket, RequestBucketName, TenantDef } from '../meta/index.js';

/** The `cause` of a 429 from a tenant limit (the audit log tells them from server-wide 429s). */
export const TENANT_LIMIT = 'tenant limit';

/** Retry-After when a bucket never refills. */
const NEVER_S = 3600;

class TokenBucket {
  readonly #cfg: RateBucket;
  #tokens: number;
  #lastMs: number;

  constructor(cfg: RateBucket, nowMs: number) {
    this.#cfg = cfg;
    this.#tokens = cfg.initial;
    this.#lastMs = nowMs;
  }

  #refill(nowMs: number): void {
    const { refill, interval, max } = this.#cfg;
    const periods = Math.floor((nowMs - this.#lastMs) / interval);
    if (periods <= 0) return;
    this.#lastMs += periods * interval;
    this.#tokens = Math.min(max ?? Infinity, this.#tokens + periods * refill);
  }

  /** Milliseconds until `need` tokens are there (0: now). */
  #waitMs(need: number, nowMs: number): number {
    const missing = need - this.#tokens;
    if (missing <= 0) return 0;
    if (this.#cfg.refill === 0) return NEVER_S * 1000;
    const periods = Math.ceil(missing / this.#cfg.refill);
    return Math.max(1, this.#lastMs + periods * this.#cfg.interval - nowMs);
  }

  /** The wait (ms) before `n` tokens may be taken (0: now); more than `max` may be taken from a full bucket. */
  waitFor(n: number, nowMs: number): number {
    this.#refill(nowMs);
    return this.#waitMs(Math.min(n, this.#cfg.max ?? n), nowMs);
  }

  /** Takes `n` tokens, into debt if need be (the caller checked waitFor, or the bytes are already sent). */
  take(n: number, nowMs: number): void {
    this.#refill(nowMs);
    this.#tokens -= n;
  }
}

/** CnosDB's RequestLimiterKind names, which its messages show. */
const KIND_NAMES: Record<RequestBucketName, string> = {
  coord_data_in: 'CoordDataIn',
  coord_data_out: 'CoordDataOut',
  coord_queries: 'CoordQueries',
  coord_writes: 'CoordWrites',
  http_data_in: 'HttpDataIn',
  http_data_out: 'HttpDataOut',
  http_queries: 'HttpQueries',
  http_writes: 'HttpWrites',
};

const KINDS = {
  writes: ['http_writes', 'coord_writes'],
  queries: ['http_queries', 'coord_queries'],
  dataIn: ['http_data_in', 'coord_data_in'],
  dataOut: ['http_data_out', 'coord_data_out'],
} as const satisfies Record<string, readonly RequestBucketName[]>;

interface TenantState {
  /** The limiter these buckets were built from; a new object (ALTER TENANT) rebuilds them. */
  limiter: LimiterConfig;
  buckets: Map<RequestBucketName, TokenBucket>;
  running: number;
}

function limitError(what: string, tenant: string, waitMs: number): UserError {
  const retryAfterS = Math.max(1, Math.ceil(waitMs / 1000));
  return new UserError('limitReached', `${what} reached limit for tenant ${tenant}; retry after ${retryAfterS} s`, {
    retryAfterS,
    cause: TENANT_LIMIT,
    reason: 'tenant',
  });
}

export class TenantLimits {
  readonly #nowMs: () => number;
  /** key: tenant id (a dropped and recreated tenant starts afresh) */
  readonly #tenants = new Map<number, TenantState>();

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  #state(t: TenantDef): TenantState | undefined {
    const limiter = t.limiter;
    if (limiter === null || limiter.request_config === null) {
      this.#tenants.delete(t.id);
      return undefined;
    }
    let s = this.#tenants.get(t.id);
    if (s === undefined || s.limiter !== limiter) {
      const now = this.#nowMs();
      const buckets = new Map<RequestBucketName, TokenBucket>();
      for (const [name, b] of Object.entries(limiter.request_config)) {
        if (b !== null && typeof b === 'object')
          buckets.set(name as RequestBucketName, new TokenBucket(b.remote_bucket, now));
      }
      s = { limiter, buckets, running: s?.running ?? 0 };
      this.#tenants.set(t.id, s);
    }
    return s;
  }

  /** Takes `n` from every bucket of a kind, all or none; 429 naming the first that is short. */
  #take(t: TenantDef, s: TenantState, kinds: readonly RequestBucketName[], n: number): void {
    const now = this.#nowMs();
    const present = kinds.filter((k) => s.buckets.has(k));
    for (const k of present) {
      // Check all before taking any, so a refusal takes nothing.
      const wait = s.buckets.get(k)!.waitFor(n, now);
      if (wait > 0) throw limitError(KIND_NAMES[k], t.name, wait);
    }
    for (const k of present) s.buckets.get(k)!.take(n, now);
  }

  /** A write request to the tenant: the writes buckets take one (429 past them). */
  admitWrite(t: TenantDef): void {
    const s = this.#state(t);
    if (s !== undefined) this.#take(t, s, KINDS.writes, 1);
  }

  /** The bytes of a write's body: the data_in buckets take them (429 past them). */
  chargeDataIn(t: TenantDef, bytes: number): void {
    const s = this.#state(t);
    if (s !== undefined) this.#take(t, s, KINDS.dataIn, bytes);
  }

  /**
   * A query of the tenant (SQL, Prometheus remote read, Jaeger): the queries buckets take one,
   * the data_out buckets must not be in debt, and one of `http_concurrent_queries` is held until
   * the returned release is called.
   */
  admitQuery(t: TenantDef): () => void {
    const s = this.#state(t);
    if (s === undefined) return () => undefined;
    const now = this.#nowMs();
    for (const k of KINDS.dataOut) {
      const wait = s.buckets.get(k)?.waitFor(0, now) ?? 0;
      if (wait > 0) throw limitError(KIND_NAMES[k], t.name, wait);
    }
    const max = s.limiter.request_config?.http_concurrent_queries ?? null;
    if (max !== null && s.running >= max) throw limitError('HttpConcurrentQueries', t.name, 1000);
    this.#take(t, s, KINDS.queries, 1);
    s.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      s.running--;
    };
  }

  /** Bytes of a query's result once sent: the data_out buckets are charged (they may go into debt). */
  chargeDataOut(t: TenantDef, bytes: number): void {
    const s = this.#state(t);
    if (s === undefined) return;
    const now = this.#nowMs();
    for (const k of KINDS.dataOut) s.buckets.get(k)?.take(bytes, now);
  }
}
