// Compiles typed logical expressions into evaluators over record batches: column names are
// bound to positions once, literals become constant vectors, operators call the kernels in
// compute.ts. CASE evaluates each branch only on the rows that reach it, so `CASE WHEN x = 0
// THEN 0 ELSE 1 / x END` never divides by zero. Subqueries are run before a batch is evaluated
// (`prepare`): uncorrelated ones once, correlated ones per distinct outer row.

import {
  BOOLEAN,
  castVector,
  checkIntegerRange,
  compare,
  constantVector,
  type DataType,
  getValue,
  isValid,
  nonNullMask,
  type RecordBatch,
  type Scalar,
  takeVector,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { bug } from '../../core/errors.js';
import { executionError } from '../errors.js';
import { exprName } from '../plan/expr-display.js';
import type { LExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { outerReferencesOf, type ColumnName } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import { binaryKernel, logical, negate } from './compute.js';
import { outerKey, type ExecContext } from './exec-plan.js';
import { batchBytes, Reservation } from '../memory/index.js';
import { compileLike, type LikeMatcher } from './like-matcher.js';

export interface Evaluator {
  readonly type: DataType;
  evaluate(batch: RecordBatch): Vector;
}

/** Compiled expressions over one input schema, sharing subquery preparation. */
export class CompiledExprs {
  readonly exprs: Evaluator[];
  readonly #subqueries: SubqueryNode[];

  constructor(exprs: Evaluator[], subqueries: SubqueryNode[]) {
    this.exprs = exprs;
    this.#subqueries = subqueries;
  }

  get needsPrepare(): boolean {
    return this.#subqueries.length > 0;
  }

  /** Runs the subqueries this batch needs; call before `evaluate` on it. */
  async prepare(batch: RecordBatch): Promise<void> {
    for (const s of this.#subqueries) await s.prepare(batch);
  }
}

/** Compiles `exprs` over `schema`. */
export function compileExprs(exprs: readonly LExpr[], schema: PlanSchema, ctx: ExecContext): CompiledExprs {
  const c = new Compiler(schema, ctx);
  const out = exprs.map((e) => c.compile(e));
  return new CompiledExprs(out, c.subqueries);
}

/** Compiles one expression; for expressions without subqueries. */
export function compileExpr(
  e: LExpr,
  schema: PlanSchema,
  ctx: ExecContext,
): Evaluator & { prepare(batch: RecordBatch): Promise<void>; needsPrepare: boolean } {
  const all = compileExprs([e], schema, ctx);
  const ev = all.exprs[0]!;
  return {
    type: ev.type,
    evaluate: (b) => ev.evaluate(b),
    prepare: (b) => all.prepare(b),
    needsPrepare: all.needsPrepare,
  };
}

/** The rows of a batch at `indices`. */
export function takeBatch(b: RecordBatch, indices: ArrayLike<number>): RecordBatch {
  return { schema: b.schema, length: indices.length, columns: b.columns.map((c) => takeVector(c, indices)) };
}

/** Places `part` (rows for `indices`) into a full-length vector of `n` rows. */
function scatter(type: DataType, n: number, parts: readonly { indices: ArrayLike<number>; values: Vector }[]): Vector {
  const values = new Array<Scalar>(n).fill(null);
  const validity = new Uint8Array(n);
  for (const { indices, values: v } of parts) {
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      if (isValid(v, k)) {
        values[i] = getValue(v, k);
        validity[i] = 1;
      }
    }
  }
  return vectorFrom(type, values, validity);
}

/** A subquery inside an expression: its results for the current batch. */
class SubqueryNode {
  readonly kind: 'scalar' | 'exists' | 'in';
  readonly plan: LogicalPlan;
  readonly outerRefs: ColumnName[];
  readonly #ctx: ExecContext;
  readonly #schema: PlanSchema;
  #uncorrelated: RecordBatch[] | undefined;
  #forBatch: RecordBatch | undefined;
  /** Per row of the current batch: its subquery result rows. */
  #rows: RecordBatch[][] = [];
  /** The results held: once for an uncorrelated subquery, the current batch's for a correlated one. */
  #held: Reservation | undefined;

  constructor(kind: 'scalar' | 'exists' | 'in', plan: LogicalPlan, schema: PlanSchema, ctx: ExecContext) {
    this.kind = kind;
    this.plan = plan;
    this.#schema = schema;
    this.#ctx = ctx;
    this.outerRefs = outerReferencesOf(plan);
  }

  async prepare(batch: RecordBatch): Promise<void> {
    const held = (this.#held ??= new Reservation(this.#ctx.memory, 'subquery results'));
    if (this.outerRefs.length === 0) {
      if (this.#uncorrelated === undefined) {
        this.#uncorrelated = await this.#ctx.runSubquery(this.plan, this.#ctx.outer ?? new Map());
        for (const b of this.#uncorrelated) held.grow(batchBytes(b));
      }
      return;
    }
    if (this.#forBatch === batch) return;
    held.release();
    const cols = this.outerRefs.map((r) => {
      const i = this.#schema.find(r.qualifier, r.name);
      return i >= 0 ? batch.columns[i]! : undefined;
    });
    const cache = new Map<string, RecordBatch[]>();
    this.#rows = [];
    for (let row = 0; row < batch.length; row++) {
      const values = new Map<string, Scalar>(this.#ctx.outer ?? []);
      this.outerRefs.forEach((r, k) => {
        const col = cols[k];
        const key = outerKey(r.qualifier, r.name);
        if (col !== undefined) values.set(key, getValue(col, row));
      });
      const cacheKey = JSON.stringify([...values.entries()], (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
      let result = cache.get(cacheKey);
      if (result === undefined) {
        result = await this.#ctx.runSubquery(this.plan, values);
        cache.set(cacheKey, result);
        for (const b of result) held.grow(batchBytes(b));
        // A subquery per row: each is short, together they are not.
        this.#ctx.checkAbort();
        await this.#ctx.maybeYield();
      }
      this.#rows.push(result);
    }
    this.#forBatch = batch;
  }

  resultsFor(row: number): RecordBatch[] {
    if (this.#uncorrelated !== undefined) return this.#uncorrelated;
    const r = this.#rows[row];
    if (r === undefined) throw bug('subquery evaluated before prepare()');
    return r;
  }
}

function rowsOf(batches: readonly RecordBatch[]): { count: number; first: () => Vector | undefined } {
  let count = 0;
  for (const b of batches) count += b.length;
  return { count, first: () => batches.find((b) => b.length > 0)?.columns[0] };
}

function valueKey(v: Scalar): unknown {
  if (v === null || typeof v !== 'object') return v;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
}

class Compiler {
  readonly schema: PlanSchema;
  readonly ctx: ExecContext;
  readonly subqueries: SubqueryNode[] = [];

  constructor(schema: PlanSchema, ctx: ExecContext) {
    this.schema = schema;
    this.ctx = ctx;
  }

  compile(e: LExpr): Evaluator {
    const type = e.type;
    switch (e.kind) {
      case 'column': {
        const i = this.schema.resolve(e.qualifier, e.name);
        return { type, evaluate: (b) => b.columns[i]! };
      }
      case 'outerColumn': {
        const key = outerKey(e.qualifier, e.name);
        return {
          type,
          evaluate: (b) => {
            const outer = this.ctx.outer;
            if (outer === undefined || !outer.has(key)) throw bug(`outer reference ${exprName(e)} without a binding`);
            return constantVector(type, outer.get(key)!, b.length);
          },
        };
      }
      case 'literal': {
        let cached: Vector | undefined;
        return {
          type,
          evaluate: (b) => {
            if (cached === undefined || cached.length !== b.length) cached = constantVector(type, e.value, b.length);
            return cached;
          },
        };
      }
      case 'alias':
        return this.compile(e.expr);
      case 'cast': {
        const inner = this.compile(e.expr);
        const range = e.range;
        if (range !== undefined)
          return { type, evaluate: (b) => checkIntegerRange(castVector(inner.evaluate(b), type, e.try), range, e.try) };
        return { type, evaluate: (b) => castVector(inner.evaluate(b), type, e.try) };
      }
      case 'binary': {
        const l = this.compile(e.left);
        const r = this.compile(e.right);
        return { type, evaluate: (b) => binaryKernel(e.op, l.evaluate(b), r.evaluate(b), type, this.ctx.eval.memory) };
      }
      case 'not': {
        const inner = this.compile(e.expr);
        return {
          type,
          evaluate: (b) => {
            const v = inner.evaluate(b);
            const n = v.length;
            if (v.type.id === 'Null')
              return { type: BOOLEAN, length: n, values: new Uint8Array(n), validity: new Uint8Array(n) };
            const x = v.values as Uint8Array;
            const out = new Uint8Array(n);
            for (let i = 0; i < n; i++) out[i] = x[i]! ^ 1;
            return { type: BOOLEAN, length: n, values: out, validity: v.validity };
          },
        };
      }
      case 'negative': {
        const inner = this.compile(e.expr);
        return { type, evaluate: (b) => negate(inner.evaluate(b)) };
      }
      case 'isNull': {
        const inner = this.compile(e.expr);
        return {
          type,
          evaluate: (b) => {
            const v = inner.evaluate(b);
            const n = v.length;
            const out = new Uint8Array(n);
            for (let i = 0; i < n; i++) out[i] = isValid(v, i) === e.negated ? 1 : 0;
            return { type: BOOLEAN, length: n, values: out };
          },
        };
      }
      case 'isBool': {
        const inner = this.compile(e.expr);
        return {
          type,
          evaluate: (b) => {
            const v = inner.evaluate(b);
            const n = v.length;
            const out = new Uint8Array(n);
            const x = v.values as Uint8Array | null;
            for (let i = 0; i < n; i++) {
              const valid = isValid(v, i);
              const hit = e.test === 'UNKNOWN' ? !valid : valid && x![i] === (e.test === 'TRUE' ? 1 : 0);
              out[i] = hit !== e.negated ? 1 : 0;
            }
            return { type: BOOLEAN, length: n, values: out };
          },
        };
      }
      case 'between': {
        const x = this.compile(e.expr);
        const lo = this.compile(e.low);
        const hi = this.compile(e.high);
        return {
          type,
          evaluate: (b) => {
            const v = x.evaluate(b);
            const r = logical('AND', compare('>=', v, lo.evaluate(b)), compare('<=', v, hi.evaluate(b)));
            if (!e.negated) return r;
            const out = new Uint8Array(r.length);
            const rv = r.values as Uint8Array;
            for (let i = 0; i < r.length; i++) out[i] = rv[i]! ^ 1;
            return { ...r, values: out };
          },
        };
      }
      case 'inList':
        return this.inList(e);
      case 'like':
        return this.like(e);
      case 'case':
        return this.caseExpr(e);
      case 'scalarFn': {
        const args = e.args.map((a) => this.compile(a));
        return {
          type,
          evaluate: (b) =>
            e.fn.evaluate(
              args.map((a) => a.evaluate(b)),
              b.length,
              this.ctx.eval,
              type,
            ),
        };
      }
      case 'getField': {
        const inner = this.compile(e.expr);
        return {
          type,
          evaluate: (b) => {
            const v = inner.evaluate(b);
            if (v.type.id !== 'Struct') throw bug('getField on a non-struct');
            const k = v.type.fields.findIndex((f) => f.name === e.field);
            return (v.values as Vector[])[k]!;
          },
        };
      }
      case 'scalarSubquery':
        return this.subquery('scalar', e.plan, type, undefined, false);
      case 'exists':
        return this.subquery('exists', e.plan, type, undefined, e.negated);
      case 'inSubquery':
        return this.subquery('in', e.plan, type, this.compile(e.expr), e.negated);
      case 'aggregate':
      case 'windowFn':
        throw bug(`${e.kind} ${exprName(e)} left in an expression to evaluate`);
    }
  }

  inList(e: Extract<LExpr, { kind: 'inList' }>): Evaluator {
    const x = this.compile(e.expr);
    const allLiteral = e.list.every((i) => i.kind === 'literal');
    if (allLiteral) {
      const set = new Set<unknown>();
      let hasNull = false;
      for (const i of e.list) {
        const v = (i as { value: Scalar }).value;
        if (v === null) hasNull = true;
        else set.add(valueKey(v));
      }
      return {
        type: BOOLEAN,
        evaluate: (b) => {
          const v = x.evaluate(b);
          const n = v.length;
          const out = new Uint8Array(n);
          const validity = new Uint8Array(n);
          const plain =
            v.validity === undefined && v.type.id !== 'Null' && v.type.id !== 'Interval' && v.type.id !== 'Struct';
          const vals = v.values as ArrayLike<unknown>;
          for (let i = 0; i < n; i++) {
            if (!plain && !isValid(v, i)) continue;
            const hit = set.has(plain ? (v.type.id === 'Boolean' ? vals[i] === 1 : vals[i]) : valueKey(getValue(v, i)));
            if (hit) {
              validity[i] = 1;
              out[i] = e.negated ? 0 : 1;
            } else if (!hasNull) {
              validity[i] = 1;
              out[i] = e.negated ? 1 : 0;
            }
          }
          return { type: BOOLEAN, length: n, values: out, validity };
        },
      };
    }
    const items = e.list.map((i) => this.compile(i));
    return {
      type: BOOLEAN,
      evaluate: (b) => {
        const v = x.evaluate(b);
        let acc: Vector | undefined;
        for (const it of items) {
          const eq = compare('=', v, it.evaluate(b));
          acc = acc === undefined ? eq : logical('OR', acc, eq);
        }
        const r = acc!;
        if (!e.negated) return r;
        const out = new Uint8Array(r.length);
        const rv = r.values as Uint8Array;
        for (let i = 0; i < r.length; i++) out[i] = rv[i]! ^ 1;
        return { ...r, values: out };
      },
    };
  }

  like(e: Extract<LExpr, { kind: 'like' }>): Evaluator {
    const x = this.compile(e.expr);
    const p = this.compile(e.pattern);
    // Patterns by text; a column of patterns usually repeats a few, and a literal is one.
    const cache = new Map<string, LikeMatcher>();
    let lastPattern: string | undefined;
    let lastMatcher: LikeMatcher | undefined;
    const matcherFor = (pattern: string): LikeMatcher => {
      if (pattern === lastPattern) return lastMatcher!;
      let m = cache.get(pattern);
      if (m === undefined) {
        if (cache.size >= 256) cache.clear();
        cache.set(pattern, (m = compileLike(pattern, e.escape, e.caseInsensitive)));
      }
      lastPattern = pattern;
      lastMatcher = m;
      return m;
    };
    const hit = e.negated ? 0 : 1;
    return {
      type: BOOLEAN,
      evaluate: (b) => {
        const v = x.evaluate(b);
        const pv = p.evaluate(b);
        const n = v.length;
        const out = new Uint8Array(n);
        const validity = new Uint8Array(n);
        const values = v.values as string[];
        const patterns = pv.values as string[];
        for (let i = 0; i < n; i++) {
          if (!isValid(v, i) || !isValid(pv, i)) continue;
          validity[i] = 1;
          out[i] = matcherFor(patterns[i]!)(values[i]!) ? hit : hit ^ 1;
        }
        return { type: BOOLEAN, length: n, values: out, validity };
      },
    };
  }

  caseExpr(e: Extract<LExpr, { kind: 'case' }>): Evaluator {
    const operand = e.operand === undefined ? undefined : this.compile(e.operand);
    const whens = e.whens.map((w) => ({ when: this.compile(w.when), then: this.compile(w.then) }));
    const elseResult = e.elseResult === undefined ? undefined : this.compile(e.elseResult);
    const type = e.type;
    return {
      type,
      evaluate: (batch) => {
        const n = batch.length;
        let remaining: number[] = Array.from({ length: n }, (_, i) => i);
        const parts: { indices: ArrayLike<number>; values: Vector }[] = [];
        for (const w of whens) {
          if (remaining.length === 0) break;
          const sub = remaining.length === n ? batch : takeBatch(batch, remaining);
          let cond = w.when.evaluate(sub);
          if (operand !== undefined) cond = compare('=', operand.evaluate(sub), cond);
          const hit: number[] = [];
          const miss: number[] = [];
          const cv = cond.values as Uint8Array | null;
          for (let k = 0; k < remaining.length; k++)
            (isValid(cond, k) && cv![k] === 1 ? hit : miss).push(remaining[k]!);
          if (hit.length > 0)
            parts.push({ indices: hit, values: w.then.evaluate(hit.length === n ? batch : takeBatch(batch, hit)) });
          remaining = miss;
        }
        if (remaining.length > 0 && elseResult !== undefined) {
          parts.push({
            indices: remaining,
            values: elseResult.evaluate(remaining.length === n ? batch : takeBatch(batch, remaining)),
          });
        }
        return scatter(type, n, parts);
      },
    };
  }

  subquery(
    kind: 'scalar' | 'exists' | 'in',
    plan: LogicalPlan,
    type: DataType,
    probe: Evaluator | undefined,
    negated: boolean,
  ): Evaluator {
    const node = new SubqueryNode(kind, plan, this.schema, this.ctx);
    this.subqueries.push(node);
    let uncorrelatedSet: { set: Set<unknown>; hasNull: boolean } | undefined;
    const setOf = (batches: RecordBatch[]): { set: Set<unknown>; hasNull: boolean } => {
      const set = new Set<unknown>();
      let hasNull = false;
      for (const b of batches) {
        const c = b.columns[0]!;
        for (let i = 0; i < b.length; i++) {
          const v = getValue(c, i);
          if (v === null) hasNull = true;
          else set.add(valueKey(v));
        }
      }
      return { set, hasNull };
    };
    return {
      type,
      evaluate: (b) => {
        const n = b.length;
        if (kind === 'scalar') {
          const values = new Array<Scalar>(n);
          for (let i = 0; i < n; i++) {
            const r = rowsOf(node.resultsFor(i));
            if (r.count > 1) throw executionError('Scalar subquery returned more than one row');
            const first = r.first();
            values[i] = first === undefined ? null : getValue(first, 0);
          }
          return vectorFrom(type, values, nonNullMask(values));
        }
        const out = new Uint8Array(n);
        const validity = new Uint8Array(n).fill(1);
        const probeValues = probe?.evaluate(b);
        for (let i = 0; i < n; i++) {
          const results = node.resultsFor(i);
          if (kind === 'exists') {
            out[i] = rowsOf(results).count > 0 !== negated ? 1 : 0;
            continue;
          }
          const s = node.outerRefs.length === 0 ? (uncorrelatedSet ??= setOf(results)) : setOf(results);
          if (!isValid(probeValues!, i)) {
            if (s.set.size > 0 || s.hasNull) validity[i] = 0;
            else out[i] = negated ? 1 : 0;
            continue;
          }
          const hit = s.set.has(valueKey(getValue(probeValues!, i)));
          if (hit) out[i] = negated ? 0 : 1;
          else if (s.hasNull) validity[i] = 0;
          else out[i] = negated ? 1 : 0;
        }
        return { type: BOOLEAN, length: n, values: out, validity };
      },
    };
  }
}
