// AST expression -> typed logical expression: binds names against the scope's schema (and the
// enclosing queries' for correlated subqueries), types literals as DataFusion's SQL planner does
// (integers Int64, then UInt64, then Float64; decimals Float64), folds a unary minus into a
// numeric literal, coerces operands (types/coercion.ts) by inserting casts, and types function calls
// through the registry.

import {
  arrowCastType,
  type BinaryOperator,
  binarySignature,
  BOOLEAN,
  checkCast,
  commonType,
  comparisonCoercion,
  type DataType,
  DATE32,
  FLOAT64,
  INT64,
  type IntegerRange,
  INTERVAL,
  type IntervalValue,
  NULL,
  parseInterval,
  type Scalar,
  typeEquals,
  typeName,
  UINT64,
  UTF8,
} from '../types/index.js';
import { bug, UserError } from '../../core/errors.js';
import { analyzerError, internalError, notImplemented, planError, schemaError } from '../errors.js';
import {
  PhysicalPlanError,
  type AggregateFunction,
  type BoundSignature,
  type ScalarFunction,
} from '../functions/function-types.js';
import { SignatureMismatch } from '../functions/signature.js';
import { Clause, type BlockErrors } from './deferred-errors.js';
import { aggregateFunction, scalarFunction, unknownFunction, windowFunction } from '../functions/registry.js';
import type { FrameBoundSpec, LExpr, SortExpr, WindowFrameSpec } from '../plan/expr.js';
import { anyExpr, children, lit } from '../plan/expr.js';
import { exprName } from '../plan/expr-display.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import type { PlanSchema } from '../plan/plan-schema.js';
import type * as ast from '../sql/ast.js';
import { arrowIntegerRange, castTargetType, narrowIntegerRange } from './sql-types.js';
import { simplifyExpr } from '../optimizer/simplify-expressions.js';
import { exprDisplayName } from '../sql/display-name.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/** What an expression may see and contain where it is planned. */
export interface Scope {
  readonly schema: PlanSchema;
  /** The enclosing query's scope, for correlated references. */
  readonly outer: Scope | undefined;
  /** Plans a subquery with `outer` as its enclosing scope. */
  readonly planSubquery: (q: ast.Query, outer: Scope) => LogicalPlan;
  /** Aggregate calls allowed here (select list, HAVING, ORDER BY of an aggregate query). */
  readonly allowAggregates: boolean;
  readonly allowWindows: boolean;
  /** AST nodes already planned elsewhere (a sliding time_window's column). */
  readonly replacements?: ReadonlyMap<ast.Expr, LExpr>;
  /** Named windows of the SELECT (WINDOW w AS (...)). */
  readonly windows?: ReadonlyMap<string, ast.WindowSpec>;
  /** The value of `@@name` (QuerySession.variables), or undefined when there is no such variable. */
  readonly variable?: (name: string) => string | bigint | undefined;
  /** Where the type errors DataFusion finds only in its analyzer go (deferred-errors.ts); thrown at once without. */
  readonly lateErrors?: BlockErrors;
  /** The clause of the SELECT being planned, which orders those errors. */
  readonly clause?: Clause;
  /** DataFusion types the expressions here only in its analyzer (WHERE, HAVING, below a CAST...). */
  readonly analyzed?: boolean;
}

/** Errors DataFusion's SQL planner raises at once (a LIKE pattern's type), never swallowed as late. */
const IMMEDIATE = new WeakSet<Error>();

/** A call whose arguments fit no signature, kept in the plan until its late error is thrown. */
function failedCall(fn: ScalarFunction, error: Error): ScalarFunction {
  return {
    kind: 'scalar',
    name: fn.name,
    bind(): never {
      throw error;
    },
    evaluate(): never {
      throw error;
    },
  };
}

/** `expr` cast to `type` (no node when already of that type). Checks the cast exists. */
export function coerce(e: LExpr, type: DataType): LExpr {
  if (typeEquals(e.type, type)) return e;
  checkCast(e.type, type);
  return { kind: 'cast', expr: e, type, try: false, implicit: true };
}

