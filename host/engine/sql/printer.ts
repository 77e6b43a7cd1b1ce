// Canonical SQL text of queries and statements (expressions: printer-expressions.ts), such that
// parseStatement(printStatement(s)) equals s ignoring positions. Optional words that leave no
// trace in the AST (INTO, OUTER, AS before aliases, `=` in options) are printed one fixed way.

import type {
  AlterTable,
  AlterTenant,
  DatabaseOption,
  Expr,
  OptionValue,
  Query,
  QueryBody,
  SqlOption,
  Statement,
  TableAlias,
  TableFactor,
  TableWithJoins,
} from './ast.js';
import { formatDataType } from './parser-data-types.js';
import {
  printExpr,
  printObjectName,
  printOrderByExpr,
  printString,
  printWindowSpec,
  quoteIdent,
} from './printer-expressions.js';

const SET_OPERATOR_LEVEL = { UNION: 1, EXCEPT: 1, INTERSECT: 2 } as const;
const UPPER_WORD = /^[A-Z_][A-Z0-9_]*$/;

function names(items: readonly string[]): string {
  return items.map(quoteIdent).join(', ');
}

function exprs(items: readonly Expr[]): string {
  return items.map(printExpr).join(', ');
}

export function printQuery(q: Query): string {
  let text = '';
  if (q.with !== undefined) {
    const ctes = q.with.ctes.map((cte) => {
      const columns = cte.columns.length > 0 ? ` (${names(cte.columns)})` : '';
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
  const items = s.items.map((item) => (item.alias === undefined ? printExpr(item.expr) : `${printExpr(item.expr)} AS ${quoteIdent(item.alias)}`));
  let text = `SELECT ${s.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`;
  if (s.from.length > 0) text += ` FROM ${s.from.map(printTableWithJoins).join(', ')}`;
  if (s.where !== undefined) text += ` WHERE ${printExpr(s.where)}`;
  if (s.groupBy.length > 0) text += ` GROUP BY ${exprs(s.groupBy)}`;
  if (s.having !== undefined) text += ` HAVING ${printExpr(s.having)}`;
  if (s.windows.length > 0) text += ` WINDOW ${s.windows.map((w) => `${quoteIdent(w.name)} AS (${printWindowSpec(w.spec)})`).join(', ')}`;
  return text;
}

function printAlias(alias: TableAlias | undefined): string {
  if (alias === undefined) return '';
  return alias.columns.length > 0 ? ` AS ${quoteIdent(alias.name)} (${names(alias.columns)})` : ` AS ${quoteIdent(alias.name)}`;
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
    if (join.using !== undefined) text += ` USING (${names(join.using)})`;
  }
  return text;
}

function printOptionValue(v: OptionValue): string {
  switch (v.kind) {
    case 'string':
      return printString(v.value);
    case 'number':
      return v.text;
    case 'boolean':
      return v.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
  }
}

function printDatabaseOption(o: DatabaseOption): string {
  return `${o.name} ${printOptionValue(o.value)}`;
}

/** `name = value`; a SET option named `user` is quoted, since `SET USER` starts another form. */
function printSqlOption(o: SqlOption): string {
  const name = o.name === 'user' ? '"user"' : quoteIdent(o.name);
  return `${name} = ${printOptionValue(o.value)}`;
}

function printWithOptions(options: readonly SqlOption[]): string {
  return options.length > 0 ? ` WITH ${options.map(printSqlOption).join(', ')}` : '';
}

/** A format or compression name: bare when an upper-case word, quoted otherwise. */
function printWord(word: string): string {
  return UPPER_WORD.test(word) ? word : quoteIdent(word);
}

function ifNotExists(flag: boolean): string {
  return flag ? 'IF NOT EXISTS ' : '';
}

function ifExists(flag: boolean): string {
  return flag ? 'IF EXISTS ' : '';
}

function printShowTail(s: { where?: Expr; orderBy: readonly { expr: Expr }[]; limit?: Expr; offset?: Expr }): string {
  let text = '';
  if (s.where !== undefined) text += ` WHERE ${printExpr(s.where)}`;
  if (s.orderBy.length > 0) text += ` ORDER BY ${s.orderBy.map(printOrderByExpr).join(', ')}`;
  if (s.limit !== undefined) text += ` LIMIT ${printExpr(s.limit)}`;
  if (s.offset !== undefined) text += ` OFFSET ${printExpr(s.offset)}`;
  return text;
}

function printAlterTable(s: AlterTable): string {
  const table = `ALTER TABLE ${printObjectName(s.table)}`;
  const a = s.action;
  switch (a.kind) {
    case 'addTag':
      return `${table} ADD TAG ${quoteIdent(a.name)}`;
    case 'addField': {
      const codec = a.column.codec === undefined ? '' : ` CODEC(${a.column.codec})`;
      return `${table} ADD FIELD ${quoteIdent(a.column.name)} ${formatDataType(a.column.dataType)}${codec}`;
    }
    case 'alterCodec':
      return `${table} ALTER ${quoteIdent(a.column)} SET CODEC(${a.codec})`;
    case 'dropColumn':
      return `${table} DROP ${quoteIdent(a.column)}`;
    case 'renameColumn':
      return `${table} RENAME COLUMN ${quoteIdent(a.from)} TO ${quoteIdent(a.to)}`;
  }
}

function printAlterTenant(s: AlterTenant): string {
  const tenant = `ALTER TENANT ${quoteIdent(s.name)}`;
  const a = s.action;
  switch (a.kind) {
    case 'addUser':
      return `${tenant} ADD USER ${quoteIdent(a.user)} AS ${quoteIdent(a.role)}`;
    case 'removeUser':
      return `${tenant} REMOVE USER ${quoteIdent(a.user)}`;
    case 'setUser':
      return `${tenant} SET USER ${quoteIdent(a.user)} AS ${quoteIdent(a.role)}`;
    case 'set':
      return `${tenant} SET ${printSqlOption(a.option)}`;
    case 'unset':
      return `${tenant} UNSET ${quoteIdent(a.name)}`;
  }
}

export function printStatement(s: Statement): string {
  switch (s.kind) {
    case 'query':
      return printQuery(s);
    case 'insert': {
      const columns = s.columns.length > 0 ? ` (${names(s.columns)})` : '';
      return `INSERT INTO ${printObjectName(s.table)}${columns} ${printQuery(s.source)}`;
    }
    case 'delete':
      return `DELETE FROM ${printObjectName(s.table)}${s.alias === undefined ? '' : ` AS ${quoteIdent(s.alias)}`}${s.where === undefined ? '' : ` WHERE ${printExpr(s.where)}`}`;
    case 'update': {
      const assignments = s.assignments.map((a) => `${quoteIdent(a.column)} = ${printExpr(a.value)}`).join(', ');
      return `UPDATE ${printObjectName(s.table)} SET ${assignments}${s.where === undefined ? '' : ` WHERE ${printExpr(s.where)}`}`;
    }
    case 'createDatabase': {
      const options = s.options.length > 0 ? ` WITH ${s.options.map(printDatabaseOption).join(' ')}` : '';
      return `CREATE DATABASE ${ifNotExists(s.ifNotExists)}${quoteIdent(s.name)}${options}`;
    }
    case 'alterDatabase':
      return `ALTER DATABASE ${quoteIdent(s.name)} SET ${printDatabaseOption(s.option)}`;
    case 'dropDatabase':
      return `DROP DATABASE ${ifExists(s.ifExists)}${quoteIdent(s.name)}${s.after === undefined ? '' : ` AFTER ${printString(s.after)}`}`;
    case 'recoverDatabase':
      return `RECOVER DATABASE ${ifExists(s.ifExists)}${quoteIdent(s.name)}`;
    case 'compactDatabase':
      return `COMPACT DATABASE ${quoteIdent(s.name)}`;
    case 'checkDatabase':
      return `CHECK DATABASE ${quoteIdent(s.name)}${s.repair ? ' REPAIR' : ''}`;
    case 'createTable': {
      const columns = s.columns.map((c) => `${quoteIdent(c.name)} ${formatDataType(c.dataType)}${c.codec === undefined ? '' : ` CODEC(${c.codec})`}`);
      if (s.tags.length > 0) columns.push(`TAGS(${names(s.tags)})`);
      return `CREATE TABLE ${ifNotExists(s.ifNotExists)}${printObjectName(s.name)} (${columns.join(', ')})`;
    }
    case 'createExternalTable': {
      let text = `CREATE ${s.unbounded ? 'UNBOUNDED ' : ''}EXTERNAL TABLE ${ifNotExists(s.ifNotExists)}${printObjectName(s.name)}`;
      if (s.columns.length > 0) {
        text += ` (${s.columns.map((c) => `${quoteIdent(c.name)} ${formatDataType(c.dataType)}${c.notNull ? ' NOT NULL' : ''}`).join(', ')})`;
      }
      text += ` STORED AS ${printWord(s.storedAs)}`;
      if (s.withHeaderRow) text += ' WITH HEADER ROW';
      if (s.delimiter !== undefined) text += ` DELIMITER ${printString(s.delimiter)}`;
      if (s.partitionedBy.length > 0) text += ` PARTITIONED BY (${names(s.partitionedBy)})`;
      if (s.compression !== undefined) text += ` COMPRESSION TYPE ${printWord(s.compression)}`;
      if (s.options.length > 0) text += ` OPTIONS (${s.options.map((o) => `${printString(o.key)} ${printString(o.value)}`).join(', ')})`;
      return `${text} LOCATION ${printString(s.location)}`;
    }
    case 'alterTable':
      return printAlterTable(s);
    case 'dropTable':
      return `DROP TABLE ${ifExists(s.ifExists)}${printObjectName(s.name)}${s.after === undefined ? '' : ` AFTER ${printString(s.after)}`}`;
    case 'recoverTable':
      return `RECOVER TABLE ${ifExists(s.ifExists)}${printObjectName(s.name)}`;
    case 'showDatabases':
      return 'SHOW DATABASES';
    case 'showTables':
      return s.database === undefined ? 'SHOW TABLES' : `SHOW TABLES ON ${quoteIdent(s.database)}`;
    case 'showSeries':
    case 'showTagValues': {
      let text = s.kind === 'showSeries' ? 'SHOW SERIES' : 'SHOW TAG VALUES';
      if (s.database !== undefined) text += ` ON ${quoteIdent(s.database)}`;
      text += ` FROM ${quoteIdent(s.table)}`;
      if (s.kind === 'showTagValues') {
        const { op, keys } = s.withKey;
        text += op === 'IN' || op === 'NOT IN' ? ` WITH KEY ${op} (${names(keys)})` : ` WITH KEY ${op} ${quoteIdent(keys[0]!)}`;
      }
      return text + printShowTail(s);
    }
    case 'showQueries':
      return 'SHOW QUERIES';
    case 'showStreams':
      return s.verbose ? 'SHOW STREAMS VERBOSE' : 'SHOW STREAMS';
    case 'describeDatabase':
      return `DESCRIBE DATABASE ${quoteIdent(s.name)}`;
    case 'describeTable':
      return `DESCRIBE TABLE ${printObjectName(s.name)}`;
    case 'explain':
      return `EXPLAIN ${s.analyze ? 'ANALYZE ' : ''}${s.verbose ? 'VERBOSE ' : ''}${printStatement(s.statement)}`;
    case 'createTenant':
      return `CREATE TENANT ${ifNotExists(s.ifNotExists)}${quoteIdent(s.name)}${printWithOptions(s.options)}`;
    case 'alterTenant':
      return printAlterTenant(s);
    case 'dropTenant':
      return `DROP TENANT ${ifExists(s.ifExists)}${quoteIdent(s.name)}${s.after === undefined ? '' : ` AFTER ${printString(s.after)}`}`;
    case 'recoverTenant':
      return `RECOVER TENANT ${ifExists(s.ifExists)}${quoteIdent(s.name)}`;
    case 'createUser':
      return `CREATE USER ${ifNotExists(s.ifNotExists)}${quoteIdent(s.name)}${printWithOptions(s.options)}`;
    case 'alterUser':
      return s.action.kind === 'rename'
        ? `ALTER USER ${quoteIdent(s.name)} RENAME TO ${quoteIdent(s.action.newName)}`
        : `ALTER USER ${quoteIdent(s.name)} SET ${printSqlOption(s.action.option)}`;
    case 'dropUser':
      return `DROP USER ${ifExists(s.ifExists)}${quoteIdent(s.name)}`;
    case 'createRole':
      return `CREATE ROLE ${ifNotExists(s.ifNotExists)}${quoteIdent(s.name)}${s.inherit === undefined ? '' : ` INHERIT ${quoteIdent(s.inherit)}`}`;
    case 'dropRole':
      return `DROP ROLE ${ifExists(s.ifExists)}${quoteIdent(s.name)}`;
    case 'grant':
    case 'revoke': {
      const privileges = s.privileges.map((pr) => `${pr.action} ON DATABASE ${quoteIdent(pr.database)}`).join(', ');
      return `${s.kind.toUpperCase()} ${privileges} ${s.kind === 'grant' ? 'TO' : 'FROM'} ROLE ${quoteIdent(s.role)}`;
    }
  }
}
