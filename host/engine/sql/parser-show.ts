// SHOW DATABASES | TABLES | SERIES | TAG VALUES | QUERIES | STREAMS, DESCRIBE and EXPLAIN.
// SHOW SERIES / TAG VALUES take a bare table name (CnosDB: `FROM db.t` is "Expected end of
// statement, found: ." and "Expected WITH, found: ."); the database goes in ON.

import { UserError } from '../../core/errors.js';
import type { DescribeDatabase, DescribeTable, Expr, OrderByExpr, Statement, TagKeyFilter } from './ast.js';
import type { Parser } from './parser-base.js';
import { parseExpr, parseOrderByExpr } from './parser-expressions.js';
import { parseLimitOffset } from './parser-queries.js';

interface ShowTagBody {
  database?: string;
  table: string;
  where?: Expr;
  orderBy: OrderByExpr[];
  limit?: Expr;
  offset?: Expr;
}

function parseOnDatabase(p: Parser): { database?: string } {
  return p.parseKeyword('ON') ? { database: p.parseIdentifier() } : {};
}

/** `[ON db] FROM t`, then (after `between`, for TAG VALUES' WITH KEY) `[WHERE] [ORDER BY] [LIMIT/OFFSET]`. */
function parseShowTagBody<T>(p: Parser, between: (p: Parser) => T): ShowTagBody & { extra: T } {
  const on = parseOnDatabase(p);
  p.expectKeyword('FROM');
  const table = p.parseIdentifier();
  const extra = between(p);
  const where = p.parseKeyword('WHERE') ? parseExpr(p) : undefined;
  const orderBy = p.parseKeywords('ORDER', 'BY') ? p.parseCommaSeparated(parseOrderByExpr) : [];
  return { ...on, table, extra, ...(where === undefined ? {} : { where }), orderBy, ...parseLimitOffset(p) };
}

/** `WITH KEY = k | != k | <> k | IN (a, ...) | NOT IN (a, ...)`. */
function parseWithKey(p: Parser): TagKeyFilter {
  p.expectKeywords('WITH', 'KEY');
  const token = p.next();
  if (token.kind === 'op' && token.value === '=') return { op: '=', keys: [p.parseIdentifier()] };
  if (token.kind === 'op' && (token.value === '!=' || token.value === '<>'))
    return { op: '!=', keys: [p.parseIdentifier()] };
  if (token.kind === 'word' && token.upper === 'IN') return { op: 'IN', keys: p.parseIdentifierList() };
  if (token.kind === 'word' && token.upper === 'NOT') {
    p.expectKeyword('IN');
    return { op: 'NOT IN', keys: p.parseIdentifierList() };
  }
  return p.expected('=, !=, <>, IN, NOT IN', token);
}

export function parseShow(p: Parser): Statement {
  const pos = p.pos();
  p.expectKeyword('SHOW');
  if (p.parseKeyword('DATABASES')) return { kind: 'showDatabases', pos };
  if (p.parseKeyword('TABLES')) return { kind: 'showTables', pos, ...parseOnDatabase(p) };
  if (p.parseKeyword('QUERIES')) return { kind: 'showQueries', pos };
  if (p.parseKeyword('STREAMS')) return { kind: 'showStreams', pos, verbose: p.parseKeyword('VERBOSE') };
  if (p.parseKeyword('SERIES')) {
    const { extra: _, ...body } = parseShowTagBody(p, () => undefined);
    return { kind: 'showSeries', pos, ...body };
  }
  if (p.parseKeyword('TAG')) {
    p.expectKeyword('VALUES');
    const { extra: withKey, ...body } = parseShowTagBody(p, parseWithKey);
    return { kind: 'showTagValues', pos, ...body, withKey };
  }
  if (p.peekKeyword('REPLICAS'))
    throw new UserError('notImplemented', 'This feature is not implemented: SHOW REPLICAS');
  return p.expected('TABLES or DATABASES or SERIES or TAG or QUERIES or STREAMS');
}

/** `DESCRIBE | DESC DATABASE db` and `DESCRIBE | DESC [TABLE] t`. */
export function parseDescribe(p: Parser): DescribeDatabase | DescribeTable {
  const pos = p.pos();
  if (!p.parseKeyword('DESCRIBE')) p.expectKeyword('DESC');
  if (p.parseKeyword('DATABASE')) return { kind: 'describeDatabase', pos, name: p.parseIdentifier() };
  p.parseKeyword('TABLE');
  return { kind: 'describeTable', pos, name: p.parseObjectName() };
}

/** `EXPLAIN [ANALYZE] [VERBOSE] statement`; the statement parser is passed in to avoid a cycle. */
export function parseExplain(p: Parser, parseStatement: (p: Parser) => Statement): Statement {
  const pos = p.pos();
  p.expectKeyword('EXPLAIN');
  const analyze = p.parseKeyword('ANALYZE');
  const verbose = p.parseKeyword('VERBOSE');
  if (p.peekKeyword('EXPLAIN')) p.fail('EXPLAIN can only appear once');
  p.enter();
  const statement = parseStatement(p);
  p.leave();
  return { kind: 'explain', pos, analyze, verbose, statement };
}
