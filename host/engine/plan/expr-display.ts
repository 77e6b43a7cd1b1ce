// Two texts of a typed expression, after DataFusion 27 (datafusion/expr/src/expr.rs):
// `exprName` is `create_name`, the name of an unaliased result column (`Int64(1)`,
// `COUNT(UInt8(1))`, `date_bin(IntervalMonthDayNano("60000000000"),cpu.time)`; implicit casts
// are transparent), and `exprDisplay` is `Display`, used by EXPLAIN and in messages (casts shown,
// parentheses by precedence). Literals print as ScalarValue's Debug form in both.

import { displayPrecedence, formatRustF64, intervalText, literalName, operatorText, typeName } from '../types/index.js';
import type { FrameBoundSpec, LExpr, SortExpr, WindowFrameSpec } from './expr.js';
import { flatName } from './plan-schema.js';

function sortText(o: SortExpr, show: (e: LExpr) => string): string {
  return `${show(o.expr)} ${o.asc ? 'ASC' : 'DESC'} ${o.nullsFirst ? 'NULLS FIRST' : 'NULLS LAST'}`;
}

function frameText(frame: WindowFrameSpec | undefined, ordered: boolean): string {
  if (frame === undefined)
    return ordered
      ? 'RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'
      : 'ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING';
  const bound = (b: FrameBoundSpec, isStart: boolean): string => {
    if (b.kind === 'unbounded') return isStart ? 'UNBOUNDED PRECEDING' : 'UNBOUNDED FOLLOWING';
    if (b.kind === 'current') return 'CURRENT ROW';
    const v = typeof b.offset === 'number' ? formatRustF64(b.offset) : intervalText(b.offset);
    return `${v} ${b.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING'}`;
  };
  return `${frame.units} BETWEEN ${bound(frame.start, true)} AND ${bound(frame.end, false)}`;
}

function windowSuffix(e: Extract<LExpr, { kind: 'windowFn' }>, show: (e: LExpr) => string): string {
  let text = '';
  if (e.partitionBy.length > 0) text += ` PARTITION BY [${e.partitionBy.map(show).join(', ')}]`;
  if (e.orderBy.length > 0) text += ` ORDER BY [${e.orderBy.map((o) => sortText(o, show)).join(', ')}]`;
  return `${text} ${frameText(e.frame, e.orderBy.length > 0)}`;
}

function aggregateText(e: Extract<LExpr, { kind: 'aggregate' }>, show: (e: LExpr) => string): string {
  const args = e.star ? 'UInt8(1)' : e.args.map(show).join(',');
  let text = `${e.fn.displayName}(${e.distinct ? 'DISTINCT ' : ''}${args})`;
  if (e.filter !== undefined) text += ` FILTER (WHERE ${exprDisplay(e.filter)})`;
  if (e.orderBy.length > 0) text += ` ORDER BY [${e.orderBy.map((o) => sortText(o, exprDisplay)).join(', ')}]`;
  return text;
}

