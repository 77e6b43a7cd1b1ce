// Runs parsed InfluxQL statements in order and yields InfluxDB 1.x results: SELECTs through
// Sundial's SQL engine (one query per measurement, translate-select.ts), SHOWs from the catalog,
// CREATE/DROP DATABASE as the engine's own DDL statements (so privileges and options are checked
// where SQL checks them). A statement that fails yields its error and the rest do not run, as in
// InfluxDB. Chunked: one result per series piece, `partial` wherever more of it follows.

import { UserError } from '../core/errors.js';
import type { QueryResult } from '../engine/query.js';
import type * as sql from '../engine/sql/ast.js';
import type { Statement } from './ast.js';
import { InfluxQLStatementError, statementError } from './errors.js';
import { assembleSeries, type Cell, type SeriesPiece } from './series-assembler.js';
import { requireDatabase } from './select-sources.js';
import { POS } from './sql-builders.js';
import {
  showFieldKeys,
  showMeasurements,
  showRetentionPolicies,
  showSeries,
  showTagKeys,
  showTagValues,
  type ShowContext,
} from './show-statements.js';
import { planSelect } from './translate-select.js';

export interface InfluxQLHost extends ShowContext {
  /** Runs one SQL statement as the session's user (the engine checks privileges), in `database`. */
  run(statement: sql.Statement, database: string): Promise<QueryResult>;
  /** SHOW USERS: the users and whether each is an admin; throws for a user who may not list them. */
  users(): Array<{ name: string; admin: boolean }>;
}

export interface SeriesResult {
  readonly name?: string;
  readonly tags?: Readonly<Record<string, string>>;
  readonly columns: readonly string[];
  readonly values: Cell[][];
  /** The first column is a time in nanoseconds (SELECT), formatted by the `epoch` rule. */
  readonly timeColumn: boolean;
  readonly partial?: boolean;
}

export interface StatementResult {
  readonly statementId: number;
  readonly series: SeriesResult[];
  readonly error?: string;
  readonly partial?: boolean;
}

export interface ExecuteOptions {
  /** Chunked answer: at most this many rows per result; undefined: one result per statement. */
  readonly chunkSize?: number;
}

/** Rows per piece while assembling an unchunked answer (it is joined again). */
const PIECE_ROWS = 10_000;

/** Messages of errors that are the statement's, not the server's. */
function statementMessage(e: unknown): string | undefined {
  if (e instanceof InfluxQLStatementError) return e.message;
  if (e instanceof UserError) return e.message;
  return undefined;
}

export async function* executeInfluxQL(
  statements: readonly Statement[],
  host: InfluxQLHost,
  options: ExecuteOptions = {},
): AsyncGenerator<StatementResult> {
  for (let id = 0; id < statements.length; id++) {
    const s = statements[id]!;
    try {
      if (s.kind === 'select') {
        yield* runSelect(id, s, host, options);
        continue;
      }
      yield { statementId: id, series: (await runOther(s, host)).map((x) => ({ ...x, timeColumn: false })) };
    } catch (e) {
      const message = statementMessage(e);
      if (message === undefined) throw e;
      yield { statementId: id, series: [], error: message };
      return;
    }
  }
}

