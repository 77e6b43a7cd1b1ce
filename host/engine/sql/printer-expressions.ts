// Canonical SQL text of expressions and of the queries they nest (one file, as the two recurse
// into each other): keywords upper case, identifiers quoted only when needed, parentheses only
// where precedence needs them (the AST keeps none), so that parse(print(e)) equals e. The precedence levels are the parser's (parser-expressions.ts PREC).

import type {
  BinaryOp,
  Expr,
  FrameBound,
  FunctionCall,
  OrderByExpr,
  Query,
  QueryBody,
  TableAlias,
  TableFactor,
  TableWithJoins,
  WindowSpec,
} from './ast.js';
import { formatDataType } from './parser-data-types.js';
import { PREC } from './parser-expressions.js';
import { RESERVED } from './tokens.js';

const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;
/** Words that read as something else where a name would stand (niladic functions). */
const QUOTED_NAMES = new Set(['current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp']);
/** Function names with a syntax of their own, or that a call's argument list would swallow. */
const SPECIAL_FUNCTIONS = new Set(['not', 'exists', 'case', 'cast', 'try_cast', 'interval', 'trim']);
/** Reserved words that still read as functions when followed by `(`. */
const RESERVED_FUNCTIONS = new Set(['left', 'right']);
/** Words the window-spec parser reads as clause starts, so a window base name must be quoted. */
const WINDOW_CLAUSE_NAMES = new Set(['partition', 'order', 'rows', 'range', 'groups']);

const BINARY_LEVEL: Readonly<Record<BinaryOp, number>> = {
  OR: PREC.OR,
  AND: PREC.AND,
  '=': PREC.COMPARE,
  '!=': PREC.COMPARE,
  '<': PREC.COMPARE,
  '<=': PREC.COMPARE,
  '>': PREC.COMPARE,
  '>=': PREC.COMPARE,
  '~': PREC.COMPARE,
  '~*': PREC.COMPARE,
  '!~': PREC.COMPARE,
  '!~*': PREC.COMPARE,
  '|': PREC.BIT_OR,
  '^': PREC.BIT_XOR,
  '<<': PREC.BIT_XOR,
  '>>': PREC.BIT_XOR,
  '&': PREC.BIT_AND,
  '||': PREC.CONCAT,
  '+': PREC.ADD,
  '-': PREC.ADD,
  '*': PREC.MUL,
  '/': PREC.MUL,
  '%': PREC.MUL,
};

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** An identifier, bare when it is lower-case [a-z_][a-z0-9_]* and not a reserved word. */
export function quoteIdent(name: string): string {
  return PLAIN_NAME.test(name) && !RESERVED.has(name.toUpperCase()) && !QUOTED_NAMES.has(name) ? name : quote(name);
}

export function printObjectName(parts: readonly string[]): string {
  return parts.map(quoteIdent).join('.');
}

export function printString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function functionName(name: string): string {
  if (!PLAIN_NAME.test(name) || SPECIAL_FUNCTIONS.has(name)) return quote(name);
  return RESERVED.has(name.toUpperCase()) && !RESERVED_FUNCTIONS.has(name) ? quote(name) : name;
}

/** The binding level of an expression's outermost operator; atoms are PREC.ATOM. */
export function exprLevel(e: Expr): number {
  switch (e.kind) {
    case 'binary':
      return BINARY_LEVEL[e.op];
    case 'unary':
      return e.op === 'NOT' ? PREC.NOT : PREC.UNARY;
    case 'is':
    case 'isDistinctFrom':
    case 'inList':
    case 'inSubquery':
    case 'between':
    case 'like':
      return PREC.COMPARE;
    case 'interval':
      return PREC.CAST;
    default:
      return PREC.ATOM;
  }
}

/** `e`, parenthesised when its level is below `min`. */
function operand(e: Expr, min: number): string {
  const text = printExpr(e);
  return exprLevel(e) < min ? `(${text})` : text;
}

