// Canonical SQL text of statements (expressions and queries: printer-expressions.ts), such that
// parseStatement(printStatement(s)) equals s ignoring positions. Optional words that leave no
// trace in the AST (INTO, OUTER, AS before aliases, `=` in options) are printed one fixed way.

import type { AlterTable, AlterTenant, DatabaseOption, Expr, OptionValue, SqlOption, Statement } from './ast.js';
import { formatDataType } from './parser-data-types.js';
import {
  printExpr,
  printObjectName,
  printOrderByExpr,
  printString,
  printNames,
  printQuery,
  quoteIdent,
} from './printer-expressions.js';

const UPPER_WORD = /^[A-Z_][A-Z0-9_]*$/;

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
      const columns = s.columns.length > 0 ? ` (${printNames(s.columns)})` : '';
      return `INSERT INTO ${printObjectName(s.table)}${columns} ${printQuery(s.source)}`;
    }
    case 'delete':
      return `DELETE FROM ${printObjectName(s.table)}${s.alias === undefined ? '' : ` AS ${quoteIdent(s.alias)}`}${s.where === undefined ? '' : ` WHERE ${printExpr(s.where)}`}`;
    case 'update': {
      const assignments = s.assignments.map((a) => `${quoteIdent(a.column)} = ${printExpr(a.value)}`).join(', ');
      return `UPDATE ${printObjectName(s.table)} SET ${assignments}${s.where === undefined ? '' : ` WHERE ${printExpr(s.where)}`}`;
    }
    case 'copyIntoTable':
    case 'copyIntoLocation': {
      const lists = (name: string, options: readonly SqlOption[]): string =>
        options.length === 0 ? '' : ` ${name} = (${options.map(printSqlOption).join(', ')})`;
      const tail = `${lists('CONNECTION', s.connection)}${lists('FILE_FORMAT', s.fileFormat)}${lists('COPY_OPTIONS', s.copyOptions)}`;
      if (s.kind === 'copyIntoLocation') {
        const source = s.source.kind === 'table' ? printObjectName(s.source.name) : `(${printQuery(s.source.query)})`;
        return `COPY INTO ${printString(s.location)} FROM ${source}${tail}`;
      }
      const columns = s.columns.length > 0 ? ` (${printNames(s.columns)})` : '';
      return `COPY INTO ${printObjectName(s.table)}${columns} FROM ${printString(s.location)}${tail}`;
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
      const columns = s.columns.map(
        (c) =>
          `${quoteIdent(c.name)} ${formatDataType(c.dataType)}${c.codec === undefined ? '' : ` CODEC(${c.codec})`}`,
      );
      if (s.tags.length > 0) columns.push(`TAGS(${printNames(s.tags)})`);
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
      if (s.partitionedBy.length > 0) text += ` PARTITIONED BY (${printNames(s.partitionedBy)})`;
      if (s.compression !== undefined) text += ` COMPRESSION TYPE ${printWord(s.compression)}`;
      if (s.options.length > 0)
        text += ` OPTIONS (${s.options.map((o) => `${printString(o.key)} ${printString(o.value)}`).join(', ')})`;
      return `${text} LOCATION ${printString(s.location)}`;
    }
    case 'createStreamTable': {
      const columns =
        s.columns.length === 0
          ? ''
          : ` (${s.columns.map((c) => `${quoteIdent(c.name)} ${formatDataType(c.dataType)}`).join(', ')})`;
      const options = s.options.length === 0 ? '' : ` WITH (${s.options.map(printSqlOption).join(', ')})`;
      return `CREATE STREAM TABLE ${ifNotExists(s.ifNotExists)}${printObjectName(s.name)}${columns}${options} engine = ${printWord(s.engine)}`;
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
        text +=
          op === 'IN' || op === 'NOT IN'
            ? ` WITH KEY ${op} (${printNames(keys)})`
            : ` WITH KEY ${op} ${quoteIdent(keys[0]!)}`;
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
