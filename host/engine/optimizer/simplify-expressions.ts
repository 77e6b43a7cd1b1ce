// Constant folding and boolean simplification (DataFusion's SimplifyExpressions): subtrees
// without columns are evaluated once (`CAST('2016-01-01' AS TIMESTAMP)` becomes a timestamp
// literal, which the scan then uses as a time bound), `x AND TRUE` is `x`, `x OR TRUE` is TRUE.
// A subtree whose evaluation fails (1/0 in a CASE branch never taken) is left as it is: the
// error, if any, comes at run time from the rows that reach it; a function call or cast of
// literals that fails to execute fails the statement as DataFusion 27 reports it (CnosDB's lpad,
// substr and sqlancer cases). A value over the query's memory limit (repeat('a', 1e9)) is not
// folded either, the rows that reach it fail with 010011; nor is any value over 1 MiB. Result
// names do not change: a folded select item keeps its original name through an alias.

import { BOOLEAN, canCast, getValue, isValid, typeName } from '../types/index.js';
import { UserError } from '../../core/errors.js';
import { constantContext } from '../exec/constant-context.js';
import { valueBytes } from '../functions/result-size.js';
import { compileExpr } from '../exec/evaluate.js';
import { exprName } from '../plan/expr-display.js';
import { children, rewriteExpr, type LExpr } from '../plan/expr.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import { PlanSchema } from '../plan/plan-schema.js';
import type { OptimizerContext, OptimizerRule, RuleResult } from './optimizer-rule.js';
import { transformUp } from './plan-rewrite.js';

const ONE_ROW = { schema: { fields: [] }, columns: [], length: 1 };

/**
 * Values larger than this stay calls, computed when the rows come: a literal's text is part of
 * the plan's names and EXPLAIN (naming `repeat('a', 200000000)` folded copied 400 MB and took
 * seconds), and cached plans keep their literals.
 */
const MAX_FOLDED_BYTES = 1 << 20;

function foldable(e: LExpr): boolean {
  switch (e.kind) {
    case 'column':
    case 'outerColumn':
    case 'literal':
    case 'aggregate':
    case 'windowFn':
    case 'scalarSubquery':
    case 'exists':
    case 'inSubquery':
    case 'alias':
      return false;
    case 'scalarFn':
      if (e.fn.volatile === true) return false;
      break;
    default:
      break;
  }
  return children(e).every((c) => c.kind === 'literal');
}

function isBool(e: LExpr, v: boolean): boolean {
  return e.kind === 'literal' && e.value === v;
}

let cachedContext:
  | { nowNs: bigint; memoryLimitBytes: number | undefined; ctx: ReturnType<typeof constantContext> }
  | undefined;

function evalContext(nowNs: bigint, memoryLimitBytes: number | undefined): ReturnType<typeof constantContext> {
  if (
    cachedContext === undefined ||
    cachedContext.nowNs !== nowNs ||
    cachedContext.memoryLimitBytes !== memoryLimitBytes
  ) {
    cachedContext = { nowNs, memoryLimitBytes, ctx: constantContext(nowNs, memoryLimitBytes) };
  }
  return cachedContext.ctx;
}

/** The simplified expression, or `e` itself when nothing changed. */
export function simplifyExpr(e: LExpr, ctx: OptimizerContext): LExpr {
  return rewriteExpr(e, (x) => {
    if (x.kind === 'binary' && x.op === 'AND') {
      if (isBool(x.left, false) || isBool(x.right, false)) return { kind: 'literal', value: false, type: BOOLEAN };
      if (isBool(x.left, true)) return x.right;
      if (isBool(x.right, true)) return x.left;
    }
    if (x.kind === 'binary' && x.op === 'OR') {
      if (isBool(x.left, true) || isBool(x.right, true)) return { kind: 'literal', value: true, type: BOOLEAN };
      if (isBool(x.left, false)) return x.right;
      if (isBool(x.right, false)) return x.left;
    }
    if (x.kind === 'not' && x.expr.kind === 'not') return x.expr.expr;
    if (!foldable(x)) return x;
    // A CAST arrow cannot do, of a constant: DataFusion's folding fails on it (not implemented).
    if (x.kind === 'cast' && !canCast(x.expr.type, x.type)) {
      throw new UserError(
        'sqlExecute',
        `Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nThis feature is not implemented: Unsupported CAST from ${typeName(x.expr.type)} to ${typeName(x.type)}`,
      );
    }
    try {
      const v = compileExpr(x, PlanSchema.empty(), evalContext(ctx.nowNs, ctx.memoryLimitBytes)).evaluate(ONE_ROW);
      const value = isValid(v, 0) ? getValue(v, 0) : null;
      if (valueBytes(value) > MAX_FOLDED_BYTES) return x;
      return { kind: 'literal', value, type: x.type };
    } catch (err) {
      // A function of literals that fails (lpad('x', 2^63), substr('x', 1, -5)) fails the query
      // now, in DataFusion's words; operators (1 / 0 in a CASE branch) wait for their rows.
      // An internal error a function raises on its arguments (concat_ws('x')) is wrapped the same way.
      const raised =
        err instanceof UserError &&
        (err.kind === 'sqlExecute' ||
          err.kind === 'sqlArrow' ||
          err.message.startsWith('Datafusion: Internal error: '));
      if ((x.kind === 'scalarFn' || x.kind === 'cast') && raised) {
        // Inside the rule the error is arrow's own ("Arrow error: ..."), not CnosDB's "Arrow: ".
        const inner = (err as UserError).message.replace(/^Datafusion: /, '').replace(/^Arrow: /, 'Arrow error: ');
        throw new UserError(
          'sqlExecute',
          `Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\n${inner}`,
        );
      }
      return x;
    }
  });
}

/** Simplifies an output expression keeping the column name it had. */
function keepName(e: LExpr, ctx: OptimizerContext): LExpr {
  const s = simplifyExpr(e, ctx);
  if (s === e || e.kind === 'alias' || e.kind === 'column') return s;
  const before = exprName(e);
  return exprName(s) === before ? s : { kind: 'alias', expr: s, name: before, type: s.type };
}

function same<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export const simplifyExpressions: OptimizerRule = {
  name: 'simplify_expressions',
  rewrite(plan: LogicalPlan, ctx: OptimizerContext): RuleResult {
    let changed = false;
    const out = transformUp(plan, (p) => {
      switch (p.kind) {
        case 'filter': {
          const predicate = simplifyExpr(p.predicate, ctx);
          if (predicate === p.predicate) return p;
          changed = true;
          return { ...p, predicate };
        }
        case 'scan': {
          const filters = p.filters.map((f) => simplifyExpr(f, ctx));
          if (same(filters, p.filters)) return p;
          changed = true;
          return { ...p, filters };
        }
        case 'projection': {
          const exprs = p.exprs.map((e) => keepName(e, ctx));
          if (same(exprs, p.exprs)) return p;
          changed = true;
          return { ...p, exprs };
        }
        case 'aggregate': {
          const groupBy = p.groupBy.map((e) => keepName(e, ctx));
          // DataFusion folds the aggregates' arguments too; here they stay as written (their
          // names are the output columns), but a constant among them that fails fails now.
          for (const a of p.aggregates) simplifyExpr(a, ctx);
          if (same(groupBy, p.groupBy)) return p;
          changed = true;
          return { ...p, groupBy };
        }
        case 'join': {
          const filter = p.filter === undefined ? undefined : simplifyExpr(p.filter, ctx);
          if (filter === p.filter) return p;
          changed = true;
          return { ...p, filter };
        }
        default:
          return p;
      }
    });
    return { plan: out, changed };
  },
};
