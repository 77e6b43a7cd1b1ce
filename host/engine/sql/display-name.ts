// The name DataFusion 27 gives an unaliased expression as a result column (Expr::display_name /
// create_name in datafusion/expr/src/expr.rs), computed on the AST before planning. The planner
// knows the types and the tables, so literal typing and column qualification are hooks it can
// replace; the defaults are inferred from DataFusion's SQL planner (host/engine/README.md lists
// what was inferred and how sure it is).

import type { ColumnRef, DataType, Expr, FunctionCall, Literal, OrderByExpr, WindowFrame, WindowSpec } from './ast.js';
import { displayPrecedence, formatRustF64, INTERVAL_UNITS, operatorText } from '../types/index.js';
import { printExpr } from './printer-expressions.js';

export interface DisplayNameHooks {
  /** Names a literal (`negated`: written with a unary minus, which DataFusion folds in). */
  readonly literal?: (literal: Literal, negated: boolean) => string;
  /** Names a column reference; the planner returns the qualified `table.column` it resolved. */
  readonly column?: (column: ColumnRef) => string;
}

/** DataFusion 27's AggregateFunction Display (its `name()`): upper case with underscores, as CnosDB's
 *  sqlancer case shows (`Valid fields are "BIT_AND((- m3.t0))"`). */
const AGGREGATES: Readonly<Record<string, string>> = {
  count: 'COUNT',
  sum: 'SUM',
  min: 'MIN',
  max: 'MAX',
  avg: 'AVG',
  mean: 'AVG',
  median: 'MEDIAN',
  approx_distinct: 'APPROX_DISTINCT',
  array_agg: 'ARRAY_AGG',
  var: 'VARIANCE',
  var_samp: 'VARIANCE',
  var_pop: 'VARIANCE_POP',
  stddev: 'STDDEV',
  stddev_samp: 'STDDEV',
  stddev_pop: 'STDDEV_POP',
  covar: 'COVARIANCE',
  covar_samp: 'COVARIANCE',
  covar_pop: 'COVARIANCE_POP',
  corr: 'CORRELATION',
  approx_percentile_cont: 'APPROX_PERCENTILE_CONT',
  approx_percentile_cont_with_weight: 'APPROX_PERCENTILE_CONT_WITH_WEIGHT',
  approx_median: 'APPROX_MEDIAN',
  grouping: 'GROUPING',
  bit_and: 'BIT_AND',
  bit_or: 'BIT_OR',
  bit_xor: 'BIT_XOR',
  bool_and: 'BOOL_AND',
  bool_or: 'BOOL_OR',
  regr_slope: 'REGR_SLOPE',
  regr_intercept: 'REGR_INTERCEPT',
  regr_count: 'REGR_COUNT',
  regr_r2: 'REGR_R2',
  regr_avgx: 'REGR_AVGX',
  regr_avgy: 'REGR_AVGY',
  regr_sxx: 'REGR_SXX',
  regr_syy: 'REGR_SYY',
  regr_sxy: 'REGR_SXY',
};
/** Built-in window functions display their SQL name upper case. */
const WINDOW_FUNCTIONS = new Set([
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);
/** Arrow type names for CAST inside Display forms. */
const ARROW_TYPES: Readonly<Record<string, string>> = {
  BIGINT: 'Int64',
  INT: 'Int32',
  INTEGER: 'Int32',
  SMALLINT: 'Int16',
  TINYINT: 'Int8',
  DOUBLE: 'Float64',
  FLOAT: 'Float32',
  REAL: 'Float32',
  STRING: 'Utf8',
  VARCHAR: 'Utf8',
  CHAR: 'Utf8',
  TEXT: 'Utf8',
  BOOLEAN: 'Boolean',
  TIMESTAMP: 'Timestamp(Nanosecond, None)',
  DATE: 'Date32',
  TIME: 'Time64(Nanosecond)',
  INTERVAL: 'Interval(MonthDayNano)',
  GEOMETRY: 'Utf8',
};

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

// Rust's `{}` for f64 lives with the other float texts of the output formats.
export { formatRustF64 };

function intervalUnit(word: string): readonly [number, number, number] | undefined {
  const w = word.toLowerCase();
  return (
    INTERVAL_UNITS[w] ?? INTERVAL_UNITS[w.replace(/s$/, '')] ?? (w === 'centuries' ? INTERVAL_UNITS.century : undefined)
  );
}

/**
 * The IntervalMonthDayNano value (as i128: months << 96 | days << 64 | nanos) that arrow-cast 42
 * gives `text` such as '1 minute', '1 day 2 hours' or '1.5 hours'; a bare number is in
 * `defaultUnit`. Fractional months spill into 30-day days and fractional days into nanoseconds,
 * as arrow does. Undefined when the text is not an interval.
 */
export function intervalMonthDayNano(text: string, defaultUnit = 'second', negate = false): bigint | undefined {
  const words = text.trim().split(/\s+/);
  if (words.length === 0 || words[0] === '') return undefined;
  if (words.length % 2 === 1) words.push(defaultUnit);
  let months = 0n;
  let days = 0n;
  let nanos = 0n;
  for (let i = 0; i < words.length; i += 2) {
    const amount = Number(words[i]);
    const unit = intervalUnit(words[i + 1]!);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(words[i]!) || unit === undefined) return undefined;
    const month = amount * unit[0];
    let day = amount * unit[1] + (month - Math.trunc(month)) * 30;
    const nano = amount * unit[2] + (day - Math.trunc(day)) * 8.64e13;
    day = Math.trunc(day);
    months += BigInt(Math.trunc(month));
    days += BigInt(day);
    nanos += BigInt(Math.trunc(nano));
  }
  if (negate) [months, days, nanos] = [-months, -days, -nanos];
  const packed = (BigInt.asUintN(32, months) << 96n) | (BigInt.asUintN(32, days) << 64n) | BigInt.asUintN(64, nanos);
  return BigInt.asIntN(128, packed);
}

