// Splits the predicates pushed into a table scan by what can answer them: bounds on `time`
// become the scan's inclusive time range (storage prunes partitions, segments and blocks by
// it); predicates on tags alone become a series filter, decided once per series from its tag
// values; everything else is evaluated on the scanned rows. Time bounds are exact, so a bounded
// conjunct is not evaluated again.

import type { TagTest, TagValues } from '../../core/scan.js';
import { constantVector, getValue, isValid, type RecordBatch, type Scalar } from '../types/index.js';
import type { TableInfo } from '../catalog.js';
import { columnsOf, anyExpr, splitConjunction, type LExpr } from '../plan/expr.js';
import { PlanSchema, type PlanField } from '../plan/plan-schema.js';
import { compileExpr } from './evaluate.js';
import type { ExecContext } from './exec-plan.js';

export interface ScanPredicates {
  minTime: bigint | undefined;
  maxTime: bigint | undefined;
  /** No row can match (contradictory bounds, a NULL comparison, a constant FALSE). */
  empty: boolean;
  /** Conjuncts on tags only. */
  tagPredicates: LExpr[];
  /** Conjuncts evaluated on rows. */
  residual: LExpr[];
  /**
   * Bounds on DOUBLE / BIGINT / BIGINT UNSIGNED fields implied by residual conjuncts (`f > 3`,
   * `f BETWEEN 1 AND 2`, `f = 5`): storage skips blocks whose statistics rule them out. Inclusive
   * and possibly wider than the predicate; the predicate is still evaluated on the rows.
   */
  valueBounds: FieldBound[];
}

export interface FieldBound {
  field: string;
  min?: number | bigint;
  max?: number | bigint;
}

function isConstant(e: LExpr): boolean {
  return (
    columnsOf(e).length === 0 &&
    !anyExpr(
      e,
      (x) =>
        x.kind === 'outerColumn' ||
        x.kind === 'scalarSubquery' ||
        x.kind === 'exists' ||
        x.kind === 'inSubquery' ||
        (x.kind === 'scalarFn' && x.fn.volatile === true),
    )
  );
}

const ONE_ROW: RecordBatch = { schema: { fields: [] }, columns: [], length: 1 };

/** The value of a constant expression (evaluated once), or undefined when it is not constant. */
export function constantValue(e: LExpr, ctx: ExecContext): { value: Scalar } | undefined {
  if (e.kind === 'literal') return { value: e.value };
  if (!isConstant(e)) return undefined;
  const v = compileExpr(e, PlanSchema.empty(), ctx).evaluate(ONE_ROW);
  return { value: isValid(v, 0) ? getValue(v, 0) : null };
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '=': '=' };

export function analyzeScanPredicates(filters: readonly LExpr[], table: TableInfo, ctx: ExecContext): ScanPredicates {
  const out: ScanPredicates = {
    minTime: undefined,
    maxTime: undefined,
    empty: false,
    tagPredicates: [],
    residual: [],
    valueBounds: [],
  };
  const kinds = new Map(table.columns.map((c) => [c.name, c.kind]));
  const bound = (op: string, v: Scalar): boolean => {
    if (v === null) {
      out.empty = true;
      return true;
    }
    if (typeof v !== 'bigint') return false;
    if (op === '>' || op === '>=' || op === '=') {
      const lo = op === '>' ? v + 1n : v;
      if (out.minTime === undefined || lo > out.minTime) out.minTime = lo;
    }
    if (op === '<' || op === '<=' || op === '=') {
      const hi = op === '<' ? v - 1n : v;
      if (out.maxTime === undefined || hi < out.maxTime) out.maxTime = hi;
    }
    return op in FLIP;
  };
  const isTime = (e: LExpr): boolean => {
    // A cast that only adds a time zone keeps the values: look through it.
    const x =
      e.kind === 'cast' &&
      e.type.id === 'Timestamp' &&
      e.expr.type.id === 'Timestamp' &&
      e.expr.type.unit === e.type.unit
        ? e.expr
        : e;
    return x.kind === 'column' && kinds.get(x.name) === 'time' && x.type.id === 'Timestamp';
  };
  for (const f of filters) {
    for (const c of splitConjunction(f)) {
      if (isConstant(c)) {
        const v = constantValue(c, ctx)!.value;
        if (v !== true) out.empty = true;
        continue;
      }
      if (c.kind === 'binary' && c.op in FLIP) {
        if (isTime(c.left) && c.right.type.id === 'Timestamp') {
          const k = constantValue(c.right, ctx);
          if (k !== undefined && bound(c.op, k.value)) continue;
        } else if (isTime(c.right) && c.left.type.id === 'Timestamp') {
          const k = constantValue(c.left, ctx);
          if (k !== undefined && bound(FLIP[c.op]!, k.value)) continue;
        }
      }
      if (c.kind === 'between' && !c.negated && isTime(c.expr)) {
        const lo = constantValue(c.low, ctx);
        const hi = constantValue(c.high, ctx);
        if (lo !== undefined && hi !== undefined && bound('>=', lo.value) && bound('<=', hi.value)) continue;
      }
      const cols = columnsOf(c);
      const onlyTags =
        cols.length > 0 &&
        cols.every((x) => kinds.get(x.name) === 'tag') &&
        !anyExpr(
          c,
          (x) =>
            x.kind === 'scalarSubquery' || x.kind === 'exists' || x.kind === 'inSubquery' || x.kind === 'outerColumn',
        );
      if (onlyTags) out.tagPredicates.push(c);
      else out.residual.push(c);
    }
  }
  if (out.minTime !== undefined && out.maxTime !== undefined && out.minTime > out.maxTime) out.empty = true;
  out.valueBounds = fieldBounds(out.residual, table, ctx);
  return out;
}

