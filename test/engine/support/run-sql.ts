// Runs SQL on the engine over an in-memory catalog and renders results as text for exact
// comparisons: one line per row, cells separated by " | ", NULL as NULL, timestamps and
// doubles as CnosDB shows them in .slt results.

import {
  getValue,
  isValid,
  vectorFrom,
  type IntervalValue,
  type RecordBatch,
  type Scalar,
  type Vector,
} from '../../../host/engine/types/batch.js';
import { SqlEngine } from '../../../host/engine/engine.js';
import type { PlanCache } from '../../../host/engine/plan-cache.js';
import { formatFloat } from '../../../host/engine/types/cast.js';
import type { QuerySession } from '../../../host/engine/query.js';
import { formatTimestamp } from '../../../host/engine/types/time.js';
import { typeName, type DataType } from '../../../host/engine/types/data-types.js';
import { intervalText, timeOfDayText } from '../../../host/engine/types/display-text.js';
import { formatArrowF32 } from '../../../host/engine/types/float-text.js';
import { MemoryCatalog, type MemoryCatalogOptions } from './memory-catalog.js';

/** 2024-01-01T00:00:00Z in nanoseconds: the fixed now() of engine tests. */
export const TEST_NOW_NS = 1_704_067_200_000_000_000n;

export function cell(v: Vector, i: number): string {
  if (!isValid(v, i)) return 'NULL';
  const x = getValue(v, i);
  switch (v.type.id) {
    case 'Timestamp':
      return formatTimestamp(x as bigint, v.type.unit) + (v.type.tz !== undefined ? 'Z' : '');
    case 'Float64':
      return formatFloat(x as number);
    case 'Float32':
      return formatArrowF32(x as number);
    case 'Struct':
      return `{${v.type.fields.map((f, k) => `${f.name}: ${cell((v.values as Vector[])[k]!, i)}`).join(', ')}}`;
    case 'Interval':
      return intervalText(x as IntervalValue);
    case 'Time64':
      return timeOfDayText(x as bigint);
    case 'List':
      return `[${(x as unknown[]).map((e) => (e === null ? 'NULL' : listItem(e, (v.type as { item: DataType }).item))).join(', ')}]`;
    default:
      return String(x);
  }
}

/** An element of a list as `cell` would show it. */
function listItem(e: unknown, type: DataType): string {
  const v = vectorFrom(type, [e as Scalar]);
  return cell(v, 0);
}

export function renderBatches(batches: readonly RecordBatch[]): string[] {
  const out: string[] = [];
  for (const b of batches) for (let i = 0; i < b.length; i++) out.push(b.columns.map((c) => cell(c, i)).join(' | '));
  return out;
}

export interface TestDb {
  catalog: MemoryCatalog;
  engine: SqlEngine;
  session(overrides?: Partial<QuerySession>): QuerySession;
  /** Runs one statement; returns column names, their types and rendered rows ([] without rows). */
  run(sql: string, overrides?: Partial<QuerySession>): Promise<{ columns: string[]; types: string[]; rows: string[] }>;
  /** The error a statement fails with (its message), failing the test when it succeeds. */
  error(sql: string): Promise<string>;
  /** Runs several statements separated by `;` at line ends (setup scripts). */
  exec(script: string): Promise<void>;
}

export function testDb(options: MemoryCatalogOptions = {}, planCache?: PlanCache): TestDb {
  const catalog = new MemoryCatalog(options);
  const engine = new SqlEngine({ catalogFor: () => catalog, ...(planCache === undefined ? {} : { planCache }) });
  const session = (o: Partial<QuerySession> = {}): QuerySession => ({
    tenant: 'cnosdb',
    database: 'public',
    user: { name: 'root', admin: true },
    signal: new AbortController().signal,
    memoryLimitBytes: 256 * 1024 * 1024,
    nowNs: TEST_NOW_NS,
    ...o,
  });
  const run = async (
    sql: string,
    o?: Partial<QuerySession>,
  ): Promise<{ columns: string[]; types: string[]; rows: string[] }> => {
    const r = await engine.run(sql, session(o));
    if (r.kind === 'done') return { columns: [], types: [], rows: [] };
    const batches: RecordBatch[] = [];
    for await (const b of r.batches) batches.push(b);
    return {
      columns: r.schema.fields.map((f) => f.name),
      types: r.schema.fields.map((f) => typeName(f.type)),
      rows: renderBatches(batches),
    };
  };
  return {
    catalog,
    engine,
    session,
    run,
    async error(sql: string): Promise<string> {
      try {
        await run(sql);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error(`expected an error from: ${sql}`);
    },
    async exec(script: string): Promise<void> {
      for (const stmt of script.split(/;\s*\n/)) if (stmt.trim() !== '') await run(stmt);
    },
  };
}