/** DataFusion's create_name: the name of an unaliased result column. */
export function exprName(e: LExpr): string {
  switch (e.kind) {
    case 'column':
      return flatName(e.qualifier, e.name);
    case 'outerColumn':
      return `outer_ref(${flatName(e.qualifier, e.name)})`;
    case 'literal':
      return literalName(e.value, e.type);
    case 'alias':
      return e.name;
    case 'cast':
      return exprName(e.expr);
    case 'binary':
      return `${exprName(e.left)} ${operatorText(e.op)} ${exprName(e.right)}`;
    case 'not':
      return `NOT ${exprName(e.expr)}`;
    case 'negative':
      return `(- ${exprName(e.expr)})`;
    case 'isNull':
      return `${exprName(e.expr)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'isBool':
      return `${exprName(e.expr)} IS ${e.negated ? 'NOT ' : ''}${e.test}`;
    case 'inList':
      // DataFusion 27 formats the unevaluated iterator with {:?}: a known quirk, kept.
      return `${exprName(e.expr)} ${e.negated ? 'NOT ' : ''}IN (Map { iter: Iter([${e.list.map(exprDebug).join(', ')}]) })`;
    case 'between':
      return `${exprName(e.expr)} ${e.negated ? 'NOT ' : ''}BETWEEN ${exprName(e.low)} AND ${exprName(e.high)}`;
    case 'like':
      return `${sqlDisplay(e.expr)} ${e.negated ? 'NOT ' : ''}${e.caseInsensitive ? 'ILIKE' : 'LIKE'} ${sqlDisplay(e.pattern)} ${e.escape === undefined ? '' : `CHAR '${e.escape}'`}`;
    case 'case': {
      let text = e.operand === undefined ? 'CASE ' : `CASE ${exprName(e.operand)} `;
      for (const { when, then } of e.whens) text += `WHEN ${exprName(when)} THEN ${exprName(then)} `;
      if (e.elseResult !== undefined) text += `ELSE ${exprName(e.elseResult)} `;
      return `${text}END`;
    }
    case 'scalarFn':
      if (e.fn.opaque === true) return e.fn.name;
      return `${e.fn.name}(${e.args.map(exprName).join(',')})`;
    case 'aggregate':
      return aggregateText(e, exprName);
    case 'windowFn': {
      const name = e.fn.kind === 'aggregate' ? e.fn.displayName : e.fn.name.toUpperCase();
      const args = e.star === true ? 'UInt8(1)' : e.args.map(exprName).join(',');
      return `${name}(${e.distinct === true ? 'DISTINCT ' : ''}${args})${windowSuffix(e, exprDisplay)}`;
    }
    case 'scalarSubquery': {
      const first = e.plan.schema.fields[0];
      return first === undefined ? '?column?' : first.name;
    }
    case 'exists':
      return e.negated ? 'NOT EXISTS' : 'EXISTS';
    case 'inSubquery':
      return e.negated ? 'NOT IN' : 'IN';
    case 'getField':
      return `${exprName(e.expr)}[${e.field}]`;
  }
}

/** DataFusion's derived Debug form of an expression, shown inside IN-list names. */
/** DataFusion 27's Operator Debug names. */
const OPERATOR_DEBUG: Readonly<Record<string, string>> = {
  '=': 'Eq',
  '!=': 'NotEq',
  '<': 'Lt',
  '<=': 'LtEq',
  '>': 'Gt',
  '>=': 'GtEq',
  '+': 'Plus',
  '-': 'Minus',
  '*': 'Multiply',
  '/': 'Divide',
  '%': 'Modulo',
  AND: 'And',
  OR: 'Or',
  'IS DISTINCT FROM': 'IsDistinctFrom',
  'IS NOT DISTINCT FROM': 'IsNotDistinctFrom',
  '~': 'RegexMatch',
  '~*': 'RegexIMatch',
  '!~': 'RegexNotMatch',
  '!~*': 'RegexNotIMatch',
  '&': 'BitwiseAnd',
  '|': 'BitwiseOr',
  '^': 'BitwiseXor',
  '>>': 'BitwiseShiftRight',
  '<<': 'BitwiseShiftLeft',
  '||': 'StringConcat',
};

/** DataFusion 27's BuiltinScalarFunction variants whose names are not the SQL name in PascalCase. */
const BUILTIN_VARIANTS: Readonly<Record<string, string>> = {
  concat_ws: 'ConcatWithSeparator',
  initcap: 'InitCap',
  nullif: 'NullIf',
  md5: 'MD5',
  sha224: 'SHA224',
  sha256: 'SHA256',
  sha384: 'SHA384',
  sha512: 'SHA512',
};

/** The SQL names of DataFusion 27's built-in scalar functions (CnosDB's own are UDFs). */
const BUILTIN_SCALARS = new Set(
  (
    'abs acos asin atan atan2 acosh asinh atanh cbrt ceil cos cot cosh degrees exp factorial floor gcd lcm ln log log10 ' +
    'log2 nanvl pi power radians round signum sin sinh sqrt tan tanh trunc isnan iszero random uuid ascii bit_length ' +
    'btrim character_length chr concat concat_ws date_bin date_part date_trunc from_unixtime initcap left lpad lower ' +
    'ltrim md5 nullif octet_length regexp_match regexp_replace repeat replace reverse right rpad rtrim sha224 sha256 ' +
    'sha384 sha512 split_part starts_with strpos substr to_hex to_timestamp to_timestamp_millis to_timestamp_micros ' +
    'to_timestamp_seconds now current_date current_time translate trim upper coalesce digest arrow_typeof struct encode decode'
  ).split(' '),
);

function builtinVariant(name: string): string {
  return (
    BUILTIN_VARIANTS[name] ??
    name
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('')
  );
}

/**
 * Expr's derived Debug form, which DataFusion 27 prints inside IN-list names. It formats the
 * expression as the SQL planner built it, before type coercion: implicit casts are left out.
 * Kinds without a known form print as Display.
 */
function exprDebug(e: LExpr): string {
  const inner = e;
  const d = exprDebug;
  switch (inner.kind) {
    case 'cast': {
      if (inner.implicit === true) return d(inner.expr);
      const kind = inner.try ? 'TryCast' : 'Cast';
      return `${kind}(${kind} { expr: ${d(inner.expr)}, data_type: ${typeName(inner.type)} })`;
    }
    case 'literal':
      return `Literal(${literalName(inner.value, inner.type)})`;
    case 'column': {
      const parts = inner.qualifier === undefined ? [] : inner.qualifier.split('.');
      const relation =
        parts.length === 0
          ? 'None'
          : parts.length === 1
            ? `Some(Bare { table: "${parts[0]}" })`
            : `Some(Partial { schema: "${parts[0]}", table: "${parts[1]}" })`;
      return `Column(Column { relation: ${relation}, name: "${inner.name}" })`;
    }
    case 'binary': {
      const op = OPERATOR_DEBUG[inner.op];
      if (op === undefined) break;
      return `BinaryExpr(BinaryExpr { left: ${d(inner.left)}, op: ${op}, right: ${d(inner.right)} })`;
    }
    case 'not':
      return `Not(${d(inner.expr)})`;
    case 'negative':
      return `Negative(${d(inner.expr)})`;
    case 'isNull':
      return `${inner.negated ? 'IsNotNull' : 'IsNull'}(${d(inner.expr)})`;
    case 'isBool': {
      const test = inner.test.charAt(0) + inner.test.slice(1).toLowerCase();
      return `Is${inner.negated ? 'Not' : ''}${test}(${d(inner.expr)})`;
    }
    case 'between':
      return `Between(Between { expr: ${d(inner.expr)}, negated: ${inner.negated}, low: ${d(inner.low)}, high: ${d(inner.high)} })`;
    case 'inList':
      return `InList(InList { expr: ${d(inner.expr)}, list: [${inner.list.map(d).join(', ')}], negated: ${inner.negated} })`;
    case 'case': {
      const whens = inner.whens.map((w) => `(${d(w.when)}, ${d(w.then)})`).join(', ');
      const opt = (x: LExpr | undefined): string => (x === undefined ? 'None' : `Some(${d(x)})`);
      return `Case(Case { expr: ${opt(inner.operand)}, when_then_expr: [${whens}], else_expr: ${opt(inner.elseResult)} })`;
    }
    case 'scalarFn':
      if (!BUILTIN_SCALARS.has(inner.fn.name)) break;
      return `ScalarFunction(ScalarFunction { fun: ${builtinVariant(inner.fn.name)}, args: [${inner.args.map(d).join(', ')}] })`;
    default:
      break;
  }
  return exprDisplay(inner);
}

/** DataFusion's Display of an expression (EXPLAIN, messages). */
export function exprDisplay(e: LExpr): string {
  return display(e, false);
}

/**
 * An expression's Display as DataFusion builds it from SQL, before its analyzer adds the implicit
 * casts: the text names embed (`x LIKE y`, FILTER clauses).
 */
function sqlDisplay(e: LExpr): string {
  return display(e, true);
}

function display(e: LExpr, hideImplicit: boolean): string {
  const exprDisplay = (x: LExpr): string => display(x, hideImplicit);
  switch (e.kind) {
    case 'alias':
      return `${exprDisplay(e.expr)} AS ${e.name}`;
    case 'cast':
      if (hideImplicit && e.implicit === true) return exprDisplay(e.expr);
      return `${e.try ? 'TRY_CAST' : 'CAST'}(${exprDisplay(e.expr)} AS ${typeName(e.type)})`;
    case 'binary': {
      const p = displayPrecedence(e.op);
      const child = (c: LExpr): string => {
        if (c.kind !== 'binary') return exprDisplay(c);
        const cp = displayPrecedence(c.op);
        return cp === 0 || cp < p ? `(${exprDisplay(c)})` : exprDisplay(c);
      };
      return `${child(e.left)} ${operatorText(e.op)} ${child(e.right)}`;
    }
    case 'not':
      return `NOT ${exprDisplay(e.expr)}`;
    case 'negative':
      return `(- ${exprDisplay(e.expr)})`;
    case 'isNull':
      return `${exprDisplay(e.expr)} IS ${e.negated ? 'NOT ' : ''}NULL`;
    case 'isBool':
      return `${exprDisplay(e.expr)} IS ${e.negated ? 'NOT ' : ''}${e.test}`;
    case 'inList':
      return `${exprDisplay(e.expr)} ${e.negated ? 'NOT ' : ''}IN ([${e.list.map(exprDisplay).join(', ')}])`;
    case 'between':
      return `${exprDisplay(e.expr)} ${e.negated ? 'NOT ' : ''}BETWEEN ${exprDisplay(e.low)} AND ${exprDisplay(e.high)}`;
    case 'case': {
      let text = e.operand === undefined ? 'CASE ' : `CASE ${exprDisplay(e.operand)} `;
      for (const { when, then } of e.whens) text += `WHEN ${exprDisplay(when)} THEN ${exprDisplay(then)} `;
      if (e.elseResult !== undefined) text += `ELSE ${exprDisplay(e.elseResult)} `;
      return `${text}END`;
    }
    case 'scalarFn':
      if (e.fn.opaque === true) return e.fn.name;
      return `${e.fn.name}(${e.args.map(exprDisplay).join(', ')})`;
    case 'aggregate':
      return aggregateText(e, exprDisplay);
    case 'windowFn': {
      const name = e.fn.kind === 'aggregate' ? e.fn.displayName : e.fn.name.toUpperCase();
      return `${name}(${e.args.map(exprDisplay).join(', ')})${windowSuffix(e, exprDisplay)}`;
    }
    case 'scalarSubquery':
      return '(<subquery>)';
    case 'exists':
      return `${e.negated ? 'NOT ' : ''}EXISTS (<subquery>)`;
    case 'inSubquery':
      return `${exprDisplay(e.expr)} ${e.negated ? 'NOT ' : ''}IN (<subquery>)`;
    default:
      return exprName(e);
  }
}
