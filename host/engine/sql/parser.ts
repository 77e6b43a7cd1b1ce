// Statement dispatch and the entry points. Like CnosDB's ExtParser::parse_sql, a body is a list
// of statements separated by `;`; empty statements are skipped and anything after a statement
// other than `;` is "Expected end of statement, found: X".

import { UserError } from '../../core/errors.js';
import type { Expr, Statement } from './ast.js';
import { Parser } from './parser-base.js';
import {
  parseAlterDatabase,
  parseAlterTable,
  parseCompactDatabase,
  parseCreateDatabase,
  parseCreateExternalTable,
  parseCreateStreamTable,
  parseCreateTable,
  parseDropDatabase,
  parseDropTable,
  parseRecoverDatabase,
  parseRecoverTable,
} from './parser-ddl.js';
import { parseCheckDatabase } from './parser-check.js';
import { parseCopy } from './parser-copy.js';
import {
  parseAlterTenant,
  parseAlterUser,
  parseCreateRole,
  parseCreateTenant,
  parseCreateUser,
  parseDropRole,
  parseDropTenant,
  parseDropUser,
  parseGrantRevoke,
  parseRecoverTenant,
} from './parser-dcl.js';
import { parseDelete, parseInsert, parseUpdate } from './parser-dml.js';
import { parseExpr } from './parser-expressions.js';
import { parseQuery } from './parser-queries.js';
import { parseDescribe, parseExplain, parseShow } from './parser-show.js';

/**
 * Statements of CnosDB's dialect (reference/cnosdb-sql.md) that Sundial does not run: streams,
 * cluster administration. They are refused as such (422 010005),
 * not as syntax errors.
 */
function unsupported(what: string): never {
  throw new UserError('notImplemented', `This feature is not implemented: ${what}`);
}

/** The word after CREATE / ALTER / DROP / RECOVER, skipping CREATE's UNBOUNDED. */
function objectWord(p: Parser): string {
  const offset = p.peekKeyword('UNBOUNDED', 1) ? 2 : 1;
  const token = p.peek(offset);
  return token.kind === 'word' ? token.upper : '';
}

function parseCreate(p: Parser): Statement {
  switch (objectWord(p)) {
    case 'DATABASE':
      return parseCreateDatabase(p);
    case 'TABLE':
      return parseCreateTable(p);
    case 'EXTERNAL':
      return parseCreateExternalTable(p);
    case 'TENANT':
      return parseCreateTenant(p);
    case 'USER':
      return parseCreateUser(p);
    case 'ROLE':
      return parseCreateRole(p);
    case 'STREAM':
      // CREATE STREAM TABLE is served; CREATE STREAM s AS ... (a named stream query) is not.
      if (p.peekKeyword('TABLE', 2)) return parseCreateStreamTable(p);
      return unsupported('CREATE STREAM statements');
  }
  p.next();
  if (p.peekKeyword('UNBOUNDED')) p.next();
  return p.expected('an object type after CREATE');
}

function parseAlter(p: Parser): Statement {
  switch (objectWord(p)) {
    case 'DATABASE':
      return parseAlterDatabase(p);
    case 'TABLE':
      return parseAlterTable(p);
    case 'TENANT':
      return parseAlterTenant(p);
    case 'USER':
      return parseAlterUser(p);
  }
  return p.expected('TABLE/DATABASE/TENANT/USER', p.peek(1));
}

function parseDrop(p: Parser): Statement {
  switch (objectWord(p)) {
    case 'DATABASE':
      return parseDropDatabase(p);
    case 'TABLE':
      return parseDropTable(p);
    case 'TENANT':
      return parseDropTenant(p);
    case 'USER':
      return parseDropUser(p);
    case 'ROLE':
      return parseDropRole(p);
    case 'STREAM':
      return unsupported('DROP STREAM statements');
    case 'VNODE':
      return unsupported('DROP VNODE statements');
  }
  return p.expected('TABLE,DATABASE,TENANT,USER,ROLE after DROP', p.peek(1));
}

