// DML: INSERT [INTO] [TABLE] t [(cols)] VALUES ... | query, DELETE FROM t [WHERE ...], and
// UPDATE t SET c = e, ... [WHERE ...]. CnosDB's own tests write `insert t(...)` without INTO.

import type { Delete, Insert, Update } from './ast.js';
import type { Parser } from './parser-base.js';
import { parseExpr } from './parser-expressions.js';
import { parseOptionalTableAlias, parseQuery } from './parser-queries.js';

export function parseInsert(p: Parser): Insert {
  const pos = p.pos();
  p.expectKeyword('INSERT');
  p.parseKeyword('INTO');
  p.parseKeyword('TABLE');
  const table = p.parseObjectName();
  // `(SELECT ...)` or `(VALUES (...))` is the source; `(values, x)` is a column list.
  const opensQuery =
    p.peekKeyword('SELECT', 1) || p.peekKeyword('WITH', 1) || (p.peekKeyword('VALUES', 1) && p.peekOp('(', 2));
  const columns = p.peekOp('(') && !opensQuery ? p.parseIdentifierList() : [];
  const source = parseQuery(p);
  return { kind: 'insert', pos, table, columns, source };
}

export function parseDelete(p: Parser): Delete {
  const pos = p.pos();
  p.expectKeyword('DELETE');
  p.expectKeyword('FROM');
  const table = p.parseObjectName();
  const alias = parseOptionalTableAlias(p);
  const head =
    alias === undefined ? { kind: 'delete' as const, pos, table } : { kind: 'delete' as const, pos, table, alias };
  if (!p.parseKeyword('WHERE')) return head;
  return { ...head, where: parseExpr(p) };
}

export function parseUpdate(p: Parser): Update {
  const pos = p.pos();
  p.expectKeyword('UPDATE');
  const table = p.parseObjectName();
  p.expectKeyword('SET');
  const assignments = p.parseCommaSeparated((q) => {
    const column = q.parseIdentifier();
    q.expectOp('=');
    return { column, value: parseExpr(q) };
  });
  if (!p.parseKeyword('WHERE')) return { kind: 'update', pos, table, assignments };
  return { kind: 'update', pos, table, assignments, where: parseExpr(p) };
}
