// The expression and query half of the SQL abstract syntax tree (statements: ast-statements.ts;
// both: ast.ts): discriminated unions on `kind`, shaped after sqlparser-rs's AST with CnosDB's
// DDL/DCL on top. Names are stored normalized (unquoted lowercased, quoted as
// written) and quote style is not kept, so print -> parse gives back an equal tree.
// Parentheses leave no node in expressions (the printer re-derives them from precedence); a
// parenthesised query body does (`nestedQuery`), because ORDER BY/LIMIT inside it matter.

import type { Pos } from './tokens.js';

export type { Pos };

/** A possibly qualified name, one string per dotted part: `db.table` is ['db', 'table']. */
export type ObjectName = string[];

// ---------------------------------------------------------------------------------------------
// Data types

/**
 * A column or cast type. Known names are canonical upper case (`BIGINT`, `DOUBLE`, `STRING`,
 * `TIMESTAMP`, `GEOMETRY`, ...; `DOUBLE PRECISION` reads as `DOUBLE`). A word the parser does
 * not know is kept as written with `custom` set, so that the planner can report
 * "Unexpected data type BOOLE of column4" as CnosDB does.
 */
export interface DataType {
  readonly name: string;
  readonly custom: boolean;
  /** `BIGINT UNSIGNED` and the other integer types followed by UNSIGNED. */
  readonly unsigned: boolean;
  /** Parenthesised parameters as written: `DECIMAL(10, 2)`, `TIMESTAMP(3)`, `GEOMETRY(POINT, 0)`. */
  readonly params: readonly string[];
  /** `TIMESTAMP WITH TIME ZONE` / `WITHOUT TIME ZONE`; absent when not written. */
  readonly timeZone?: 'WITH' | 'WITHOUT';
  /** Custom and GEOMETRY types: the type as written (`geometry(point, 0)`), for CnosDB's errors. */
  readonly written?: string;
}

// ---------------------------------------------------------------------------------------------
// Expressions

interface Node {
  readonly pos: Pos;
}

/** A numeric literal; `text` as written (`1`, `1.5`, `1e3`, `.5`) so the planner picks the type. */
export interface NumberLiteral extends Node {
  readonly kind: 'number';
  readonly text: string;
}
export interface StringLiteral extends Node {
  readonly kind: 'string';
  readonly value: string;
}
export interface BooleanLiteral extends Node {
  readonly kind: 'boolean';
  readonly value: boolean;
}
export interface NullLiteral extends Node {
  readonly kind: 'null';
}
/** `INTERVAL '1 minute'` (no unit) or `INTERVAL '5' MINUTE` (unit upper case, singular or as written). */
export interface IntervalLiteral extends Node {
  readonly kind: 'interval';
  readonly value: Expr;
  readonly unit?: string;
}
/** `TIMESTAMP '2021-01-01 00:00:00'`, `DATE '...'`, `TIME '...'`. */
export interface TypedString extends Node {
  readonly kind: 'typedString';
  readonly dataType: DataType;
  readonly value: string;
}
export type Literal = NumberLiteral | StringLiteral | BooleanLiteral | NullLiteral | IntervalLiteral | TypedString;

/** `@@server_version` (lowercased). */
export interface Variable extends Node {
  readonly kind: 'variable';
  readonly name: string;
}
/**
 * A column reference, possibly qualified: `c`, `t.c`, `db.t.c`. The parser cannot tell
 * `window.start` (struct field of column `window`) from `t.c`; the planner resolves the parts.
 */
export interface ColumnRef extends Node {
  readonly kind: 'column';
  readonly parts: readonly string[];
}
/** `*` or `t.*`: only as a select item or a function argument. */
export interface Wildcard extends Node {
  readonly kind: 'wildcard';
  readonly qualifier?: ObjectName;
}
export type UnaryOp = '-' | '+' | 'NOT';
export interface UnaryExpr extends Node {
  readonly kind: 'unary';
  readonly op: UnaryOp;
  readonly expr: Expr;
  /** The operand was written in parentheses, `- (5)`: a minus then does not fold into a literal. */
  readonly parenthesized?: boolean;
}
/** `<>` is read as `!=`. */
export type BinaryOp =
  | 'OR'
  | 'AND'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '~'
  | '~*'
  | '!~'
  | '!~*'
  | '||'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '&'
  | '|'
  | '^'
  | '<<'
  | '>>';
