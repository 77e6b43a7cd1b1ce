// The two trees of a logical plan in one file, because each holds the other: an expression can
// hold a subquery's plan (scalarSubquery, exists, inSubquery) and a plan node holds expressions.
// Types only; expr.ts and logical-plan.ts build and walk them (and re-export their own half).

import type { ExternalTableInfo, TableInfo } from '../catalog.js';
import type { AggregateFunction, ScalarFunction, WindowFunction } from '../functions/function-types.js';
import type { BinaryOperator, DataType, IntegerRange, IntervalValue, Scalar } from '../types/index.js';
import type { PlanSchema } from './plan-schema.js';

export interface SortExpr {
  readonly expr: LExpr;
  readonly asc: boolean;
  readonly nullsFirst: boolean;
}

/**
 * One end of a window frame. Offsets are non-negative: a number of rows (ROWS), of peer groups
 * (GROUPS) or a distance in the ORDER BY key's values (RANGE: a number, or an interval for a
 * timestamp key).
 */
export type FrameBoundSpec =
  | { readonly kind: 'unbounded' }
  | { readonly kind: 'current' }
  | { readonly kind: 'preceding' | 'following'; readonly offset: number | IntervalValue };

export interface WindowFrameSpec {
  readonly units: 'ROWS' | 'RANGE' | 'GROUPS';
  readonly start: FrameBoundSpec;
  readonly end: FrameBoundSpec;
}

export type LExpr =
  | { readonly kind: 'column'; readonly qualifier: string | undefined; readonly name: string; readonly type: DataType }
  /** A column of an enclosing query, inside a correlated subquery. */
  | {
      readonly kind: 'outerColumn';
      readonly qualifier: string | undefined;
      readonly name: string;
      readonly type: DataType;
    }
  | { readonly kind: 'literal'; readonly value: Scalar; readonly type: DataType }
  | { readonly kind: 'alias'; readonly expr: LExpr; readonly name: string; readonly type: DataType }
  /** `implicit`: added by type coercion, not written (names, built before coercion, omit it). */
  | {
      readonly kind: 'cast';
      readonly expr: LExpr;
      readonly type: DataType;
      readonly try: boolean;
      readonly implicit?: boolean;
      /** A CAST to a narrow integer type, computed as BIGINT: the range its values must lie in (planner/sql-types.ts). */
      readonly range?: IntegerRange;
    }
  | {
      readonly kind: 'binary';
      readonly op: BinaryOperator;
      readonly left: LExpr;
      readonly right: LExpr;
      readonly type: DataType;
    }
  | { readonly kind: 'not'; readonly expr: LExpr; readonly type: DataType }
  | { readonly kind: 'negative'; readonly expr: LExpr; readonly type: DataType }
  | { readonly kind: 'isNull'; readonly expr: LExpr; readonly negated: boolean; readonly type: DataType }
  | {
      readonly kind: 'isBool';
      readonly expr: LExpr;
      readonly test: 'TRUE' | 'FALSE' | 'UNKNOWN';
      readonly negated: boolean;
      readonly type: DataType;
    }
  | {
      readonly kind: 'inList';
      readonly expr: LExpr;
      readonly list: readonly LExpr[];
      readonly negated: boolean;
      readonly type: DataType;
    }
  | {
      readonly kind: 'between';
      readonly expr: LExpr;
      readonly low: LExpr;
      readonly high: LExpr;
      readonly negated: boolean;
      readonly type: DataType;
    }
  | {
      readonly kind: 'like';
      readonly caseInsensitive: boolean;
      readonly expr: LExpr;
      readonly pattern: LExpr;
      readonly escape: string | undefined;
      readonly negated: boolean;
      readonly type: DataType;
    }
  | {
      readonly kind: 'case';
      readonly operand: LExpr | undefined;
      readonly whens: readonly { readonly when: LExpr; readonly then: LExpr }[];
      readonly elseResult: LExpr | undefined;
      readonly type: DataType;
    }
  | { readonly kind: 'scalarFn'; readonly fn: ScalarFunction; readonly args: readonly LExpr[]; readonly type: DataType }
  | {
      readonly kind: 'aggregate';
      readonly fn: AggregateFunction;
      readonly args: readonly LExpr[];
      readonly distinct: boolean;
      readonly filter: LExpr | undefined;
      readonly orderBy: readonly SortExpr[];
      readonly type: DataType;
      /** The argument types as bound (after coercion). */
      readonly argTypes: readonly DataType[];
      /** `count(*)`: named COUNT(UInt8(1)) as DataFusion names it. */
      readonly star?: boolean;
    }
  | {
      readonly kind: 'windowFn';
      readonly fn: WindowFunction | AggregateFunction;
      readonly args: readonly LExpr[];
      readonly partitionBy: readonly LExpr[];
      readonly orderBy: readonly SortExpr[];
      readonly frame: WindowFrameSpec | undefined;
      readonly type: DataType;
      readonly argTypes: readonly DataType[];
      /** An aggregate over the frame with DISTINCT. */
      readonly distinct?: boolean;
      /** `count(*)` over a window: named COUNT(UInt8(1)). */
      readonly star?: boolean;
    }
  | { readonly kind: 'scalarSubquery'; readonly plan: LogicalPlan; readonly type: DataType }
  | { readonly kind: 'exists'; readonly plan: LogicalPlan; readonly negated: boolean; readonly type: DataType }
  | {
      readonly kind: 'inSubquery';
      readonly expr: LExpr;
      readonly plan: LogicalPlan;
      readonly negated: boolean;
      readonly type: DataType;
    }
  | { readonly kind: 'getField'; readonly expr: LExpr; readonly field: string; readonly type: DataType };