/** The type DataFusion's SQL planner gives a number: Int64, else UInt64, else Float64. */
function numberName(text: string): string {
  if (/^-?\d+$/.test(text)) {
    const value = BigInt(text);
    if (value >= I64_MIN && value <= I64_MAX) return `Int64(${value})`;
    if (value >= 0n && value <= U64_MAX) return `UInt64(${value})`;
  }
  return `Float64(${formatRustF64(Number(text))})`;
}

/**
 * DataFusion 27's ScalarValue Debug form of a literal before type coercion: `Int64(1)`,
 * `UInt64(18446744073709551615)`, `Float64(1.5)`, `Utf8("x")` (no escaping, as DataFusion),
 * `Boolean(true)`, `NULL`, `IntervalMonthDayNano("60000000000")`. A typed string is a CAST of a
 * Utf8 literal, and CAST does not change a name.
 */
export function defaultLiteralName(literal: Literal, negated = false): string {
  switch (literal.kind) {
    case 'number':
      return numberName(negated ? `-${literal.text}` : literal.text);
    case 'string':
      return `Utf8("${literal.value}")`;
    case 'typedString':
      return `Utf8("${literal.value}")`;
    case 'boolean':
      return `Boolean(${literal.value})`;
    case 'null':
      return 'NULL';
    case 'interval': {
      const value =
        literal.value.kind === 'string' || literal.value.kind === 'number'
          ? literal.value.kind === 'string'
            ? literal.value.value
            : literal.value.text
          : undefined;
      const packed = value === undefined ? undefined : intervalMonthDayNano(value, literal.unit ?? 'second', negated);
      return packed === undefined ? printExpr(literal) : `IntervalMonthDayNano("${packed}")`;
    }
  }
}

function isLiteral(e: Expr): e is Literal {
  return (
    e.kind === 'number' ||
    e.kind === 'string' ||
    e.kind === 'boolean' ||
    e.kind === 'null' ||
    e.kind === 'interval' ||
    e.kind === 'typedString'
  );
}

class Namer {
  readonly #literal: (literal: Literal, negated: boolean) => string;
  readonly #column: (column: ColumnRef) => string;

  constructor(hooks: DisplayNameHooks) {
    this.#literal = hooks.literal ?? defaultLiteralName;
    this.#column = hooks.column ?? ((c) => c.parts.join('.'));
  }