async function runOther(
  s: Exclude<Statement, { kind: 'select' }>,
  host: InfluxQLHost,
): Promise<Array<Omit<SeriesResult, 'timeColumn'>>> {
  switch (s.kind) {
    case 'showDatabases': {
      const r = await host.run({ kind: 'showDatabases', pos: POS }, host.defaultDatabase ?? 'public');
      const values: Cell[][] = [];
      if (r.kind === 'rows')
        for await (const b of r.batches)
          for (let i = 0; i < b.length; i++) values.push([(b.columns[0]!.values as string[])[i]!]);
      return [{ name: 'databases', columns: ['name'], values }];
    }
    case 'createDatabase': {
      const options: sql.DatabaseOption[] =
        s.durationNs === undefined || s.durationNs === 0n
          ? []
          : [{ name: 'TTL', value: { kind: 'string', value: `${s.durationNs}ns` } }];
      // InfluxDB's CREATE DATABASE succeeds when the database exists.
      await host.run({ kind: 'createDatabase', pos: POS, name: s.name, ifNotExists: true, options }, s.name);
      return [];
    }
    case 'dropDatabase':
      await host.run({ kind: 'dropDatabase', pos: POS, name: s.name, ifExists: true }, s.name);
      return [];
    case 'dropMeasurement': {
      const db = requireDatabase(host, undefined, 'all');
      await host.run({ kind: 'dropTable', pos: POS, name: [db, s.name], ifExists: false }, db);
      return [];
    }
    case 'showMeasurements':
      return await showMeasurements(host, s);
    case 'showTagKeys':
      return await showTagKeys(host, s);
    case 'showTagValues':
      return await showTagValues(host, s);
    case 'showFieldKeys':
      return showFieldKeys(host, s);
    case 'showSeries':
      return await showSeries(host, s);
    case 'showRetentionPolicies':
      return showRetentionPolicies(host, s.database);
    case 'showUsers':
      return [{ columns: ['user', 'admin'], values: host.users().map((u) => [u.name, u.admin]) }];
    case 'unsupported':
      throw statementError(`${s.what} is not supported by Sundial`);
  }
}

/** The pieces of every series of a SELECT, in order, SLIMIT and SOFFSET applied. */
async function* selectPieces(
  s: Extract<Statement, { kind: 'select' }>,
  host: InfluxQLHost,
  pieceRows: number,
): AsyncGenerator<SeriesPiece> {
  const plan = planSelect(s, host);
  let seriesIndex = 0;
  for (const m of plan.measurements) {
    const result = await host.run({ ...m.query }, m.database);
    if (result.kind !== 'rows') throw new Error('BUG: an InfluxQL SELECT ran as a statement without rows');
    let inSeries = false;
    for await (const p of assembleSeries(m, result.batches, pieceRows)) {
      if (!inSeries) seriesIndex++;
      inSeries = p.continues;
      const n = seriesIndex - 1 - plan.soffset;
      if (n < 0 || (plan.slimit !== undefined && plan.slimit > 0 && n >= plan.slimit)) continue;
      yield p;
    }
  }
}

async function* runSelect(
  id: number,
  s: Extract<Statement, { kind: 'select' }>,
  host: InfluxQLHost,
  options: ExecuteOptions,
): AsyncGenerator<StatementResult> {
  const chunked = options.chunkSize !== undefined;
  const pieces = selectPieces(s, host, options.chunkSize ?? PIECE_ROWS);
  const toSeries = (p: SeriesPiece, rows: Cell[][], partial: boolean): SeriesResult => ({
    name: p.name,
    ...(p.tags === undefined ? {} : { tags: p.tags }),
    columns: p.columns,
    values: rows,
    timeColumn: true,
    ...(partial ? { partial: true } : {}),
  });
  if (!chunked) {
    const series: SeriesResult[] = [];
    let open: SeriesResult | undefined;
    for await (const p of pieces) {
      if (open === undefined) {
        open = toSeries(p, [...p.rows], false);
      } else for (const r of p.rows) open.values.push(r);
      if (!p.continues) {
        if (open.values.length > 0) series.push(open);
        open = undefined;
      }
    }
    yield { statementId: id, series };
    return;
  }
  // One piece held back, to know whether more follows (InfluxDB's `partial` flags).
  let held: SeriesPiece | undefined;
  let any = false;
  for await (const p of pieces) {
    if (held !== undefined) {
      if (p.rows.length === 0 && !p.continues && held.continues) {
        held = { ...held, continues: false };
        continue;
      }
      if (held.rows.length > 0) {
        any = true;
        yield { statementId: id, series: [toSeries(held, held.rows, held.continues)], partial: true };
      }
    }
    held = p;
  }
  if (held !== undefined && held.rows.length > 0)
    yield { statementId: id, series: [toSeries(held, held.rows, held.continues)] };
  else if (!any || held !== undefined) yield { statementId: id, series: [] };
}