function list(items: readonly Expr[]): string {
  return items.map(printExpr).join(', ');
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return e.text;
    case 'string':
      return printString(e.value);
    case 'boolean':
      return e.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
    case 'interval': {
      const value =
        e.value.kind === 'string' || e.value.kind === 'number' ? printExpr(e.value) : `(${printExpr(e.value)})`;
      return e.unit === undefined ? `INTERVAL ${value}` : `INTERVAL ${value} ${e.unit}`;
    }
    case 'typedString':
      return `${formatDataType(e.dataType)} ${printString(e.value)}`;
    case 'variable':
      return e.name;
    case 'column':
      return printObjectName(e.parts);
    case 'wildcard':
      return e.qualifier === undefined ? '*' : `${printObjectName(e.qualifier)}.*`;
    case 'unary': {
      if (e.op === 'NOT') return `NOT ${operand(e.expr, PREC.NOT)}`;
      const inner = printExpr(e.expr);
      return exprLevel(e.expr) <= PREC.UNARY ? `${e.op}(${inner})` : `${e.op}${inner}`;
    }
    case 'binary': {
      const level = BINARY_LEVEL[e.op];
      return `${operand(e.left, level)} ${e.op} ${operand(e.right, level + 1)}`;
    }
    case 'is':
      return `${operand(e.expr, PREC.COMPARE)} IS ${e.negated ? 'NOT ' : ''}${e.test}`;
    case 'isDistinctFrom':
      return `${operand(e.left, PREC.COMPARE)} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${operand(e.right, PREC.COMPARE + 1)}`;
    case 'inList':
      return `${operand(e.expr, PREC.COMPARE)} ${e.negated ? 'NOT ' : ''}IN (${list(e.list)})`;
    case 'inSubquery':
      return `${operand(e.expr, PREC.COMPARE)} ${e.negated ? 'NOT ' : ''}IN (${printQuery(e.query)})`;
    case 'between':
      return `${operand(e.expr, PREC.COMPARE)} ${e.negated ? 'NOT ' : ''}BETWEEN ${operand(e.low, PREC.COMPARE + 1)} AND ${operand(e.high, PREC.COMPARE + 1)}`;
    case 'like': {
      const text = `${operand(e.expr, PREC.COMPARE)} ${e.negated ? 'NOT ' : ''}${e.op} ${operand(e.pattern, PREC.COMPARE + 1)}`;
      return e.escape === undefined ? text : `${text} ESCAPE ${operand(e.escape, PREC.COMPARE + 1)}`;
    }
    case 'case': {
      let text = e.operand === undefined ? 'CASE' : `CASE ${printExpr(e.operand)}`;
      for (const { when, then } of e.whens) text += ` WHEN ${printExpr(when)} THEN ${printExpr(then)}`;
      if (e.elseResult !== undefined) text += ` ELSE ${printExpr(e.elseResult)}`;
      return `${text} END`;
    }
    case 'cast':
      return `${e.try ? 'TRY_CAST' : 'CAST'}(${printExpr(e.expr)} AS ${formatDataType(e.dataType)})`;
    case 'function':
      return printFunction(e);
    case 'subquery':
      return `(${printQuery(e.query)})`;
    case 'exists':
      return `${e.negated ? 'NOT ' : ''}EXISTS (${printQuery(e.query)})`;
    case 'fieldAccess':
      return `(${printExpr(e.expr)}).${quoteIdent(e.field)}`;
    case 'index':
      return `${operand(e.expr, PREC.POSTFIX)}[${printExpr(e.index)}]`;
    case 'array':
      return `${e.named === true ? 'ARRAY' : ''}[${list(e.items)}]`;
    case 'extract':
      return `EXTRACT(${e.field} FROM ${printExpr(e.expr)})`;
    case 'position':
      return `POSITION(${operand(e.needle, PREC.COMPARE + 1)} IN ${printExpr(e.haystack)})`;
    case 'substring': {
      let text = `SUBSTRING(${printExpr(e.expr)}`;
      if (e.from !== undefined) text += ` FROM ${printExpr(e.from)}`;
      if (e.for !== undefined) text += ` FOR ${printExpr(e.for)}`;
      return `${text})`;
    }
    case 'trim': {
      if (e.where === undefined && e.chars === undefined) return `TRIM(${printExpr(e.expr)})`;
      const parts = [e.where, e.chars === undefined ? undefined : printExpr(e.chars), 'FROM', printExpr(e.expr)];
      return `TRIM(${parts.filter((part) => part !== undefined).join(' ')})`;
    }
    case 'rollup':
    case 'cube':
      return `${e.kind.toUpperCase()} (${e.sets.map((set) => printGroupingElement(set, false)).join(', ')})`;
    case 'groupingSets':
      return `GROUPING SETS (${e.sets.map((set) => printGroupingElement(set, true)).join(', ')})`;
  }
}