const BOUNDED_TYPES = new Set(['Float64', 'Int64', 'UInt64']);

/** Inclusive bounds on fields from conjuncts `field op constant` (either side) and BETWEEN. */
function fieldBounds(conjuncts: readonly LExpr[], table: TableInfo, ctx: ExecContext): FieldBound[] {
  const fields = new Map(
    table.columns.filter((c) => c.kind === 'field' && BOUNDED_TYPES.has(c.type.id)).map((c) => [c.name, c.type.id]),
  );
  const bounds = new Map<string, FieldBound>();
  const fieldOf = (e: LExpr): string | undefined =>
    e.kind === 'column' && fields.get(e.name) === e.type.id ? e.name : undefined;
  const add = (field: string, op: string, k: LExpr): void => {
    if (k.type.id !== fields.get(field)) return;
    const c = constantValue(k, ctx);
    const v = c?.value;
    if (typeof v !== 'number' && typeof v !== 'bigint') return;
    if (typeof v === 'number' && Number.isNaN(v)) return;
    const b = bounds.get(field) ?? { field };
    if (op === '>' || op === '>=' || op === '=') {
      const lo = op === '>' && typeof v === 'bigint' ? v + 1n : v;
      if (b.min === undefined || lo > b.min) b.min = lo;
    }
    if (op === '<' || op === '<=' || op === '=') {
      const hi = op === '<' && typeof v === 'bigint' ? v - 1n : v;
      if (b.max === undefined || hi < b.max) b.max = hi;
    }
    bounds.set(field, b);
  };
  for (const c of conjuncts) {
    if (c.kind === 'binary' && c.op in FLIP) {
      const l = fieldOf(c.left);
      const r = fieldOf(c.right);
      if (l !== undefined && isConstant(c.right)) add(l, c.op, c.right);
      else if (r !== undefined && isConstant(c.left)) add(r, FLIP[c.op]!, c.left);
    } else if (c.kind === 'between' && !c.negated) {
      const f = fieldOf(c.expr);
      if (f !== undefined && isConstant(c.low) && isConstant(c.high)) {
        add(f, '>=', c.low);
        add(f, '<=', c.high);
      }
    }
  }
  return [...bounds.values()];
}

/**
 * `tag = 'v'`, `tag != 'v'`, `tag IN ('v', ...)` as a direct test of the tag map (most series
 * filters are these); undefined for anything else. A missing tag is NULL: no test passes.
 */
function simpleTagTest(p: LExpr): ((tags: ReadonlyMap<string, string>) => boolean) | undefined {
  if (p.kind === 'binary' && (p.op === '=' || p.op === '!=')) {
    const [c, l] = p.left.kind === 'column' ? [p.left, p.right] : [p.right, p.left];
    if (c.kind !== 'column' || l.kind !== 'literal' || typeof l.value !== 'string') return undefined;
    const name = c.name;
    const value = l.value;
    if (p.op === '=') return (tags) => tags.get(name) === value;
    return (tags) => {
      const v = tags.get(name);
      return v !== undefined && v !== value;
    };
  }
  if (
    p.kind === 'inList' &&
    !p.negated &&
    p.expr.kind === 'column' &&
    p.list.every((x) => x.kind === 'literal' && typeof x.value === 'string')
  ) {
    const name = p.expr.name;
    const set = new Set(p.list.map((x) => (x as { value: string }).value));
    return (tags) => {
      const v = tags.get(name);
      return v !== undefined && set.has(v);
    };
  }
  return undefined;
}

