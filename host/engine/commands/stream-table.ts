// CnosDB's stream tables: CREATE STREAM TABLE names a tskv table's rows by event time (WITH (db,
// table, event_time_column, watermark_delay) engine = tskv), and `INSERT INTO sink SELECT ... FROM
// stream GROUP BY date_bin(...)` registers a continuous query instead of running once. The host
// calls runStreamQuery for each on a timer: the watermark is the newest event time less the delay,
// every date_bin window that ends at or before it and after the last one stored is computed over
// the source rows of those windows and stored in the sink, and the progress is saved. Rows that
// arrive for a window already stored are late and left out, as CnosDB drops what falls behind the
// watermark.

import { UserError } from '../../core/errors.js';
import { ALL_DATABASES } from '../../core/object-names.js';
import type { EngineCatalog } from '../catalog.js';
import type { ExecContext } from '../exec/exec-plan.js';
import type { QueryPlanner } from '../planner/query-planner.js';
import { printStatement } from '../sql/printer.js';
import type { Rows } from './show.js';
import { UINT64 } from '../types/index.js';
import { notImplemented, semanticError } from '../errors.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import type { LExpr } from '../plan/expr.js';
import { simplifyExpr } from '../optimizer/simplify-expressions.js';
import { databaseNotFound, tableNotFound } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import type { IntervalValue, TimeUnit } from '../types/index.js';
import { unitNanos } from '../types/index.js';
import { parseDurationMs } from './database-options.js';

function text(o: ast.SqlOption): string {
  const v = o.value;
  return v.kind === 'string' ? v.value : v.kind === 'number' ? v.text : v.kind === 'boolean' ? String(v.value) : '';
}

export async function createStreamTable(
  catalog: EngineCatalog,
  s: ast.CreateStreamTable,
  defaultDb: string,
  authorize: ((db: string, need: 'all') => void) | undefined,
): Promise<void> {
  // Its queries run with the rights of a tenant owner: only owners and admins create one.
  authorize?.(ALL_DATABASES, 'all');
  if (catalog.createStreamTable === undefined) throw notImplemented('CREATE STREAM TABLE on this catalog');
  const db = s.name.length > 1 ? s.name[s.name.length - 2]! : defaultDb;
  const name = s.name[s.name.length - 1]!;
  if (catalog.database(db) === undefined) throw databaseNotFound(db);
  if (
    catalog.table(db, name) !== undefined ||
    catalog.externalTable?.(db, name) !== undefined ||
    catalog.streamTable?.(db, name) !== undefined
  ) {
    if (s.ifNotExists) return;
    throw new UserError('tableExists', `Meta: Table ${name} already exists.`);
  }
  if (s.engine !== 'TSKV') throw new UserError('streamType', `Unsupported stream type: ${s.engine.toLowerCase()}`);
  const options = new Map<string, string>();
  for (const o of s.options) {
    const key = o.name.toLowerCase();
    if (!['db', 'table', 'event_time_column', 'watermark_delay'].includes(key))
      throw semanticError(`Unsupported option [${o.name}]`);
    options.set(key, text(o));
  }
  const sourceDb = options.get('db') ?? db;
  const sourceName = options.get('table');
  if (sourceName === undefined) throw new UserError('missingTableOption', `Missing option [table] of table ${name}`);
  const eventTime = options.get('event_time_column');
  if (eventTime === undefined)
    throw new UserError('eventTimeColumn', `Event time column not specified of table ${name}`);
  const source = catalog.database(sourceDb) === undefined ? undefined : catalog.table(sourceDb, sourceName);
  if (source === undefined)
    throw new UserError(
      'invalidTableOption',
      `Invalid option [db | table] of table ${sourceDb}.${sourceName}: Table not found.`,
    );
  const timeColumn = source.columns.find((c) => c.name === eventTime);
  if (timeColumn === undefined || timeColumn.type.id !== 'Timestamp')
    throw new UserError(
      'invalidTableOption',
      `Invalid option [event_time_column] of table ${name}: ${eventTime} is not a time column of ${sourceDb}.${sourceName}`,
    );
  for (const c of s.columns) {
    if (!source.columns.some((x) => x.name === c.name))
      throw new UserError(
        'invalidTableOption',
        `Invalid option [db | table] of table ${name}: Schema error: No field named ${c.name} in ${sourceDb}.${sourceName}`,
      );
  }
  let watermarkDelayMs = 0;
  const delay = options.get('watermark_delay');
  if (delay !== undefined) {
    const ms = /^\d+$/.test(delay) ? Number(delay) : parseDurationMs(delay);
    if (ms === null || !Number.isSafeInteger(ms))
      throw new UserError('invalidTableOption', `Invalid option [watermark_delay] of table ${name}: ${delay}`);
    watermarkDelayMs = ms;
  }
  await catalog.createStreamTable(db, {
    database: db,
    name,
    sourceDatabase: sourceDb,
    sourceTable: sourceName,
    eventTimeColumn: eventTime,
    watermarkDelayMs,
    columns: s.columns.map((c) => c.name),
  });
}

