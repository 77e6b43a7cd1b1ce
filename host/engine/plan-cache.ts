// Optimized plans of recently run SELECT texts. Dashboards send the same statements again and
// again; parsing, binding and optimizing one costs about half of a small query's time (TSBS "max
// per minute of one host": 0.4 of 0.8 ms in the engine). A plan is reused only while nothing it
// was built from can have changed:
// - the key is the exact text with the tenant, the database unqualified names resolve in, and
//   the user;
// - the tenant's catalog version (every DDL, every table or column a write creates, every
//   privilege change bumps it) must be the one the plan was built under;
// - plans that fold the statement's clock (now(), current_date, current_time) or embed rows
//   read at planning time (system views, @@variables) are never kept;
// - the privilege checks planning made are made again on every reuse, in the same order;
// - plans holding more than 1 MiB of literals are never kept: constant folding makes one of
//   `SELECT repeat('x', 100000000)`, and 256 such texts kept 51 GB alive (issue 24).
// Execution state is never shared: each run builds its own physical plan from the logical one.

import type { LogicalPlan } from './plan/logical-plan.js';
import { expressionsOf, inputsOf } from './plan/logical-plan.js';
import { anyExpr, visitExpr, type LExpr } from './plan/expr.js';
import { valueBytes } from './functions/result-size.js';

export type Privilege = 'read' | 'write' | 'all';

export interface CachedPlan {
  readonly plan: LogicalPlan;
  /** The privilege checks planning made: [database, need], in order. */
  readonly checks: ReadonlyArray<readonly [string, Privilege]>;
  /** The catalog version the plan was built under. */
  readonly version: number;
}

/** Texts longer than this are planned every time (their plans could hold much memory). */
const MAX_TEXT = 8192;

/** Literal bytes past which a plan is not kept. */
const MAX_LITERAL_BYTES = 1 << 20;

/** Functions whose value the optimizer folds from the statement's clock. */
const CLOCK_FUNCTIONS = new Set(['now', 'current_date', 'current_time']);

export class PlanCache {
  readonly #capacity: number;
  /** In least recently used order (a Map iterates in insertion order; a hit re-inserts). */
  readonly #plans = new Map<string, CachedPlan>();

  constructor(capacity = 256) {
    this.#capacity = capacity;
  }

  static key(sql: string, tenant: string, database: string, user: string): string | undefined {
    return sql.length > MAX_TEXT ? undefined : `${tenant}\u0000${database}\u0000${user}\u0000${sql}`;
  }

  get size(): number {
    return this.#plans.size;
  }

  /** The plan for `key` built under catalog `version`, or undefined (a stale one is dropped). */
  get(key: string, version: number): CachedPlan | undefined {
    const hit = this.#plans.get(key);
    if (hit === undefined) return undefined;
    this.#plans.delete(key);
    if (hit.version !== version) return undefined;
    this.#plans.set(key, hit);
    return hit;
  }

  /** Keeps `entry` under `key`, unless its literals are too large to keep (MAX_LITERAL_BYTES). */
  set(key: string, entry: CachedPlan): void {
    this.#plans.delete(key);
    if (literalBytes(entry.plan) > MAX_LITERAL_BYTES) return;
    this.#plans.set(key, entry);
    if (this.#plans.size > this.#capacity) this.#plans.delete(this.#plans.keys().next().value!);
  }

  clear(): void {
    this.#plans.clear();
  }
}

/** Whether a plan (before optimization: it still names now()) reads the clock anywhere, subqueries included. */
export function readsClock(plan: LogicalPlan): boolean {
  const inExpr = (e: LExpr): boolean =>
    anyExpr(
      e,
      (x) =>
        (x.kind === 'scalarFn' && CLOCK_FUNCTIONS.has(x.fn.name)) ||
        ((x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery') && readsClock(x.plan)),
    );
  return expressionsOf(plan).some(inExpr) || inputsOf(plan).some(readsClock);
}

/** The bytes of the strings and lists a plan's literals hold, subqueries included. */
export function literalBytes(plan: LogicalPlan): number {
  let bytes = 0;
  const visit = (e: LExpr): void =>
    visitExpr(e, (x) => {
      if (x.kind === 'literal') bytes += valueBytes(x.value);
      else if (x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery')
        bytes += literalBytes(x.plan);
    });
  for (const e of expressionsOf(plan)) visit(e);
  for (const input of inputsOf(plan)) bytes += literalBytes(input);
  return bytes;
}