/** The values `tag = 'v'` or `tag IN ('v', ...)` allows (the tests simpleTagTest makes fast); undefined for anything else. */
function tagValuesOf(p: LExpr): TagValues | undefined {
  if (p.kind === 'binary' && p.op === '=') {
    const [c, l] = p.left.kind === 'column' ? [p.left, p.right] : [p.right, p.left];
    if (c.kind !== 'column' || l.kind !== 'literal' || typeof l.value !== 'string') return undefined;
    return { tag: c.name, values: [l.value] };
  }
  if (
    p.kind === 'inList' &&
    !p.negated &&
    p.expr.kind === 'column' &&
    p.list.every((x) => x.kind === 'literal' && typeof x.value === 'string')
  ) {
    return { tag: p.expr.name, values: [...new Set(p.list.map((x) => (x as { value: string }).value))] };
  }
  return undefined;
}

/**
 * The tag values the series filter of these predicates requires (ScanRequest.seriesTags): one
 * entry per conjunct that is `tag = 'v'` or `tag IN (...)`; undefined when there is none.
 */
export function seriesTagValues(predicates: readonly LExpr[]): TagValues[] | undefined {
  const out: TagValues[] = [];
  for (const p of predicates) {
    const tv = tagValuesOf(p);
    if (tv !== undefined) out.push(tv);
  }
  return out.length === 0 ? undefined : out;
}

/**
 * Tests of one tag's value (ScanRequest.seriesTagTests) for the conjuncts that are not `=` or
 * IN (seriesTagValues has those) and read one tag only: `!=`, NOT IN, LIKE, regex matches. Each
 * is the conjunct evaluated with that tag alone, kept only when it fails for a series without the
 * tag (NULL), so that the store may look among the tag's values for the series that pass.
 */
export function seriesTagTests(
  predicates: readonly LExpr[],
  table: TableInfo,
  qualifier: string,
  ctx: ExecContext,
): TagTest[] | undefined {
  const out: TagTest[] = [];
  for (const p of predicates) {
    if (tagValuesOf(p) !== undefined) continue;
    const cols = new Set(columnsOf(p).map((c) => c.name));
    if (cols.size !== 1) continue;
    const tag = [...cols][0]!;
    if (!table.columns.some((c) => c.kind === 'tag' && c.name === tag)) continue;
    const f = seriesFilter([p], table, qualifier, ctx);
    if (f === undefined || f(new Map())) continue;
    out.push({ tag, test: (value) => f(new Map([[tag, value]])) });
  }
  return out.length === 0 ? undefined : out;
}

/**
 * A series filter from tag predicates: the predicates evaluated on a one-row batch of the
 * series' tag values (a tag the series lacks is NULL). Undefined when there are none.
 */
export function seriesFilter(
  predicates: readonly LExpr[],
  table: TableInfo,
  qualifier: string,
  ctx: ExecContext,
): ((tags: ReadonlyMap<string, string>) => boolean) | undefined {
  if (predicates.length === 0) return undefined;
  const fast = predicates.map(simpleTagTest);
  if (fast.every((f) => f !== undefined)) {
    const tests = fast as ((tags: ReadonlyMap<string, string>) => boolean)[];
    return (tags) => tests.every((t) => t(tags));
  }
  const tagColumns = table.columns.filter((c) => c.kind === 'tag');
  const fields: PlanField[] = tagColumns.map((c) => ({ qualifier, name: c.name, type: c.type, nullable: true }));
  const schema = new PlanSchema(fields);
  const compiled = predicates.map((p) => compileExpr(p, schema, ctx));
  const batchSchema = schema.toSchema();
  return (tags) => {
    const batch: RecordBatch = {
      schema: batchSchema,
      length: 1,
      columns: tagColumns.map((c) => constantVector(c.type, tags.get(c.name) ?? null, 1)),
    };
    for (const p of compiled) {
      const v = p.evaluate(batch);
      if (!isValid(v, 0) || getValue(v, 0) !== true) return false;
    }
    return true;
  };
}