export interface StreamWindow {
  readonly intervalNs: bigint;
  readonly originNs: bigint;
}

function intervalNs(v: IntervalValue): bigint | undefined {
  return v.months !== 0 ? undefined : BigInt(v.days) * 86_400_000_000_000n + v.nanos;
}

/**
 * The windows of a stream query: its aggregate's GROUP BY date_bin(<interval>, <time>[, <origin>])
 * with constant interval and origin; undefined when it has none (a stream query must have one).
 */
export function streamWindow(plan: LogicalPlan): StreamWindow | undefined {
  const visit = (p: LogicalPlan): StreamWindow | undefined => {
    if (p.kind === 'aggregate') {
      for (const g of p.groupBy) {
        const e: LExpr = simplifyExpr(g.kind === 'alias' ? g.expr : g, { nowNs: 0n });
        if (e.kind !== 'scalarFn' || e.fn.name.toLowerCase() !== 'date_bin') continue;
        const [stride, , origin] = e.args;
        if (stride?.kind !== 'literal' || stride.value === null || typeof stride.value !== 'object') continue;
        const ns = intervalNs(stride.value as IntervalValue);
        if (ns === undefined || ns <= 0n) continue;
        let originNs = 0n;
        if (origin !== undefined) {
          if (origin.kind !== 'literal' || typeof origin.value !== 'bigint' || origin.type.id !== 'Timestamp') continue;
          originNs = origin.value * unitNanos(origin.type.unit);
        }
        return { intervalNs: ns, originNs };
      }
    }
    for (const c of p.kind === 'join'
      ? [p.left, p.right]
      : p.kind === 'union'
        ? p.inputs
        : 'input' in p
          ? [p.input]
          : []) {
      const w = visit(c);
      if (w !== undefined) return w;
    }
    return undefined;
  };
  return visit(plan);
}

/** The start of the window holding `t`. */
export function windowStart(t: bigint, w: StreamWindow): bigint {
  const d = t - w.originNs;
  const k = d >= 0n ? d / w.intervalNs : -((-d + w.intervalNs - 1n) / w.intervalNs);
  return w.originNs + k * w.intervalNs;
}

/** A stream query refused: CnosDB runs only windowed aggregates continuously. */
export function noWindow(stream: string): Error {
  return notImplemented(
    `a stream query over ${stream} without GROUP BY date_bin(<interval>, <event time>[, <origin>]) of constant arguments`,
  );
}

export function streamTableNotFound(tenant: string, db: string, name: string): Error {
  return tableNotFound(tenant, db, name);
}

/** Nanoseconds per unit of the event time column. */
export function eventUnitNanos(unit: TimeUnit): bigint {
  return unitNanos(unit);
}

/**
 * INSERT INTO sink SELECT ... FROM stream: checked (one stream, a date_bin window) and saved with
 * the stream; it answers `rows` 0 at once, the rows come as windows close.
 */
export async function registerStreamQuery(
  qp: QueryPlanner,
  ctx: ExecContext,
  s: ast.Insert,
  plan: LogicalPlan,
): Promise<Rows> {
  ctx.session.authorize?.(ALL_DATABASES, 'all');
  const streams = new Set(qp.streamsRead.map((t) => `${t.database}.${t.name}`));
  if (streams.size > 1) throw notImplemented(`a stream query over ${streams.size} stream tables`);
  const stream = qp.streamsRead[0]!;
  if (streamWindow(plan) === undefined) throw noWindow(stream.name);
  if (ctx.catalog.addStreamQuery === undefined) throw notImplemented('stream queries on this catalog');
  await ctx.catalog.addStreamQuery(stream.database, stream.name, {
    sql: printStatement(s),
    database: ctx.session.database,
    user: ctx.session.user.name,
  });
  return { fields: [{ name: 'rows', type: UINT64 }], rows: [[0n]] };
}