/** The type and value DataFusion gives a number literal. */
export function numberLiteral(text: string, negate: boolean): LExpr {
  const t = negate ? `-${text}` : text;
  if (/^-?\d+$/.test(t)) {
    const v = BigInt(t);
    if (v >= I64_MIN && v <= I64_MAX) return lit(v, INT64);
    if (v >= 0n && v <= U64_MAX) return lit(v, UINT64);
  }
  const x = Number(t);
  if (Number.isNaN(x)) throw planError(`Cannot parse ${t} as f64`);
  return lit(x, FLOAT64);
}

function intervalLiteral(e: ast.IntervalLiteral, negate: boolean): LExpr {
  const v = e.value;
  const text = v.kind === 'string' ? v.value : v.kind === 'number' ? v.text : undefined;
  if (text === undefined) throw notImplemented('INTERVAL with a non-literal value');
  const unit = e.unit === undefined ? 'second' : e.unit.toLowerCase();
  const iv = parseInterval(text, unit);
  if (iv === undefined) throw planError(`Invalid interval '${text}'`);
  return lit(negate ? { months: -iv.months, days: -iv.days, nanos: -iv.nanos } : iv, INTERVAL);
}

/** The value of a planned constant expression (folded if need be), or undefined. */
export function constantOf(e: LExpr): Scalar | undefined {
  if (e.kind === 'literal') return e.value;
  if (e.kind === 'column' || e.kind === 'outerColumn') return undefined;
  // now() folds to the epoch here; the values wanted are window sizes and origins. One that
  // fails to fold is no constant here: the optimizer reports it in its turn.
  try {
    const folded = simplifyExpr(e, { nowNs: 0n });
    return folded.kind === 'literal' ? folded.value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an expression reads no column, row or subquery (DataFusion's simplifier folds it). */
function isConstantExpr(e: LExpr): boolean {
  return !anyExpr(
    e,
    (x) =>
      x.kind === 'column' ||
      x.kind === 'outerColumn' ||
      x.kind === 'aggregate' ||
      x.kind === 'windowFn' ||
      x.kind === 'scalarSubquery' ||
      x.kind === 'exists' ||
      x.kind === 'inSubquery' ||
      (x.kind === 'scalarFn' && x.fn.volatile === true),
  );
}

function isBooleanLike(t: DataType): boolean {
  return t.id === 'Boolean' || t.id === 'Null';
}

/**
 * A cast to a narrow integer type, computed as BIGINT: wrapped in a cast of its own that checks
 * the type's range (evaluate.ts); other casts as they are.
 */
function withIntegerRange(cast: LExpr, range: IntegerRange | undefined, tryCast: boolean): LExpr {
  return range === undefined ? cast : { kind: 'cast', expr: cast, type: cast.type, try: tryCast, range };
}

export class ExprPlanner {
  readonly scope: Scope;
  /** Depth below nodes whose type DataFusion gives without asking their operands' (CAST, NOT, ...). */
  #hidden = 0;
  /** Inside a LIKE pattern, whose type DataFusion's SQL planner asks for at once. */
  #immediate = 0;

  constructor(scope: Scope) {
    this.scope = scope;
  }

  /** Whether a type error here surfaces only in DataFusion's type_coercion analyzer. */
  analyzedHere(): boolean {
    return this.#hidden > 0 || (this.scope.analyzed === true && this.#immediate === 0);
  }

  /** Plans an operand DataFusion does not type when it types its parent. */
  hidden(e: ast.Expr): LExpr {
    this.#hidden++;
    try {
      return this.plan(e);
    } finally {
      this.#hidden--;
    }
  }

  /** A planner for a nested part (arguments of an aggregate or window call) in `clause`. */
  nested(clause: Clause, overrides: Partial<Scope> = {}): ExprPlanner {
    return new ExprPlanner({ ...this.scope, ...overrides, clause, analyzed: this.analyzedHere() });
  }

  plan(e: ast.Expr): LExpr {
    const late = this.scope.lateErrors;
    if (late === undefined || !this.analyzedHere()) return this.#planNode(e);
    const mark = late.size;
    try {
      return this.#planNode(e);
    } catch (err) {
      // A type error of an expression over a call that already failed late: DataFusion's
      // analyzer, going bottom-up, stops at that call, so this one is never reported.
      if (late.size === mark || !(err instanceof UserError) || err.kind !== 'sqlPlan' || IMMEDIATE.has(err)) throw err;
      return this.opaque(e);
    }
  }

  /** The stand-in for `e` after a late error inside it: its text, reading its columns. */
  opaque(e: ast.Expr): LExpr {
    const qualified = (c: ast.ColumnRef): string => {
      try {
        const x = this.column(c);
        return x.kind === 'column' && x.qualifier !== undefined ? `${x.qualifier}.${x.name}` : c.parts.join('.');
      } catch {
        return c.parts.join('.');
      }
    };
    const name = exprDisplayName(e, { column: qualified });
    const columns: LExpr[] = [];
    const collect = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(collect);
      const n = node as { kind?: string };
      if (n.kind === 'query') return;
      if (n.kind === 'column') {
        try {
          columns.push(this.column(node as ast.ColumnRef));
        } catch {
          // Unresolved names stay out; the error that matters was already recorded.
        }
        return;
      }
      for (const v of Object.values(node)) collect(v);
    };
    collect(e);
    const fn: ScalarFunction = {
      kind: 'scalar',
      name,
      opaque: true,
      bind: () => {
        throw bug(`${name} is a stand-in`);
      },
      evaluate: () => {
        throw bug(`${name} is a stand-in`);
      },
    };
    return { kind: 'scalarFn', fn, args: columns, type: NULL };
  }

  #planNode(e: ast.Expr): LExpr {
    const replaced = this.scope.replacements?.get(e);
    if (replaced !== undefined) return replaced;
    switch (e.kind) {
      case 'number':
        return numberLiteral(e.text, false);
      case 'string':
        return lit(e.value, UTF8);
      case 'boolean':
        return lit(e.value, BOOLEAN);
      case 'null':
        return lit(null, NULL);
      case 'interval':
        return intervalLiteral(e, false);
      case 'typedString': {
        const target =
          e.dataType.name === 'DATE'
            ? DATE32
            : e.dataType.name === 'TIMESTAMP'
              ? castTargetType(e.dataType)
              : undefined;
        if (target === undefined) throw notImplemented(`Unsupported SQL type ${e.dataType.name}`);
        return coerce(lit(e.value, UTF8), target);
      }
      case 'variable': {
        // A user variable (`@x`) has no value here; DataFusion's text names it as a Rust list.
        if (!e.name.startsWith('@@')) throw planError(`variable ${JSON.stringify([e.name])} has no type information`);
        // `@@server_version` is a constant of the session; the column keeps the name as written.
        const v = this.scope.variable?.(e.name.replace(/^@+/, ''));
        if (v === undefined) throw planError(`variable ${e.name} is not defined`);
        const type = typeof v === 'bigint' ? UINT64 : UTF8;
        return { kind: 'alias', expr: lit(v, type), name: e.name, type };
      }
      case 'column':
        return this.column(e);
      case 'wildcard':
        throw planError('Wildcard is only allowed in the select list and in count(*)');
      case 'unary':
        return this.unary(e);
      case 'binary':
        return this.binary(e.op, this.plan(e.left), this.plan(e.right));
      case 'is':
        return this.is(e);
      case 'isDistinctFrom':
        return this.binary(
          e.negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM',
          this.plan(e.left),
          this.plan(e.right),
        );
      case 'inList':
        return this.inList(e);
      case 'inSubquery': {
        const expr = this.hidden(e.expr);
        const plan = this.scope.planSubquery(e.query, this.scope);
        if (plan.schema.length !== 1)
          throw planError(`IN subquery should only return one column, but found ${plan.schema.length}`);
        const t = comparisonCoercion(expr.type, plan.schema.field(0).type);
        if (t === undefined)
          throw planError(
            `Cannot infer common argument type for comparison operation ${typeName(expr.type)} = ${typeName(plan.schema.field(0).type)}`,
          );
        return { kind: 'inSubquery', expr: coerce(expr, t), plan, negated: e.negated, type: BOOLEAN };
      }
      case 'between': {
        const x = this.hidden(e.expr);
        const low = this.hidden(e.low);
        const high = this.hidden(e.high);
        const t = commonType([x.type, low.type, high.type]);
        if (t === undefined)
          throw planError(
            `Cannot infer common argument type for comparison operation ${typeName(x.type)} BETWEEN ${typeName(low.type)} AND ${typeName(high.type)}`,
          );
        return {
          kind: 'between',
          expr: coerce(x, t),
          low: coerce(low, t),
          high: coerce(high, t),
          negated: e.negated,
          type: BOOLEAN,
        };
      }
      case 'like':
        return this.like(e);
      case 'case':
        return this.caseExpr(e);
      case 'cast': {
        return withIntegerRange(
          this.explicitCast(this.hidden(e.expr), castTargetType(e.dataType), e.try),
          narrowIntegerRange(e.dataType),
          e.try,
        );
      }
      case 'function':
        return this.call(e);
      case 'subquery': {
        const plan = this.scope.planSubquery(e.query, this.scope);
        if (plan.schema.length !== 1)
          throw planError(
            `Scalar subquery should only return one column, but found ${plan.schema.length}: ${plan.schema.fields.map((f) => f.name).join(', ')}`,
          );
        return { kind: 'scalarSubquery', plan, type: plan.schema.field(0).type };
      }
      case 'exists':
        return {
          kind: 'exists',
          plan: this.scope.planSubquery(e.query, this.scope),
          negated: e.negated,
          type: BOOLEAN,
        };
      case 'fieldAccess':
        return this.field(this.plan(e.expr), e.field);
      case 'index':
        throw notImplemented('indexing into arrays');
      case 'array':
        // `[a, b]` is make_array(a, b), as in DataFusion (display-name.ts names it so).
        return this.callScalar(
          'make_array',
          e.items.map((x) => this.plan(x)),
        );
      case 'extract':
        return this.callScalar('date_part', [lit(e.field.toLowerCase(), UTF8), this.plan(e.expr)]);
      case 'position':
        return this.callScalar('strpos', [this.plan(e.haystack), this.plan(e.needle)]);
      case 'substring': {
        const args = [this.plan(e.expr), e.from === undefined ? lit(1n, INT64) : this.plan(e.from)];
        if (e.for !== undefined) args.push(this.plan(e.for));
        return this.callScalar('substr', args);
      }
      case 'trim': {
        const fn =
          e.where === 'LEADING' ? 'ltrim' : e.where === 'TRAILING' ? 'rtrim' : e.where === 'BOTH' ? 'btrim' : 'trim';
        return this.callScalar(
          fn,
          e.chars === undefined ? [this.plan(e.expr)] : [this.plan(e.expr), this.plan(e.chars)],
        );
      }
      case 'rollup':
      case 'cube':
      case 'groupingSets':
        throw notImplemented(`${e.kind === 'groupingSets' ? 'GROUPING SETS' : e.kind.toUpperCase()} in GROUP BY`);
    }
  }

  column(e: ast.ColumnRef): LExpr {
    const parts = e.parts;
    const tryScope = (scope: Scope): LExpr | undefined => {
      const s = scope.schema;
      if (parts.length === 1) {
        const i = s.find(undefined, parts[0]!);
        if (i >= 0) return this.columnOf(s, i);
        return undefined;
      }
      // qualifier.column, then column.field of a struct, then longer qualifiers.
      for (let q = parts.length - 1; q >= 1; q--) {
        const i = s.find(parts.slice(0, q).join('.'), parts[q]!);
        if (i >= 0) {
          let out = this.columnOf(s, i);
          for (const f of parts.slice(q + 1)) out = this.field(out, f);
          return out;
        }
      }
      const i = s.find(undefined, parts[0]!);
      if (i >= 0 && s.field(i).type.id === 'Struct') {
        let out = this.columnOf(s, i);
        for (const f of parts.slice(1)) out = this.field(out, f);
        return out;
      }
      return undefined;
    };
    const here = tryScope(this.scope);
    if (here !== undefined) return here;
    for (let outer = this.scope.outer; outer !== undefined; outer = outer.outer) {
      const found = tryScope(outer);
      if (found !== undefined && found.kind === 'column')
        return { kind: 'outerColumn', qualifier: found.qualifier, name: found.name, type: found.type };
      if (found !== undefined) return found;
    }
    const name = parts[parts.length - 1]!;
    const qualifier = parts.length > 1 ? parts.slice(0, -1).join('.') : undefined;
    throw this.scope.schema.noSuchField(qualifier, name);
  }

  columnOf(s: PlanSchema, i: number): LExpr {
    const f = s.field(i);
    return { kind: 'column', qualifier: f.qualifier, name: f.name, type: f.type };
  }

  field(e: LExpr, name: string): LExpr {
    if (e.type.id !== 'Struct') throw schemaError(`No field named ${name} in ${typeName(e.type)}`);
    const f = e.type.fields.find((x) => x.name === name);
    if (f === undefined) throw schemaError(`Field ${name} not found in struct`);
    return { kind: 'getField', expr: e, field: name, type: f.type };
  }

  unary(e: ast.UnaryExpr): LExpr {
    if (e.op === '+') return this.plan(e.expr);
    if (e.op === '-') {
      // sqlparser keeps `- (5)` as a minus over a nested expression, which DataFusion does not fold.
      if (e.expr.kind === 'number' && e.parenthesized !== true) return numberLiteral(e.expr.text, true);
      if (e.expr.kind === 'interval' && e.parenthesized !== true) return intervalLiteral(e.expr, true);
      const x = this.plan(e.expr);
      if (
        x.type.id !== 'Int64' &&
        x.type.id !== 'Float64' &&
        x.type.id !== 'Interval' &&
        x.type.id !== 'Null' &&
        x.type.id !== 'UInt64'
      ) {
        throw planError(`Negation only supports numeric, interval and timestamp types`);
      }
      const type = x.type.id === 'UInt64' ? INT64 : x.type;
      return { kind: 'negative', expr: coerce(x, type), type };
    }
    const x = this.hidden(e.expr);
    if (!isBooleanLike(x.type))
      throw planError(`Cannot infer common argument type for logical boolean operation NOT ${typeName(x.type)}`);
    return { kind: 'not', expr: coerce(x, BOOLEAN), type: BOOLEAN };
  }

  binary(op: BinaryOperator, l: LExpr, r: LExpr): LExpr {
    const sig = binarySignature(op, l.type, r.type);
    return { kind: 'binary', op, left: coerce(l, sig.left), right: coerce(r, sig.right), type: sig.result };
  }

  is(e: ast.IsExpr): LExpr {
    const x = this.hidden(e.expr);
    if (e.test === 'NULL') return { kind: 'isNull', expr: x, negated: e.negated, type: BOOLEAN };
    if (!isBooleanLike(x.type)) throw planError(`Cannot infer common argument type for ${e.test} ${typeName(x.type)}`);
    return { kind: 'isBool', expr: coerce(x, BOOLEAN), test: e.test, negated: e.negated, type: BOOLEAN };
  }

  inList(e: ast.InList): LExpr {
    const x = this.hidden(e.expr);
    const list = e.list.map((i) => this.hidden(i));
    const t = commonType([x.type, ...list.map((i) => i.type)]);
    if (t === undefined) {
      // DataFusion 27 coerces IN lists in its type_coercion analyzer rule.
      throw analyzerError(
        'type_coercion',
        `Can not find compatible types to compare ${typeName(x.type)} with [${list.map((i) => typeName(i.type)).join(', ')}]`,
      );
    }
    return {
      kind: 'inList',
      expr: coerce(x, t),
      list: list.map((i) => coerce(i, t)),
      negated: e.negated,
      type: BOOLEAN,
    };
  }

  like(e: ast.Like): LExpr {
    if (e.op === 'SIMILAR TO') throw notImplemented('SIMILAR TO');
    const x = this.hidden(e.expr);
    // DataFusion's SQL planner asks the pattern's type at once (its errors are never late).
    const hidden = this.#hidden;
    this.#hidden = 0;
    this.#immediate++;
    let p: LExpr;
    try {
      p = this.plan(e.pattern);
    } catch (err) {
      if (err instanceof Error) IMMEDIATE.add(err);
      throw err;
    } finally {
      this.#immediate--;
      this.#hidden = hidden;
    }
    for (const t of [x.type, p.type]) {
      if (t.id !== 'Utf8' && t.id !== 'Null')
        throw planError(
          `There isn't a common type to coerce ${typeName(x.type)} and ${typeName(p.type)} in LIKE expression`,
        );
    }
    let escapeChar: string | undefined;
    if (e.escape !== undefined) {
      if (e.escape.kind !== 'string' || Array.from(e.escape.value).length !== 1)
        throw planError('Invalid escape character in LIKE expression');
      escapeChar = e.escape.value;
    }
    return {
      kind: 'like',
      caseInsensitive: e.op === 'ILIKE',
      expr: coerce(x, UTF8),
      pattern: coerce(p, UTF8),
      escape: escapeChar,
      negated: e.negated,
      type: BOOLEAN,
    };
  }

  caseExpr(e: ast.CaseExpr): LExpr {
    // A CASE's type is its first THEN's: only that one is typed with it.
    const operand = e.operand === undefined ? undefined : this.hidden(e.operand);
    let whens = e.whens.map((w, k) => ({
      when: this.hidden(w.when),
      then: k === 0 ? this.plan(w.then) : this.hidden(w.then),
    }));
    const elseResult = e.elseResult === undefined ? undefined : this.hidden(e.elseResult);
    const resultType = commonType([...whens.map((w) => w.then.type), ...(elseResult ? [elseResult.type] : [])]);
    if (resultType === undefined)
      throw planError(
        `There isn't a common type to coerce the CASE results: ${whens.map((w) => typeName(w.then.type)).join(', ')}`,
      );
    let op = operand;
    if (operand !== undefined) {
      const t = commonType([operand.type, ...whens.map((w) => w.when.type)]);
      if (t === undefined) throw planError("There isn't a common type to coerce the CASE operand and WHEN values");
      op = coerce(operand, t);
      whens = whens.map((w) => ({ when: coerce(w.when, t), then: w.then }));
    } else {
      for (const w of whens)
        if (!isBooleanLike(w.when.type))
          throw planError(`CASE WHEN condition must be boolean, got ${typeName(w.when.type)}`);
      whens = whens.map((w) => ({ when: coerce(w.when, BOOLEAN), then: w.then }));
    }
    return {
      kind: 'case',
      operand: op,
      whens: whens.map((w) => ({ when: w.when, then: coerce(w.then, resultType) })),
      elseResult: elseResult && coerce(elseResult, resultType),
      type: resultType,
    };
  }

  /** arrow_cast(x, 'Type'): a CAST to the named Arrow type (types/arrow-cast.ts). */
  arrowCast(e: ast.FunctionCall): LExpr {
    if (e.args.length !== 2) throw planError(`arrow_cast needs 2 arguments, ${e.args.length} provided`);
    const x = this.hidden(e.args[0]!);
    const target = e.args[1]!;
    if (target.kind !== 'string')
      throw planError(`arrow_cast requires its second argument to be a constant string, got ${target.kind}`);
    return withIntegerRange(
      this.explicitCast(x, arrowCastType(target.value), false),
      arrowIntegerRange(target.value),
      false,
    );
  }

  /**
   * A written CAST. One DataFusion cannot do fails only after planning: in the optimizer when the
   * operand is constant (simplify_expressions folds it: left to this engine's optimizer, which
   * meets it in the same order), else when the physical plan is made.
   */
  explicitCast(x: LExpr, type: DataType, tryCast: boolean): LExpr {
    try {
      checkCast(x.type, type);
    } catch (err) {
      const late = this.scope.lateErrors;
      if (late === undefined || !(err instanceof UserError)) throw err;
      if (!isConstantExpr(x)) late.addPhysical(err);
    }
    return { kind: 'cast', expr: x, type, try: tryCast };
  }

  /** A scalar call with arguments already planned. */
  callScalar(name: string, args: LExpr[]): LExpr {
    const fn = scalarFunction(name);
    if (fn === undefined) throw bug(`scalar function ${name} is not registered`);
    let sig: BoundSignature;
    try {
      sig = fn.bind(
        args.map((a) => a.type),
        args.map((a) => constantOf(a)),
      );
    } catch (err) {
      const late = this.scope.lateErrors;
      if (err instanceof PhysicalPlanError && err.fallback !== undefined && late !== undefined) {
        late.addPhysical(err);
        const fb = err.fallback;
        return {
          kind: 'scalarFn',
          fn: failedCall(fn, err),
          args: args.map((a, i) => coerce(a, fb.argTypes[i] ?? a.type)),
          type: fb.returnType,
        };
      }
      if (!(err instanceof SignatureMismatch) || late === undefined || !this.analyzedHere()) throw err;
      late.add(this.scope.clause ?? Clause.Select, analyzerError('type_coercion', err.coercion));
      return { kind: 'scalarFn', fn: failedCall(fn, err), args, type: NULL };
    }
    return {
      kind: 'scalarFn',
      fn,
      args: args.map((a, i) => coerce(a, sig.argTypes[i] ?? a.type)),
      type: sig.returnType,
    };
  }

  call(e: ast.FunctionCall): LExpr {
    const name = e.name;
    if (e.over !== undefined) return this.windowCall(e);
    const agg = aggregateFunction(name);
    if (agg !== undefined) return this.aggregateCall(agg, e);
    // A window-only function without OVER is no function at all to DataFusion 27's planner.
    if (windowFunction(name) !== undefined) throw unknownFunction(name);
    if (name === 'arrow_cast') return this.arrowCast(e);
    const fn = scalarFunction(name);
    if (fn === undefined) throw unknownFunction(name);
    if (e.distinct) throw planError(`DISTINCT is not allowed in the scalar function ${name}`);
    const args = e.args.map((a) => this.plan(a));
    return this.callScalar(name, args);
  }

  aggregateCall(fn: AggregateFunction, e: ast.FunctionCall): LExpr {
    if (!this.scope.allowAggregates) throw planError(`Aggregate functions are not allowed here: ${fn.displayName}`);
    const star =
      (fn.name === 'count' || fn.name === 'exact_count') &&
      e.args.length === 1 &&
      e.args[0]!.kind === 'wildcard' &&
      e.args[0]!.qualifier === undefined;
    let args: LExpr[];
    // A window function in an aggregate's argument would have to run before the aggregate it
    // feeds, which runs first: refused, as in the aggregate's FILTER and ORDER BY.
    const argPlanner = this.nested(Clause.AggregateArgs, { allowWindows: false });
    if (star) args = [];
    else {
      args = e.args.map((a) => {
        if (a.kind !== 'wildcard') return argPlanner.plan(a);
        if (fn.name === 'min' || fn.name === 'max' || fn.name === 'mode')
          throw internalError('Create physical name does not support wildcard');
        return lit(null, NULL);
      });
    }
    const inner = new ExprPlanner({ ...this.scope, allowAggregates: false, allowWindows: false });
    const filter = e.filter === undefined ? undefined : coerce(inner.plan(e.filter), BOOLEAN);
    const orderBy = e.orderBy.map((o) => this.sortExpr(o, inner));
    const sig = star
      ? fn.bind([INT64], false)
      : fn.bind(
          args.map((a) => a.type),
          e.distinct,
          args.map((a) => constantOf(a)),
        );
    const coerced = star ? [] : args.map((a, i) => coerce(a, sig.argTypes[i] ?? a.type));
    for (const a of coerced) if (containsAggregate(a)) throw planError('Aggregate functions cannot be nested');
    return {
      kind: 'aggregate',
      fn,
      args: coerced,
      distinct: e.distinct,
      filter,
      orderBy,
      type: sig.returnType,
      argTypes: star ? [] : sig.argTypes,
      ...(star ? { star: true } : {}),
    };
  }

  sortExpr(o: ast.OrderByExpr, planner: ExprPlanner = this): SortExpr {
    const asc = o.asc ?? true;
    return { expr: planner.plan(o.expr), asc, nullsFirst: o.nullsFirst ?? !asc };
  }

  windowCall(e: ast.FunctionCall): LExpr {
    if (!this.scope.allowWindows) throw planError(`Window functions are not allowed here: ${e.name}`);
    let spec = e.over!;
    if (spec.baseName !== undefined) {
      const base = this.scope.windows?.get(spec.baseName);
      if (base === undefined) throw planError(`The window ${spec.baseName} is not defined!`);
      spec = {
        partitionBy: [...base.partitionBy, ...spec.partitionBy],
        orderBy: spec.orderBy.length > 0 ? spec.orderBy : base.orderBy,
        frame: spec.frame ?? base.frame,
      };
    }
    const inner = this.nested(Clause.WindowArgs, { allowWindows: false });
    const partitionBy = spec.partitionBy.map((p) => inner.plan(p));
    const orderBy = spec.orderBy.map((o) => this.sortExpr(o, inner));
    const frame = spec.frame === undefined ? undefined : frameSpec(spec.frame, orderBy, inner);
    const wf = windowFunction(e.name);
    if (wf !== undefined) {
      const args = e.args.map((a) => inner.plan(a));
      const types = args.map((a) => a.type);
      const constants = args.map((a) => constantOf(a));
      let sig: BoundSignature;
      try {
        sig = wf.bind(types, constants);
      } catch (err) {
        // A literal argument is checked only for the physical plan: typed here with a stand-in.
        if (!(err instanceof PhysicalPlanError) || this.scope.lateErrors === undefined) throw err;
        this.scope.lateErrors.addPhysical(err);
        sig = wf.bind(
          types,
          constants.map((c) => (typeof c === 'bigint' && c > 0n ? c : 1n)),
        );
      }
      return {
        kind: 'windowFn',
        fn: wf,
        args: args.map((a, i) => coerce(a, sig.argTypes[i] ?? a.type)),
        partitionBy,
        orderBy,
        frame,
        type: sig.returnType,
        argTypes: sig.argTypes,
      };
    }
    const agg = aggregateFunction(e.name);
    if (agg !== undefined) {
      // An aggregate over a window frame: count(*) counts rows, as in a GROUP BY.
      const star =
        (agg.name === 'count' || agg.name === 'exact_count') && e.args.length === 1 && e.args[0]!.kind === 'wildcard';
      const args = star ? [lit(1n, INT64)] : e.args.map((a) => inner.plan(a));
      const sig = agg.bind(
        args.map((a) => a.type),
        e.distinct,
        args.map((a) => constantOf(a)),
      );
      // An aggregate in the argument (sum(count(x)) OVER (...)) is computed by the GROUP BY
      // below the window, as in its PARTITION BY and ORDER BY.
      const coerced = args.map((a, i) => coerce(a, sig.argTypes[i] ?? a.type));
      return {
        kind: 'windowFn',
        fn: agg,
        args: coerced,
        partitionBy,
        orderBy,
        frame,
        type: sig.returnType,
        argTypes: sig.argTypes,
        ...(e.distinct ? { distinct: true } : {}),
        ...(star ? { star: true } : {}),
      };
    }
    throw unknownFunction(e.name);
  }
}

/** The frame of a window call, checked as DataFusion checks it. */
function frameSpec(f: ast.WindowFrame, orderBy: readonly SortExpr[], planner: ExprPlanner): WindowFrameSpec {
  const bound = (b: ast.FrameBound): FrameBoundSpec => {
    if (b.kind === 'currentRow') return { kind: 'current' };
    if (b.offset === undefined) return { kind: 'unbounded' };
    const planned = planner.plan(b.offset);
    const v = constantOf(planned);
    if (f.units !== 'RANGE') {
      if (typeof v !== 'bigint' || v < 0n)
        throw planError(
          `Window frame bound of ${f.units} must be a non-negative integer literal, got ${exprName(planned)}`,
        );
      return { kind: b.kind, offset: Number(v) };
    }
    let offset: number | IntervalValue | undefined;
    if (typeof v === 'bigint' || typeof v === 'number') offset = Number(v);
    else if (typeof v === 'string') offset = /^\s*[0-9.]+\s*$/.test(v) ? Number(v) : parseInterval(v);
    else if (v !== null && v !== undefined && typeof v === 'object' && 'nanos' in v) offset = v as IntervalValue;
    if (offset === undefined || (typeof offset === 'number' && !(offset >= 0)))
      throw planError(
        `Invalid window frame bound ${exprName(planned)}: a RANGE offset must be a non-negative number or an interval`,
      );
    return { kind: b.kind, offset };
  };
  const start = bound(f.start);
  const end = f.end === undefined ? ({ kind: 'current' } as const) : bound(f.end);
  if (f.start.kind === 'following' && start.kind === 'unbounded')
    throw planError('Invalid window frame: start bound cannot be UNBOUNDED FOLLOWING');
  if (f.end !== undefined && f.end.kind === 'preceding' && end.kind === 'unbounded')
    throw planError('Invalid window frame: end bound cannot be UNBOUNDED PRECEDING');
  const offsets = [start, end].some((b) => b.kind === 'preceding' || b.kind === 'following');
  if (f.units === 'RANGE' && offsets && orderBy.length !== 1)
    throw planError(
      `With window frame of type RANGE, the order by expression must be of length 1, got ${orderBy.length}`,
    );
  if (f.units === 'GROUPS' && orderBy.length === 0) throw planError('GROUPS mode requires an ORDER BY clause');
  return { units: f.units, start, end };
}

/** Whether an expression contains an aggregate call. */
export function containsAggregate(e: LExpr): boolean {
  if (e.kind === 'aggregate') return true;
  switch (e.kind) {
    case 'scalarSubquery':
    case 'exists':
      return false;
    default:
      return children(e).some(containsAggregate);
  }
}