export type ColumnExpr = Extract<LExpr, { kind: 'column' }>;

export interface TableScan {
  readonly kind: 'scan';
  readonly database: string;
  readonly table: TableInfo;
  /** The table as written or aliased (`m0`, `public.test`): the qualifier of its columns. */
  readonly qualifier: string;
  /** Columns read, in table order (projection pushdown narrows this). */
  readonly projection: readonly string[];
  /** Predicates evaluated by the scan itself (time range, series filter, residual rows). */
  readonly filters: readonly LExpr[];
  /** At most this many rows (after the filters). */
  readonly fetch: number | undefined;
  readonly schema: PlanSchema;
}

/** Every row of an external table's files, read when the plan runs (their content is not the catalog's). */
export interface ExternalScan {
  readonly kind: 'externalScan';
  readonly table: ExternalTableInfo;
  readonly qualifier: string;
  readonly schema: PlanSchema;
}

export interface Values {
  readonly kind: 'values';
  readonly rows: readonly (readonly LExpr[])[];
  readonly schema: PlanSchema;
}

/** No input: one row of no columns (`SELECT 1`) or nothing at all. */
export interface EmptyRelation {
  readonly kind: 'empty';
  readonly produceOneRow: boolean;
  readonly schema: PlanSchema;
}

export interface Projection {
  readonly kind: 'projection';
  readonly input: LogicalPlan;
  readonly exprs: readonly LExpr[];
  readonly schema: PlanSchema;
}

export interface Filter {
  readonly kind: 'filter';
  readonly input: LogicalPlan;
  readonly predicate: LExpr;
  readonly schema: PlanSchema;
}

export interface Aggregate {
  readonly kind: 'aggregate';
  readonly input: LogicalPlan;
  readonly groupBy: readonly LExpr[];
  /** `aggregate` expressions (never aliased): each becomes one output column. */
  readonly aggregates: readonly LExpr[];
  /**
   * GROUPING SETS / ROLLUP / CUBE: each set lists the `groupBy` positions it groups by; the
   * others are NULL in its rows. Undefined: one set of every `groupBy` expression.
   */
  readonly groupingSets?: readonly (readonly number[])[];
  readonly schema: PlanSchema;
}

export interface Window {
  readonly kind: 'window';
  readonly input: LogicalPlan;
  readonly windowExprs: readonly LExpr[];
  readonly schema: PlanSchema;
}

