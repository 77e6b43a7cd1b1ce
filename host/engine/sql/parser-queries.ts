// Queries: WITH, SELECT, set operations, VALUES, FROM with joins and derived tables, GROUP BY
// (with ROLLUP, CUBE, GROUPING SETS), HAVING, WINDOW, ORDER BY, LIMIT/OFFSET in either order.
// Shaped after sqlparser-rs's parse_query / parse_select / parse_table_factor.

import type {
  Cte,
  Expr,
  Join,
  JoinType,
  NamedWindow,
  Query,
  QueryBody,
  Select,
  SelectItem,
  TableAlias,
  TableFactor,
  TableWithJoins,
  Values,
  With,
} from './ast.js';
import { SqlParseError } from './errors.js';
import type { Parser } from './parser-base.js';
import { parseExpr, parseOrderByExpr, parseWindowSpec, tryParseWildcard } from './parser-expressions.js';
import { RESERVED_FOR_COLUMN_ALIAS, RESERVED_FOR_TABLE_ALIAS } from './tokens.js';

const SET_OPERATOR_PRECEDENCE: Readonly<Record<string, number>> = { UNION: 1, EXCEPT: 1, INTERSECT: 2 };

/** A full query: [WITH ...] body [ORDER BY ...] [LIMIT n] [OFFSET m]. */
export function parseQuery(p: Parser): Query {
  p.enter();
  const pos = p.pos();
  let withClause: With | undefined;
  if (p.parseKeyword('WITH')) {
    const recursive = p.parseKeyword('RECURSIVE');
    withClause = { recursive, ctes: p.parseCommaSeparated(parseCte) };
  }
  const body = parseQueryBody(p, 0);
  const orderBy = p.parseKeywords('ORDER', 'BY') ? p.parseCommaSeparated(parseOrderByExpr) : [];
  const { limit, offset } = parseLimitOffset(p);
  p.leave();
  return {
    kind: 'query',
    pos,
    ...(withClause === undefined ? {} : { with: withClause }),
    body,
    orderBy,
    ...(limit === undefined ? {} : { limit }),
    ...(offset === undefined ? {} : { offset }),
  };
}

/** LIMIT and OFFSET, each at most once, in either order (`LIMIT ALL` means no limit). */
export function parseLimitOffset(p: Parser): { limit?: Expr; offset?: Expr } {
  let limit: Expr | undefined;
  let offset: Expr | undefined;
  let sawLimit = false;
  for (let round = 0; round < 2; round++) {
    if (!sawLimit && p.parseKeyword('LIMIT')) {
      sawLimit = true;
      if (!p.parseKeyword('ALL')) limit = parseExpr(p);
    }
    if (offset === undefined && p.parseKeyword('OFFSET')) {
      offset = parseExpr(p);
      if (!p.parseKeyword('ROWS')) p.parseKeyword('ROW');
    }
  }
  return { ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) };
}

function parseCte(p: Parser): Cte {
  const pos = p.pos();
  const name = p.parseIdentifier();
  const columns = p.peekOp('(') ? p.parseIdentifierList() : [];
  p.expectKeyword('AS');
  p.expectOp('(');
  const query = parseQuery(p);
  p.expectOp(')');
  return { pos, name, columns, query };
}

/** Set operations, left-associative, INTERSECT binding tighter than UNION and EXCEPT. */
function parseQueryBody(p: Parser, minPrec: number): QueryBody {
  let left = parseSetOperand(p);
  let folds = 0;
  for (;;) {
    const token = p.peek();
    const prec = token.kind === 'word' ? (SET_OPERATOR_PRECEDENCE[token.upper] ?? 0) : 0;
    if (prec <= minPrec) break;
    p.next();
    const all = p.parseKeyword('ALL');
    if (!all) p.parseKeyword('DISTINCT');
    p.enter();
    folds++;
    const right = parseQueryBody(p, prec);
    left = {
      kind: 'setOperation',
      pos: { line: token.line, column: token.column },
      op: token.upper as 'UNION',
      all,
      left,
      right,
    };
  }
  p.leave(folds);
  return left;
}

function parseSetOperand(p: Parser): QueryBody {
  const pos = p.pos();
  if (p.peekKeyword('SELECT')) return parseSelect(p);
  if (p.peekKeyword('VALUES')) return parseValues(p);
  if (p.consumeOp('(')) {
    const query = parseQuery(p);
    p.expectOp(')');
    return { kind: 'nestedQuery', pos, query };
  }
  return p.expected('SELECT, VALUES, or a subquery in the query body');
}

export function parseValues(p: Parser): Values {
  const pos = p.pos();
  p.expectKeyword('VALUES');
  const rows = p.parseCommaSeparated((q) => {
    q.expectOp('(');
    const row = q.parseCommaSeparated(parseExpr);
    q.expectOp(')');
    return row;
  });
  return { kind: 'values', pos, rows };
}

export function parseSelect(p: Parser): Select {
  const pos = p.pos();
  p.expectKeyword('SELECT');
  const distinct = p.parseKeyword('DISTINCT');
  if (!distinct) p.parseKeyword('ALL');
  const items = p.parseCommaSeparated(parseSelectItem);
  const from = p.parseKeyword('FROM') ? p.parseCommaSeparated(parseTableWithJoins) : [];
  const where = p.parseKeyword('WHERE') ? parseExpr(p) : undefined;
  const groupBy = p.parseKeywords('GROUP', 'BY') ? p.parseCommaSeparated(parseGroupByItem) : [];
  const having = p.parseKeyword('HAVING') ? parseExpr(p) : undefined;
  const windows = p.parseKeyword('WINDOW') ? p.parseCommaSeparated(parseNamedWindow) : [];
  return {
    kind: 'select',
    pos,
    distinct,
    items,
    from,
    ...(where === undefined ? {} : { where }),
    groupBy,
    ...(having === undefined ? {} : { having }),
    windows,
  };
}

