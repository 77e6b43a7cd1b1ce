// SHOW MEASUREMENTS / TAG KEYS / TAG VALUES / FIELD KEYS / SERIES / RETENTION POLICIES, read
// from the catalog's schemas and series keys (no data is scanned), in InfluxDB 1.x's series
// shapes. Their WHERE may test tags (=, !=, =~, !~, AND, OR); a time comparison there is ignored,
// as InfluxDB 1.x's index ignores it.

import type { DatabaseInfo, TableInfo } from '../engine/catalog.js';
import type { Expr, Measurement, ShowMeta, TagKeyMatch } from './ast.js';
import { statementError } from './errors.js';
import {
  regexMatches,
  requireDatabase,
  resolveSources,
  type SchemaCatalog,
  type SourceContext,
} from './select-sources.js';

/** A series of a SHOW answer (no time column). */
export interface ShowSeries {
  readonly name?: string;
  readonly columns: readonly string[];
  readonly values: Array<Array<string | number | boolean | null>>;
}

export interface ShowContext extends SourceContext {
  readonly catalog: SchemaCatalog & {
    series(database: string, table: string): Promise<Iterable<ReadonlyMap<string, string>>>;
  };
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function page<T>(items: T[], limit: number | undefined, offset: number | undefined): T[] {
  const start = offset ?? 0;
  return limit === undefined || limit === 0 ? items.slice(start) : items.slice(start, start + limit);
}

/** Whether a series with `tags` passes a SHOW's WHERE. */
function tagCondition(e: Expr, tags: ReadonlyMap<string, string>): boolean {
  switch (e.kind) {
    case 'paren':
      return tagCondition(e.expr, tags);
    case 'binary': {
      if (e.op === 'AND') return tagCondition(e.left, tags) && tagCondition(e.right, tags);
      if (e.op === 'OR') return tagCondition(e.left, tags) || tagCondition(e.right, tags);
      const l = e.left.kind === 'paren' ? e.left.expr : e.left;
      const r = e.right.kind === 'paren' ? e.right.expr : e.right;
      if (l.kind === 'varRef' && l.name.toLowerCase() === 'time') return true;
      if (l.kind !== 'varRef') break;
      const value = tags.get(l.name) ?? '';
      if ((e.op === '=' || e.op === '!=') && r.kind === 'string') return (value === r.value) === (e.op === '=');
      if ((e.op === '=~' || e.op === '!~') && r.kind === 'regex')
        return regexMatches(r.pattern, value) === (e.op === '=~');
      break;
    }
    default:
      break;
  }
  throw statementError("a SHOW statement's WHERE may only compare tags with strings (=, !=) or regexes (=~, !~)");
}

async function matchingSeries(
  ctx: ShowContext,
  t: TableInfo,
  cond: Expr | undefined,
): Promise<ReadonlyMap<string, string>[]> {
  const out: ReadonlyMap<string, string>[] = [];
  for (const s of await ctx.catalog.series(t.database, t.name))
    if (cond === undefined || tagCondition(cond, s)) out.push(s);
  return out;
}

function tables(ctx: ShowContext, s: ShowMeta): TableInfo[] {
  return resolveSources(ctx, s.sources as Measurement[], s.database);
}

export async function showMeasurements(
  ctx: ShowContext,
  s: ShowMeta & { match?: { op: '=' | '!=' | '=~' | '!~'; value: string } },
): Promise<ShowSeries[]> {
  const db = requireDatabase(ctx, s.database);
  const m = s.match;
  const names: string[] = [];
  for (const t of ctx.catalog.tables(db)) {
    if (m !== undefined) {
      const ok = m.op === '=' || m.op === '!=' ? t.name === m.value : regexMatches(m.value, t.name);
      if (ok !== (m.op === '=' || m.op === '=~')) continue;
    }
    if (s.condition === undefined || (await matchingSeries(ctx, t, s.condition)).length > 0) names.push(t.name);
  }
  names.sort(byText);
  const values = page(names, s.limit, s.offset).map((n) => [n]);
  return values.length === 0 ? [] : [{ name: 'measurements', columns: ['name'], values }];
}

export async function showTagKeys(ctx: ShowContext, s: ShowMeta): Promise<ShowSeries[]> {
  const out: ShowSeries[] = [];
  for (const t of tables(ctx, s)) {
    let keys = t.columns.filter((c) => c.kind === 'tag').map((c) => c.name);
    if (s.condition !== undefined) {
      const present = new Set<string>();
      for (const series of await matchingSeries(ctx, t, s.condition)) for (const k of series.keys()) present.add(k);
      keys = keys.filter((k) => present.has(k));
    }
    const values = page(keys.sort(byText), s.limit, s.offset).map((k) => [k]);
    if (values.length > 0) out.push({ name: t.name, columns: ['tagKey'], values });
  }
  return out;
}

function keyMatches(m: TagKeyMatch, key: string): boolean {
  if ('keys' in m) return m.keys.includes(key) === (m.op === '=');
  return regexMatches(m.regex, key) === (m.op === '=~');
}

export async function showTagValues(ctx: ShowContext, s: ShowMeta & { keys: TagKeyMatch }): Promise<ShowSeries[]> {
  const out: ShowSeries[] = [];
  for (const t of tables(ctx, s)) {
    const keys = t.columns.filter((c) => c.kind === 'tag' && keyMatches(s.keys, c.name)).map((c) => c.name);
    if (keys.length === 0) continue;
    const pairs = new Map<string, [string, string]>();
    for (const series of await matchingSeries(ctx, t, s.condition)) {
      for (const k of keys) {
        const v = series.get(k);
        if (v !== undefined && v !== '') pairs.set(`${k}\0${v}`, [k, v]);
      }
    }
    const sorted = [...pairs.values()].sort((a, b) => byText(a[0], b[0]) || byText(a[1], b[1]));
    const values = page(sorted, s.limit, s.offset);
    if (values.length > 0) out.push({ name: t.name, columns: ['key', 'value'], values });
  }
  return out;
}

/** InfluxDB's name of a field type. */
function fieldType(id: string): string {
  switch (id) {
    case 'Float64':
      return 'float';
    case 'Int64':
      return 'integer';
    case 'UInt64':
      return 'unsigned';
    case 'Boolean':
      return 'boolean';
    default:
      return 'string';
  }
}

export function showFieldKeys(ctx: ShowContext, s: ShowMeta): ShowSeries[] {
  const out: ShowSeries[] = [];
  for (const t of tables(ctx, s)) {
    const fields = t.columns.filter((c) => c.kind === 'field').sort((a, b) => byText(a.name, b.name));
    const values = page(fields, s.limit, s.offset).map((c) => [c.name, fieldType(c.type.id)]);
    if (values.length > 0) out.push({ name: t.name, columns: ['fieldKey', 'fieldType'], values });
  }
  return out;
}

/** A line-protocol series key part: commas, spaces and `=` escaped. */
function escapeKey(s: string, equals: boolean): string {
  return s.replace(equals ? /[,= ]/g : /[, ]/g, (c) => `\\${c}`);
}

export async function showSeries(ctx: ShowContext, s: ShowMeta): Promise<ShowSeries[]> {
  const keys: string[] = [];
  for (const t of tables(ctx, s)) {
    for (const series of await matchingSeries(ctx, t, s.condition)) {
      const tags = [...series].filter(([, v]) => v !== '').sort((a, b) => byText(a[0], b[0]));
      keys.push(
        [escapeKey(t.name, false), ...tags.map(([k, v]) => `${escapeKey(k, true)}=${escapeKey(v, true)}`)].join(','),
      );
    }
  }
  const values = page(keys.sort(byText), s.limit, s.offset).map((k) => [k]);
  return values.length === 0 ? [] : [{ columns: ['key'], values }];
}

/** Go's time.Duration text: `168h0m0s`, `0s`, `1h30m0s`, `1.5s`. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return ms < 1000 ? `${ms}ms` : `${s}s`;
}

/** Storage cuts partitions of at most a week (host/storage/segment/partition.ts), whatever VNODE_DURATION says. */
const PARTITION_MS = 7 * 86_400_000;

export function showRetentionPolicies(ctx: SourceContext, database: string | undefined): ShowSeries[] {
  const db = requireDatabase(ctx, database);
  const o = (ctx.catalog.database(db) as DatabaseInfo).options;
  return [
    {
      columns: ['name', 'duration', 'shardGroupDuration', 'replicaN', 'default'],
      values: [
        ['autogen', goDuration(o.ttlMs ?? 0), goDuration(Math.min(o.vnodeDurationMs, PARTITION_MS)), o.replica, true],
      ],
    },
  ];
}