/** A ROLLUP/CUBE element: bare when one expression that does not itself start with `(`. */
function printGroupingElement(set: readonly Expr[], alwaysParenthesised: boolean): string {
  const text = list(set);
  return alwaysParenthesised || set.length !== 1 || text.startsWith('(') ? `(${text})` : text;
}

function printFunction(f: FunctionCall): string {
  if (f.bare) return f.name.toUpperCase();
  let text = `${functionName(f.name)}(${f.distinct ? 'DISTINCT ' : ''}${list(f.args)}`;
  if (f.orderBy.length > 0) text += ` ORDER BY ${f.orderBy.map(printOrderByExpr).join(', ')}`;
  text += ')';
  if (f.filter !== undefined) text += ` FILTER (WHERE ${printExpr(f.filter)})`;
  if (f.over !== undefined) {
    const { baseName, partitionBy, orderBy, frame } = f.over;
    const onlyName = baseName !== undefined && partitionBy.length === 0 && orderBy.length === 0 && frame === undefined;
    text += onlyName ? ` OVER ${quoteIdent(baseName)}` : ` OVER (${printWindowSpec(f.over)})`;
  }
  return text;
}

export function printOrderByExpr(o: OrderByExpr): string {
  let text = printExpr(o.expr);
  if (o.asc !== undefined) text += o.asc ? ' ASC' : ' DESC';
  if (o.nullsFirst !== undefined) text += o.nullsFirst ? ' NULLS FIRST' : ' NULLS LAST';
  return text;
}

/** The inside of a window's parentheses. */
export function printWindowSpec(w: WindowSpec): string {
  const parts: string[] = [];
  if (w.baseName !== undefined)
    parts.push(WINDOW_CLAUSE_NAMES.has(w.baseName) ? quote(w.baseName) : quoteIdent(w.baseName));
  if (w.partitionBy.length > 0) parts.push(`PARTITION BY ${list(w.partitionBy)}`);
  if (w.orderBy.length > 0) parts.push(`ORDER BY ${w.orderBy.map(printOrderByExpr).join(', ')}`);
  if (w.frame !== undefined) {
    const { units, start, end } = w.frame;
    parts.push(
      end === undefined
        ? `${units} ${printFrameBound(start)}`
        : `${units} BETWEEN ${printFrameBound(start)} AND ${printFrameBound(end)}`,
    );
  }
  return parts.join(' ');
}

function printFrameBound(b: FrameBound): string {
  if (b.kind === 'currentRow') return 'CURRENT ROW';
  const direction = b.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING';
  if (b.offset === undefined) return `UNBOUNDED ${direction}`;
  // A column named `unbounded` would read as the keyword: parenthesise it.
  const bare = b.offset.kind === 'column' && b.offset.parts.length === 1 && b.offset.parts[0] === 'unbounded';
  return `${bare ? `(${printExpr(b.offset)})` : operand(b.offset, PREC.COMPARE + 1)} ${direction}`;
}

// ---------------------------------------------------------------------------------------------
// Queries, which expressions nest (subqueries) and which nest expressions: one recursive core.

const SET_OPERATOR_LEVEL = { UNION: 1, EXCEPT: 1, INTERSECT: 2 } as const;

export function printNames(items: readonly string[]): string {
  return items.map(quoteIdent).join(', ');
}