function parseRecover(p: Parser): Statement {
  switch (objectWord(p)) {
    case 'DATABASE':
      return parseRecoverDatabase(p);
    case 'TENANT':
      return parseRecoverTenant(p);
    case 'TABLE':
      return parseRecoverTable(p);
  }
  return p.expected('TABLE, DATABASE or TENANT after RECOVER', p.peek(1));
}

/** One statement, with nothing consumed after it. */
export function parseOneStatement(p: Parser): Statement {
  const token = p.peek();
  if (token.kind === 'op' && token.value === '(') return parseQuery(p);
  if (token.kind !== 'word') return p.expected('an SQL statement');
  switch (token.upper) {
    case 'SELECT':
    case 'WITH':
    case 'VALUES':
      return parseQuery(p);
    case 'INSERT':
      return parseInsert(p);
    case 'DELETE':
      return parseDelete(p);
    case 'UPDATE':
      return parseUpdate(p);
    case 'CREATE':
      return parseCreate(p);
    case 'ALTER':
      return parseAlter(p);
    case 'DROP':
      return parseDrop(p);
    case 'RECOVER':
      return parseRecover(p);
    case 'SHOW':
      return parseShow(p);
    case 'DESCRIBE':
    case 'DESC':
      return parseDescribe(p);
    case 'EXPLAIN':
      return parseExplain(p, parseOneStatement);
    case 'GRANT':
    case 'REVOKE':
      return parseGrantRevoke(p);
    case 'COMPACT':
      if (p.peekKeyword('DATABASE', 1)) return parseCompactDatabase(p);
      if (p.peekKeyword('VNODE', 1)) return unsupported('COMPACT VNODE statements');
      p.next();
      return p.expected('DATABASE after COMPACT');
    case 'COPY':
      if (p.peekKeyword('INTO', 1)) return parseCopy(p);
      if (p.peekKeyword('VNODE', 1)) return unsupported('COPY VNODE statements');
      p.next();
      return p.expected('VNODE or INTO after COPY');
    case 'MOVE':
      return unsupported('MOVE VNODE statements');
    case 'CHECKSUM':
      return unsupported('CHECKSUM GROUP statements');
    case 'CHECK':
      if (p.peekKeyword('DATABASE', 1)) return parseCheckDatabase(p);
      p.next();
      return p.expected('DATABASE after CHECK');
    case 'REPLICA':
      return unsupported('REPLICA statements');
  }
  return p.expected('an SQL statement');
}

/**
 * Every statement in `sql`, in order; empty statements (`;;`, a trailing `;`) are skipped, so
 * the length is the statement count the server checks. Throws SqlParseError (a UserError of
 * kind sqlParse) on the first error.
 */
export function parseStatements(sql: string): Statement[] {
  const p = new Parser(sql, parseQuery);
  const statements: Statement[] = [];
  let expectingDelimiter = false;
  for (;;) {
    while (p.consumeOp(';')) expectingDelimiter = false;
    if (p.atEnd()) return statements;
    if (expectingDelimiter) p.expected('end of statement');
    statements.push(parseOneStatement(p));
    expectingDelimiter = true;
  }
}

/**
 * Exactly one statement. None: "Expected an SQL statement, found: EOF"; several: UserError
 * multiStatement with CnosDB's text "Multi-statement not allow".
 */
export function parseStatement(sql: string): Statement {
  const statements = parseStatements(sql);
  if (statements.length === 0) {
    const p = new Parser(sql, parseQuery);
    while (p.consumeOp(';'));
    return p.expected('an SQL statement');
  }
  if (statements.length > 1) throw new UserError('multiStatement', 'Multi-statement not allow');
  return statements[0]!;
}

/** A lone expression, e.g. a column default or a test fixture; nothing may follow it. */
export function parseExpression(sql: string): Expr {
  const p = new Parser(sql, parseQuery);
  const expr = parseExpr(p);
  if (!p.atEnd()) p.expected('end of expression');
  return expr;
}