/** `pos` is the operator's position. */
export interface BinaryExpr extends Node {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
}
/** `x IS [NOT] NULL | TRUE | FALSE | UNKNOWN`. */
export interface IsExpr extends Node {
  readonly kind: 'is';
  readonly expr: Expr;
  readonly negated: boolean;
  readonly test: 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN';
}
export interface IsDistinctFrom extends Node {
  readonly kind: 'isDistinctFrom';
  readonly left: Expr;
  readonly right: Expr;
  readonly negated: boolean;
}
export interface InList extends Node {
  readonly kind: 'inList';
  readonly expr: Expr;
  readonly list: readonly Expr[];
  readonly negated: boolean;
}
export interface InSubquery extends Node {
  readonly kind: 'inSubquery';
  readonly expr: Expr;
  readonly query: Query;
  readonly negated: boolean;
}
export interface Between extends Node {
  readonly kind: 'between';
  readonly expr: Expr;
  readonly low: Expr;
  readonly high: Expr;
  readonly negated: boolean;
}
export interface Like extends Node {
  readonly kind: 'like';
  readonly op: 'LIKE' | 'ILIKE' | 'SIMILAR TO';
  readonly expr: Expr;
  readonly pattern: Expr;
  readonly escape?: Expr;
  readonly negated: boolean;
}
/** Simple CASE when `operand` is set, searched CASE otherwise. */
export interface CaseExpr extends Node {
  readonly kind: 'case';
  readonly operand?: Expr;
  readonly whens: readonly { readonly when: Expr; readonly then: Expr }[];
  readonly elseResult?: Expr;
}
/** `CAST(x AS t)`, `TRY_CAST(x AS t)` and `x::t` (the latter read as CAST). */
export interface CastExpr extends Node {
  readonly kind: 'cast';
  readonly expr: Expr;
  readonly dataType: DataType;
  readonly try: boolean;
}
/**
 * A function call: aggregate, scalar or window; the parser does not tell them apart. `name` is
 * lowercased unless quoted. `bare` marks `CURRENT_DATE`-style calls written without parentheses.
 */
export interface FunctionCall extends Node {
  readonly kind: 'function';
  readonly name: string;
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  /** `ORDER BY` inside the parentheses: `increase(time, v ORDER BY time)`. */
  readonly orderBy: readonly OrderByExpr[];
  readonly filter?: Expr;
  readonly over?: WindowSpec;
  readonly bare: boolean;
}
/** A scalar subquery `(SELECT ...)`. */
export interface SubqueryExpr extends Node {
  readonly kind: 'subquery';
  readonly query: Query;
}
export interface ExistsExpr extends Node {
  readonly kind: 'exists';
  readonly query: Query;
  readonly negated: boolean;
}
/** `(expr).field` on a struct result. */
export interface FieldAccess extends Node {
  readonly kind: 'fieldAccess';
  readonly expr: Expr;
  readonly field: string;
}
/** `x[i]`. */
export interface IndexExpr extends Node {
  readonly kind: 'index';
  readonly expr: Expr;
  readonly index: Expr;
}
/** `[a, b, c]`, or `ARRAY[a, b, c]` (`named`). */
export interface ArrayExpr extends Node {
  readonly kind: 'array';
  readonly items: readonly Expr[];
  readonly named?: boolean;
}
/** `EXTRACT(YEAR FROM x)`; `field` upper case. */
export interface ExtractExpr extends Node {
  readonly kind: 'extract';
  readonly field: string;
  readonly expr: Expr;
}
/** `POSITION(needle IN haystack)`. */
export interface PositionExpr extends Node {
  readonly kind: 'position';
  readonly needle: Expr;
  readonly haystack: Expr;
}
/** `SUBSTRING(x FROM a FOR b)`; the comma form `substring(x, a, b)` is a plain FunctionCall. */
export interface SubstringExpr extends Node {
  readonly kind: 'substring';
  readonly expr: Expr;
  readonly from?: Expr;
  readonly for?: Expr;
}
/** `TRIM([BOTH | LEADING | TRAILING] [chars] FROM x)`, `TRIM(x)`, `TRIM(x, chars)`. */
export interface TrimExpr extends Node {
  readonly kind: 'trim';
  readonly expr: Expr;
  readonly where?: 'BOTH' | 'LEADING' | 'TRAILING';
  readonly chars?: Expr;
}
/**
 * `ROLLUP (a, (b, c))`, `CUBE (...)`, `GROUPING SETS ((a), (a, b), ())`: only as GROUP BY items.
 * Each element is the list of expressions of one parenthesised group (one for a bare expression).
 */
export interface GroupingExpr extends Node {
  readonly kind: 'rollup' | 'cube' | 'groupingSets';
  readonly sets: readonly (readonly Expr[])[];
}

