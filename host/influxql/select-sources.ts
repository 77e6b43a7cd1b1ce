// What a SELECT or SHOW reads from: its measurements resolved against the catalog (names,
// regexes, `db.rp.m`), the time bounds of its WHERE clause, and its GROUP BY tags. InfluxDB's
// rules: the retention policy names nothing here (one `autogen` policy per database), an unknown
// measurement yields no series (not an error), an unknown database is "database not found: x".

import { RE2JS } from 're2js';
import type { DatabaseInfo, TableInfo } from '../engine/catalog.js';
import type { Dimension, Expr, Measurement } from './ast.js';
import { statementError } from './errors.js';
import { evalTime } from './time.js';

/** The part of the engine's catalog InfluxQL reads (EngineCatalog satisfies it). */
export interface SchemaCatalog {
  database(name: string): DatabaseInfo | undefined;
  tables(database: string): TableInfo[];
  table(database: string, name: string): TableInfo | undefined;
}

export interface SourceContext {
  readonly catalog: SchemaCatalog;
  /** The `db` parameter. */
  readonly defaultDatabase: string | undefined;
  readonly nowNs: bigint;
  /** Throws the privilege error unless the user may read the database. */
  authorize(database: string, need: 'read' | 'write' | 'all'): void;
}

const regexCache = new Map<string, RE2JS>();

/** A compiled InfluxQL (Go RE2) regular expression; unanchored, as InfluxDB matches. */
export function compileRegex(pattern: string): RE2JS {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      throw statementError(`invalid regular expression /${pattern}/: ${(e as Error).message}`);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

export function regexMatches(pattern: string, value: string): boolean {
  return compileRegex(pattern).test(value);
}

/** The database a statement acts on, which must exist and be readable. */
export function requireDatabase(
  ctx: SourceContext,
  name: string | undefined,
  need: 'read' | 'write' | 'all' = 'read',
): string {
  const db = name ?? ctx.defaultDatabase;
  if (db === undefined || db === '') throw statementError('database name required');
  ctx.authorize(db, need);
  if (ctx.catalog.database(db) === undefined) throw statementError(`database not found: ${db}`);
  return db;
}

/** The tables `sources` name (all of the database's when there are none), sorted by name, each once. */
export function resolveSources(ctx: SourceContext, sources: readonly Measurement[], database?: string): TableInfo[] {
  const out = new Map<string, TableInfo>();
  const all = sources.length === 0 ? [{ ...(database === undefined ? {} : { database }) } as Measurement] : sources;
  for (const m of all) {
    const db = requireDatabase(ctx, m.database ?? database);
    if (m.name !== undefined) {
      const t = ctx.catalog.table(db, m.name);
      if (t !== undefined) out.set(`${db}\0${t.name}`, t);
      continue;
    }
    for (const t of ctx.catalog.tables(db))
      if (m.regex === undefined || regexMatches(m.regex, t.name)) out.set(`${db}\0${t.name}`, t);
  }
  return [...out.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.database < b.database ? -1 : 1,
  );
}

export interface TimeBounds {
  /** Inclusive, nanoseconds; undefined: unbounded. */
  readonly lower?: bigint;
  readonly upper?: bigint;
  /** The condition without the time comparisons that made the bounds. */
  readonly rest?: Expr;
}

const FLIP: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

function isTime(e: Expr): boolean {
  return (e.kind === 'varRef' && e.name.toLowerCase() === 'time') || (e.kind === 'paren' && isTime(e.expr));
}

/** Splits the top-level AND of `cond` into time bounds and the rest (InfluxDB's influxql.ConditionExpr). */
export function timeBounds(cond: Expr | undefined, nowNs: bigint): TimeBounds {
  let lower: bigint | undefined;
  let upper: bigint | undefined;
  const rest: Expr[] = [];
  const visit = (e: Expr): void => {
    if (e.kind === 'paren') {
      // Only a parenthesised conjunction is flattened: (a AND b) AND c.
      if (e.expr.kind === 'binary' && e.expr.op === 'AND') return visit(e.expr);
    }
    if (e.kind === 'binary' && e.op === 'AND') {
      visit(e.left);
      visit(e.right);
      return;
    }
    if (e.kind === 'binary' && FLIP[e.op] !== undefined && (isTime(e.left) || isTime(e.right))) {
      const op = isTime(e.left) ? e.op : FLIP[e.op]!;
      const t = evalTime(isTime(e.left) ? e.right : e.left, nowNs);
      const lo = op === '>' ? t + 1n : op === '>=' || op === '=' ? t : undefined;
      const hi = op === '<' ? t - 1n : op === '<=' || op === '=' ? t : undefined;
      if (lo !== undefined && (lower === undefined || lo > lower)) lower = lo;
      if (hi !== undefined && (upper === undefined || hi < upper)) upper = hi;
      return;
    }
    rest.push(e);
  };
  if (cond !== undefined) visit(cond);
  let restExpr: Expr | undefined;
  for (const r of rest) restExpr = restExpr === undefined ? r : { kind: 'binary', op: 'AND', left: restExpr, right: r };
  return {
    ...(lower === undefined ? {} : { lower }),
    ...(upper === undefined ? {} : { upper }),
    ...(restExpr === undefined ? {} : { rest: restExpr }),
  };
}

export interface Grouping {
  readonly time?: { readonly intervalNs: bigint; readonly offsetNs: bigint };
  /** GROUP BY tag names as written (in order), `*`, and regexes. */
  readonly tags: readonly string[];
  readonly allTags: boolean;
  readonly regexes: readonly string[];
}

export function grouping(dimensions: readonly Dimension[]): Grouping {
  let time: Grouping['time'];
  const tags: string[] = [];
  const regexes: string[] = [];
  let allTags = false;
  for (const d of dimensions) {
    if (d.kind === 'time') {
      if (time !== undefined) throw statementError('multiple time dimensions');
      time = { intervalNs: d.intervalNs, offsetNs: d.offsetNs };
    } else if (d.kind === 'tag') tags.push(d.name);
    else if (d.kind === 'wildcard') allTags = true;
    else regexes.push(d.pattern);
  }
  return { ...(time === undefined ? {} : { time }), tags, allTags, regexes };
}

/** The tags of `table` a grouping names: written ones in order (existing or not), then `*` and regex ones sorted. */
export function groupTagsOf(g: Grouping, table: TableInfo): string[] {
  const tagNames = table.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
  const out: string[] = [];
  const add = (n: string): void => {
    if (!out.includes(n)) out.push(n);
  };
  const extra = tagNames.filter((n) => g.allTags || g.regexes.some((r) => regexMatches(r, n)));
  for (const n of [...g.tags, ...extra]) add(n);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