export interface Sort {
  readonly kind: 'sort';
  readonly input: LogicalPlan;
  readonly orderBy: readonly SortExpr[];
  /** Only the first `fetch` rows are needed (ORDER BY ... LIMIT): executes as a top-k. */
  readonly fetch: number | undefined;
  readonly schema: PlanSchema;
}

export interface Limit {
  readonly kind: 'limit';
  readonly input: LogicalPlan;
  readonly skip: number;
  readonly fetch: number | undefined;
  readonly schema: PlanSchema;
}

export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS' | 'SEMI' | 'ANTI';

export interface Join {
  readonly kind: 'join';
  readonly left: LogicalPlan;
  readonly right: LogicalPlan;
  readonly joinType: JoinType;
  /** Equi-join keys: left expression = right expression. */
  readonly on: readonly (readonly [LExpr, LExpr])[];
  /** The rest of the ON condition, evaluated on joined rows. */
  readonly filter: LExpr | undefined;
  /** Keys match when both are NULL (INTERSECT / EXCEPT). */
  readonly nullEqualsNull?: boolean;
  readonly schema: PlanSchema;
}

/** UNION ALL of inputs with the same column types (the first input names the columns). */
export interface Union {
  readonly kind: 'union';
  readonly inputs: readonly LogicalPlan[];
  readonly schema: PlanSchema;
}

export interface Distinct {
  readonly kind: 'distinct';
  readonly input: LogicalPlan;
  readonly schema: PlanSchema;
}

/** A derived table or CTE under its alias: the same rows, fields requalified. */
export interface SubqueryAlias {
  readonly kind: 'subqueryAlias';
  readonly input: LogicalPlan;
  readonly alias: string;
  readonly schema: PlanSchema;
}

/**
 * CnosDB's sliding `time_window(time, window, slide[, origin])`: each input row comes out once
 * per window containing it, with the window as a struct {start, end} in a new last column.
 */
export interface TimeWindow {
  readonly kind: 'timeWindow';
  readonly input: LogicalPlan;
  readonly time: LExpr;
  readonly windowNs: bigint;
  readonly slideNs: bigint;
  readonly originNs: bigint;
  readonly schema: PlanSchema;
}

/** A column GapFill appends: the aggregate column `source` with its NULLs filled. */
export interface FilledColumn {
  readonly source: number;
  readonly strategy: 'locf' | 'interpolate';
  /** The output name: the call's (`locf(AVG(m.v))`). */
  readonly name: string;
}

/**
 * CnosDB's time_window_gapfill over an Aggregate grouped by the window start and `keys`: every
 * series (distinct `keys`) gets a row for every window start from `firstNs` (or its own first
 * window when undefined) to `lastNs` on the grid `originNs + k * slideNs`, with aggregates NULL
 * in the added rows; `fills` appends filled copies of aggregate columns (locf, interpolate).
 * The rows come out sorted by keys, then time.
 */
export interface GapFill {
  readonly kind: 'gapFill';
  readonly input: LogicalPlan;
  /** Positions of the non-time group columns in the input, in GROUP BY order. */
  readonly keys: readonly number[];
  /** Position of the window start column. */
  readonly time: number;
  readonly fills: readonly FilledColumn[];
  readonly slideNs: bigint;
  readonly originNs: bigint;
  readonly firstNs: bigint | undefined;
  readonly lastNs: bigint;
  readonly schema: PlanSchema;
}

/**
 * A data-repair aggregate's column (a struct of two equally long lists, time and value; see
 * functions/data-repair-aggregates.ts) unnested, as CnosDB shows those functions: each input row
 * comes out once per list element, the struct column replaced by `time` and the value column,
 * which keeps the struct column's name.
 */
export interface UnnestSeries {
  readonly kind: 'unnestSeries';
  readonly input: LogicalPlan;
  /** Position of the struct column in the input. */
  readonly column: number;
  readonly schema: PlanSchema;
}

export type LogicalPlan =
  | GapFill
  | UnnestSeries
  | TableScan
  | ExternalScan
  | Values
  | EmptyRelation
  | Projection
  | Filter
  | Aggregate
  | Window
  | Sort
  | Limit
  | Join
  | Union
  | Distinct
  | SubqueryAlias
  | TimeWindow;