function parseSelectItem(p: Parser): SelectItem {
  const wildcard = tryParseWildcard(p);
  if (wildcard !== undefined) return { expr: wildcard };
  const expr = parseExpr(p);
  const alias = parseOptionalAlias(p, RESERVED_FOR_COLUMN_ALIAS);
  return alias === undefined ? { expr } : { expr, alias };
}

/** `AS name` (any identifier), or a bare name that is not one of `reserved`. */
function parseOptionalAlias(p: Parser, reserved: ReadonlySet<string>): string | undefined {
  if (p.parseKeyword('AS')) return p.parseIdentifier();
  const token = p.peek();
  if (token.kind === 'quoted' || (token.kind === 'word' && !reserved.has(token.upper))) return p.parseIdentifier();
  return undefined;
}

function parseNamedWindow(p: Parser): NamedWindow {
  const name = p.parseIdentifier();
  p.expectKeyword('AS');
  p.expectOp('(');
  const spec = parseWindowSpec(p);
  p.expectOp(')');
  return { name, spec };
}

function parseGroupByItem(p: Parser): Expr {
  const pos = p.pos();
  for (const kind of ['rollup', 'cube'] as const) {
    if (p.peekKeyword(kind.toUpperCase()) && p.peekOp('(', 1)) {
      p.next();
      p.next();
      const sets = p.parseCommaSeparated(parseGroupingElement);
      p.expectOp(')');
      return { kind, pos, sets };
    }
  }
  if (p.parseKeywords('GROUPING', 'SETS')) {
    p.expectOp('(');
    const sets = p.parseCommaSeparated((q) =>
      q.peekOp('(') && q.peekOp(')', 1) ? (q.next(), q.next(), []) : parseGroupingElement(q),
    );
    p.expectOp(')');
    return { kind: 'groupingSets', pos, sets };
  }
  return parseExpr(p);
}

/** One element of ROLLUP/CUBE/GROUPING SETS: `(a, b)` or a single expression. */
function parseGroupingElement(p: Parser): Expr[] {
  if (!p.consumeOp('(')) return [parseExpr(p)];
  const exprs = p.parseCommaSeparated(parseExpr);
  p.expectOp(')');
  return exprs;
}

export function parseTableWithJoins(p: Parser): TableWithJoins {
  const relation = parseTableFactor(p);
  const joins: Join[] = [];
  for (;;) {
    const pos = p.pos();
    let type: JoinType;
    if (p.parseKeywords('CROSS', 'JOIN')) {
      joins.push({ pos, type: 'CROSS', relation: parseTableFactor(p) });
      continue;
    }
    if (p.parseKeyword('JOIN') || p.parseKeywords('INNER', 'JOIN')) type = 'INNER';
    else if (p.peekKeyword('LEFT') || p.peekKeyword('RIGHT') || p.peekKeyword('FULL')) {
      type = p.next().upper as JoinType;
      p.parseKeyword('OUTER');
      p.expectKeyword('JOIN');
    } else break;
    const relation = parseTableFactor(p);
    if (p.parseKeyword('ON')) joins.push({ pos, type, relation, on: parseExpr(p) });
    else if (p.parseKeyword('USING')) joins.push({ pos, type, relation, using: p.parseIdentifierList() });
    else joins.push({ pos, type, relation });
  }
  return { relation, joins };
}

function parseTableFactor(p: Parser): TableFactor {
  p.enter();
  const pos = p.pos();
  let factor: TableFactor;
  if (p.consumeOp('(')) {
    factor = parseParenthesizedFactor(p, pos);
  } else {
    const name = p.parseObjectName();
    if (p.consumeOp('(')) {
      const args = p.peekOp(')') ? [] : p.parseCommaSeparated(parseExpr);
      p.expectOp(')');
      factor = { kind: 'table', pos, name, args };
    } else {
      factor = { kind: 'table', pos, name };
    }
  }
  const alias = parseTableAlias(p);
  p.leave();
  return alias === undefined ? factor : { ...factor, alias };
}

/** After `(`: a derived table `(query)` or a nested join `(a JOIN b)`; tries the query first. */
function parseParenthesizedFactor(p: Parser, pos: TableFactor['pos']): TableFactor {
  if (p.peekKeyword('SELECT') || p.peekKeyword('WITH') || p.peekKeyword('VALUES')) {
    const query = parseQuery(p);
    p.expectOp(')');
    return { kind: 'derived', pos, query };
  }
  if (p.peekOp('(')) {
    const start = p.mark();
    try {
      const query = parseQuery(p);
      p.expectOp(')');
      return { kind: 'derived', pos, query };
    } catch (error) {
      if (!(error instanceof SqlParseError)) throw error;
      p.reset(start);
    }
  }
  const join = parseTableWithJoins(p);
  p.expectOp(')');
  return { kind: 'nestedJoin', pos, join };
}

/** A bare table alias (`AS a` or `a`), as sqlparser reads after DELETE FROM's table. */
export function parseOptionalTableAlias(p: Parser): string | undefined {
  return parseOptionalAlias(p, RESERVED_FOR_TABLE_ALIAS);
}

function parseTableAlias(p: Parser): TableAlias | undefined {
  const name = parseOptionalAlias(p, RESERVED_FOR_TABLE_ALIAS);
  if (name === undefined) return undefined;
  return { name, columns: p.peekOp('(') ? p.parseIdentifierList() : [] };
}