export type Expr =
  | Literal
  | Variable
  | ColumnRef
  | Wildcard
  | UnaryExpr
  | BinaryExpr
  | IsExpr
  | IsDistinctFrom
  | InList
  | InSubquery
  | Between
  | Like
  | CaseExpr
  | CastExpr
  | FunctionCall
  | SubqueryExpr
  | ExistsExpr
  | FieldAccess
  | IndexExpr
  | ArrayExpr
  | ExtractExpr
  | PositionExpr
  | SubstringExpr
  | TrimExpr
  | GroupingExpr;

/** `expr [ASC | DESC] [NULLS FIRST | LAST]`; absent flags were not written. */
export interface OrderByExpr {
  readonly expr: Expr;
  readonly asc?: boolean;
  readonly nullsFirst?: boolean;
}

/** `OVER (w PARTITION BY ... ORDER BY ... ROWS ...)`; `OVER w` has only `baseName`. */
export interface WindowSpec {
  readonly baseName?: string;
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderByExpr[];
  readonly frame?: WindowFrame;
}
/** `ROWS start` or `ROWS BETWEEN start AND end`. */
export interface WindowFrame {
  readonly units: 'ROWS' | 'RANGE' | 'GROUPS';
  readonly start: FrameBound;
  readonly end?: FrameBound;
}
/** `offset` absent means UNBOUNDED. */
export type FrameBound =
  | { readonly kind: 'currentRow' }
  | { readonly kind: 'preceding' | 'following'; readonly offset?: Expr };

// ---------------------------------------------------------------------------------------------
// Queries

export interface Query extends Node {
  readonly kind: 'query';
  readonly with?: With;
  readonly body: QueryBody;
  readonly orderBy: readonly OrderByExpr[];
  readonly limit?: Expr;
  readonly offset?: Expr;
}
export interface With {
  readonly recursive: boolean;
  readonly ctes: readonly Cte[];
}
export interface Cte extends Node {
  readonly name: string;
  readonly columns: readonly string[];
  readonly query: Query;
}

export type QueryBody = Select | SetOperation | Values | NestedQuery;

export interface Select extends Node {
  readonly kind: 'select';
  /** `SELECT DISTINCT`; `SELECT ALL` reads as not distinct. */
  readonly distinct: boolean;
  readonly items: readonly SelectItem[];
  /** Comma-separated FROM entries, each with its JOINs. */
  readonly from: readonly TableWithJoins[];
  readonly where?: Expr;
  readonly groupBy: readonly Expr[];
  readonly having?: Expr;
  readonly windows: readonly NamedWindow[];
}
export interface SelectItem {
  readonly expr: Expr;
  readonly alias?: string;
}
export interface NamedWindow {
  readonly name: string;
  readonly spec: WindowSpec;
}
/** `left UNION [ALL] right`; UNION DISTINCT reads as `all: false`. */
export interface SetOperation extends Node {
  readonly kind: 'setOperation';
  readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT';
  readonly all: boolean;
  readonly left: QueryBody;
  readonly right: QueryBody;
}
export interface Values extends Node {
  readonly kind: 'values';
  readonly rows: readonly (readonly Expr[])[];
}
/** A parenthesised query used as a query body: `(SELECT ... LIMIT 1) UNION ...`. */
export interface NestedQuery extends Node {
  readonly kind: 'nestedQuery';
  readonly query: Query;
}

export interface TableWithJoins {
  readonly relation: TableFactor;
  readonly joins: readonly Join[];
}
export interface TableAlias {
  readonly name: string;
  readonly columns: readonly string[];
}
/** A table or view; with `args`, a table function call `f(a, b)`. */
export interface TableRef extends Node {
  readonly kind: 'table';
  readonly name: ObjectName;
  readonly args?: readonly Expr[];
  readonly alias?: TableAlias;
}
export interface DerivedTable extends Node {
  readonly kind: 'derived';
  readonly query: Query;
  readonly alias?: TableAlias;
}
export interface NestedJoin extends Node {
  readonly kind: 'nestedJoin';
  readonly join: TableWithJoins;
  readonly alias?: TableAlias;
}
export type TableFactor = TableRef | DerivedTable | NestedJoin;

export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';
/** A JOIN; with neither `on` nor `using` an inner join is a cross join, as in DataFusion. */
export interface Join extends Node {
  readonly type: JoinType;
  readonly relation: TableFactor;
  readonly on?: Expr;
  readonly using?: readonly string[];
}