  /** create_name: the column name. */
  name(e: Expr): string {
    if (isLiteral(e)) return this.#literal(e, false);
    switch (e.kind) {
      case 'variable':
        return e.name;
      case 'column':
        return this.#column(e);
      case 'wildcard':
        return e.qualifier === undefined ? '*' : `${e.qualifier.join('.')}.*`;
      case 'unary':
        if (e.op === '+') return this.name(e.expr);
        if (e.op === 'NOT') return `NOT ${this.name(e.expr)}`;
        if (e.parenthesized !== true && (e.expr.kind === 'number' || e.expr.kind === 'interval'))
          return this.#literal(e.expr, true);
        return `(- ${this.name(e.expr)})`;
      case 'binary':
        return `${this.name(e.left)} ${operatorText(e.op)} ${this.name(e.right)}`;
      case 'isDistinctFrom':
        return `${this.name(e.left)} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${this.name(e.right)}`;
      case 'is':
        return `${this.name(e.expr)} IS ${e.negated ? 'NOT ' : ''}${e.test}`;
      case 'inList':
        // DataFusion 27 formats the unevaluated iterator with {:?}: a known quirk, kept.
        return `${this.name(e.expr)} ${e.negated ? 'NOT ' : ''}IN (Map { iter: Iter([${e.list.map((x) => this.debug(x)).join(', ')}]) })`;
      case 'inSubquery':
        return e.negated ? 'NOT IN' : 'IN';
      case 'exists':
        return e.negated ? 'NOT EXISTS' : 'EXISTS';
      case 'subquery': {
        const body = e.query.body;
        const first = body.kind === 'select' ? body.items[0] : undefined;
        return first === undefined ? '?column?' : (first.alias ?? this.name(first.expr));
      }
      case 'between':
        return `${this.name(e.expr)} ${e.negated ? 'NOT ' : ''}BETWEEN ${this.name(e.low)} AND ${this.name(e.high)}`;
      case 'like': {
        const op = `${e.negated ? 'NOT ' : ''}${e.op}`;
        const escapeClause =
          e.escape === undefined
            ? ''
            : `CHAR '${e.escape.kind === 'string' ? e.escape.value : this.display(e.escape)}'`;
        return `${this.display(e.expr)} ${op} ${this.display(e.pattern)} ${escapeClause}`;
      }
      case 'case': {
        let text = e.operand === undefined ? 'CASE ' : `CASE ${this.name(e.operand)} `;
        for (const { when, then } of e.whens) text += `WHEN ${this.name(when)} THEN ${this.name(then)} `;
        if (e.elseResult !== undefined) text += `ELSE ${this.name(e.elseResult)} `;
        return `${text}END`;
      }
      case 'cast':
        return this.name(e.expr);
      case 'function':
        // DataFusion plans arrow_cast(x, 'T') as a CAST, which names itself after x.
        if (e.name === 'arrow_cast' && e.args.length === 2 && e.over === undefined) return this.name(e.args[0]!);
        return this.functionName(e);
      case 'fieldAccess':
        return `${this.name(e.expr)}[${e.field}]`;
      case 'index': {
        // GetIndexedField shows its key with ScalarValue's Display: `x[1]`, not `x[Int64(1)]`.
        const key =
          e.index.kind === 'number' ? e.index.text : e.index.kind === 'string' ? e.index.value : this.display(e.index);
        return `${this.name(e.expr)}[${key}]`;
      }
      case 'array':
        return `make_array(${e.items.map((x) => this.name(x)).join(',')})`;
      case 'extract':
        return `date_part(Utf8("${e.field}"),${this.name(e.expr)})`;
      case 'position':
        return `strpos(${this.name(e.haystack)},${this.name(e.needle)})`;
      case 'substring': {
        const names = [this.name(e.expr)];
        if (e.from !== undefined) names.push(this.name(e.from));
        else if (e.for !== undefined) names.push('Int64(1)');
        if (e.for !== undefined) names.push(this.name(e.for));
        return `substr(${names.join(',')})`;
      }
      case 'trim': {
        const fn = e.where === 'LEADING' ? 'ltrim' : e.where === 'TRAILING' ? 'rtrim' : 'btrim';
        const args = e.chars === undefined ? [e.expr] : [e.expr, e.chars];
        return `${fn}(${args.map((x) => this.name(x)).join(',')})`;
      }
      case 'rollup':
      case 'cube':
        return `${e.kind.toUpperCase()} (${e.sets
          .flat()
          .map((x) => this.name(x))
          .join(', ')})`;
      case 'groupingSets':
        return `GROUPING SETS (${e.sets.map((set) => `(${set.map((x) => this.name(x)).join(', ')})`).join(', ')})`;
    }
  }

  functionName(f: FunctionCall): string {
    const aggregate = AGGREGATES[f.name];
    const window = WINDOW_FUNCTIONS.has(f.name);
    const display = aggregate ?? (window && f.over !== undefined ? f.name.toUpperCase() : f.name);
    // count(*) and count(<number>) read as COUNT(UInt8(1)) (COUNT_STAR_EXPANSION).
    const args = f.args.map((a) =>
      aggregate === 'COUNT' && (a.kind === 'wildcard' || a.kind === 'number') ? 'UInt8(1)' : this.name(a),
    );
    let text = `${display}(${f.distinct ? 'DISTINCT ' : ''}${args.join(',')})`;
    if (f.filter !== undefined) text += ` FILTER (WHERE ${this.display(f.filter)})`;
    if (f.orderBy.length > 0) text += ` ORDER BY [${f.orderBy.map((o) => this.sort(o)).join(', ')}]`;
    if (f.over !== undefined) text += this.window(f.over);
    return text;
  }