function exprs(items: readonly Expr[]): string {
  return items.map(printExpr).join(', ');
}

export function printQuery(q: Query): string {
  let text = '';
  if (q.with !== undefined) {
    const ctes = q.with.ctes.map((cte) => {
      const columns = cte.columns.length > 0 ? ` (${printNames(cte.columns)})` : '';
      return `${quoteIdent(cte.name)}${columns} AS (${printQuery(cte.query)})`;
    });
    text = `WITH ${q.with.recursive ? 'RECURSIVE ' : ''}${ctes.join(', ')} `;
  }
  text += printQueryBody(q.body);
  if (q.orderBy.length > 0) text += ` ORDER BY ${q.orderBy.map(printOrderByExpr).join(', ')}`;
  if (q.limit !== undefined) text += ` LIMIT ${printExpr(q.limit)}`;
  if (q.offset !== undefined) text += ` OFFSET ${printExpr(q.offset)}`;
  return text;
}

function bodyLevel(b: QueryBody): number {
  return b.kind === 'setOperation' ? SET_OPERATOR_LEVEL[b.op] : 3;
}

function printQueryBody(b: QueryBody): string {
  switch (b.kind) {
    case 'select':
      return printSelect(b);
    case 'values':
      return `VALUES ${b.rows.map((row) => `(${exprs(row)})`).join(', ')}`;
    case 'nestedQuery':
      return `(${printQuery(b.query)})`;
    case 'setOperation': {
      const level = SET_OPERATOR_LEVEL[b.op];
      const left = bodyLevel(b.left) < level ? `(${printQueryBody(b.left)})` : printQueryBody(b.left);
      const right = bodyLevel(b.right) <= level ? `(${printQueryBody(b.right)})` : printQueryBody(b.right);
      return `${left} ${b.op}${b.all ? ' ALL' : ''} ${right}`;
    }
  }
}

function printSelect(s: Extract<QueryBody, { kind: 'select' }>): string {
  const items = s.items.map((item) =>
    item.alias === undefined ? printExpr(item.expr) : `${printExpr(item.expr)} AS ${quoteIdent(item.alias)}`,
  );
  let text = `SELECT ${s.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`;
  if (s.from.length > 0) text += ` FROM ${s.from.map(printTableWithJoins).join(', ')}`;
  if (s.where !== undefined) text += ` WHERE ${printExpr(s.where)}`;
  if (s.groupBy.length > 0) text += ` GROUP BY ${exprs(s.groupBy)}`;
  if (s.having !== undefined) text += ` HAVING ${printExpr(s.having)}`;
  if (s.windows.length > 0)
    text += ` WINDOW ${s.windows.map((w) => `${quoteIdent(w.name)} AS (${printWindowSpec(w.spec)})`).join(', ')}`;
  return text;
}

function printAlias(alias: TableAlias | undefined): string {
  if (alias === undefined) return '';
  return alias.columns.length > 0
    ? ` AS ${quoteIdent(alias.name)} (${printNames(alias.columns)})`
    : ` AS ${quoteIdent(alias.name)}`;
}

function printTableFactor(t: TableFactor): string {
  switch (t.kind) {
    case 'table':
      return `${printObjectName(t.name)}${t.args === undefined ? '' : `(${exprs(t.args)})`}${printAlias(t.alias)}`;
    case 'derived':
      return `(${printQuery(t.query)})${printAlias(t.alias)}`;
    case 'nestedJoin':
      return `(${printTableWithJoins(t.join)})${printAlias(t.alias)}`;
  }
}

function printTableWithJoins(t: TableWithJoins): string {
  let text = printTableFactor(t.relation);
  for (const join of t.joins) {
    text += ` ${join.type === 'INNER' ? '' : `${join.type} `}JOIN ${printTableFactor(join.relation)}`;
    if (join.on !== undefined) text += ` ON ${printExpr(join.on)}`;
    if (join.using !== undefined) text += ` USING (${printNames(join.using)})`;
  }
  return text;
}