  /** ` PARTITION BY [..] ORDER BY [..] <frame>`, with DataFusion's default frame. */
  window(w: WindowSpec): string {
    let text = '';
    if (w.partitionBy.length > 0) text += ` PARTITION BY [${w.partitionBy.map((x) => this.display(x)).join(', ')}]`;
    if (w.orderBy.length > 0) text += ` ORDER BY [${w.orderBy.map((o) => this.sort(o)).join(', ')}]`;
    return `${text} ${this.frame(w.frame, w.orderBy.length > 0)}`;
  }

  frame(frame: WindowFrame | undefined, ordered: boolean): string {
    if (frame === undefined) {
      return ordered
        ? 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'
        : 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING';
    }
    const bound = (b: WindowFrame['start']): string => {
      if (b.kind === 'currentRow') return 'CURRENT ROW';
      const direction = b.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING';
      if (b.offset === undefined) return `UNBOUNDED ${direction}`;
      return `${b.offset.kind === 'number' ? b.offset.text : this.display(b.offset)} ${direction}`;
    };
    return `${frame.units} BETWEEN ${bound(frame.start)} AND ${bound(frame.end ?? { kind: 'currentRow' })}`;
  }

  /** Sort Display: ASC unless written DESC; NULLS FIRST exactly when descending, unless written. */
  sort(o: OrderByExpr): string {
    const asc = o.asc ?? true;
    const nullsFirst = o.nullsFirst ?? !asc;
    return `${this.display(o.expr)} ${asc ? 'ASC' : 'DESC'} ${nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`;
  }

  /** Expr's Display form (used inside FILTER, windows and LIKE): like create_name, with casts shown. */
  display(e: Expr): string {
    switch (e.kind) {
      case 'binary': {
        const p = displayPrecedence(e.op);
        const child = (c: Expr): string => {
          if (c.kind !== 'binary') return this.display(c);
          const cp = displayPrecedence(c.op);
          return cp === 0 || cp < p ? `(${this.display(c)})` : this.display(c);
        };
        return `${child(e.left)} ${operatorText(e.op)} ${child(e.right)}`;
      }
      case 'cast':
        return `${e.try ? 'TRY_CAST' : 'CAST'}(${this.display(e.expr)} AS ${arrowType(e.dataType)})`;
      case 'inList':
        return `${this.display(e.expr)} ${e.negated ? 'NOT ' : ''}IN ([${e.list.map((x) => this.display(x)).join(', ')}])`;
      case 'unary':
        if (e.op === 'NOT') return `NOT ${this.display(e.expr)}`;
        return this.name(e);
      default:
        return this.name(e);
    }
  }

  /** Expr's derived Debug form, which DataFusion 27 prints inside IN-list names. */
  debug(e: Expr): string {
    if (isLiteral(e)) return `Literal(${this.#literal(e, false)})`;
    if (
      e.kind === 'unary' &&
      e.op === '-' &&
      e.parenthesized !== true &&
      (e.expr.kind === 'number' || e.expr.kind === 'interval')
    )
      return `Literal(${this.#literal(e.expr, true)})`;
    if (e.kind === 'column') {
      const parts = this.#column(e).split('.');
      const name = parts.pop()!;
      const relation =
        parts.length === 0
          ? 'None'
          : parts.length === 1
            ? `Some(Bare { table: "${parts[0]}" })`
            : `Some(Partial { schema: "${parts[0]}", table: "${parts[1]}" })`;
      return `Column(Column { relation: ${relation}, name: "${name}" })`;
    }
    return this.display(e);
  }
}

function arrowType(t: DataType): string {
  if (t.name === 'BIGINT' && t.unsigned) return 'UInt64';
  if ((t.name === 'DECIMAL' || t.name === 'NUMERIC') && t.params.length > 0)
    return `Decimal128(${t.params[0]}, ${t.params[1] ?? '0'})`;
  return ARROW_TYPES[t.name] ?? t.name;
}

/**
 * The result-column name DataFusion 27 gives `expr` when it has no alias, e.g. `Int64(1)`,
 * `NOT Boolean(true)`, `Float64(3) / Int64(5)`, `COUNT(UInt8(1))`, `SUM(t.v)`,
 * `date_bin(IntervalMonthDayNano("60000000000"),t.time)`. Aggregates are upper case, other
 * functions as written (lowercased), function arguments joined by "," without a space, CAST
 * transparent. Pass `hooks` to type literals and qualify columns as the planner resolved them.
 */
export function exprDisplayName(expr: Expr, hooks: DisplayNameHooks = {}): string {
  return new Namer(hooks).name(expr);
}
