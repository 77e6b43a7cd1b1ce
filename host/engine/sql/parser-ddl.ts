// DDL: databases (CREATE/ALTER/DROP/RECOVER/COMPACT), CnosDB tables (CREATE with CODEC and TAGS,
// ALTER ADD/ALTER/DROP/RENAME, DROP), and DataFusion's CREATE EXTERNAL TABLE. Error texts follow
// CnosDB's parser (query_server/query/src/sql/parser.rs) where its tests pin them down.

import {
  ALTERABLE_DATABASE_OPTIONS,
  CODECS,
  DATABASE_OPTIONS,
  type AlterDatabase,
  type AlterTable,
  type ColumnDef,
  type CompactDatabase,
  type CreateDatabase,
  type CreateExternalTable,
  type CreateStreamTable,
  type CreateTable,
  type DatabaseOption,
  type DatabaseOptionName,
  type DropDatabase,
  type DropTable,
  type ObjectName,
  type OptionValue,
  type RecoverDatabase,
  type RecoverTable,
  type SqlOption,
} from './ast.js';
import { checkObjectName, type Parser } from './parser-base.js';
import { parseDataType } from './parser-data-types.js';
import { describeToken } from './tokens.js';

const DATABASE_OPTION_SET: ReadonlySet<string> = new Set(DATABASE_OPTIONS);

/** A raw option value: a string or a number (optionally negative); with `sqlValues`, also TRUE/FALSE/NULL. */
export function parseOptionValue(p: Parser, sqlValues: boolean): OptionValue {
  const token = p.peek();
  if (token.kind === 'string') {
    p.next();
    return { kind: 'string', value: token.value };
  }
  if (token.kind === 'number' || (p.peekOp('-') && p.peek(1).kind === 'number')) {
    const sign = token.kind === 'number' ? '' : (p.next(), '-');
    return { kind: 'number', text: sign + p.next().value };
  }
  if (sqlValues && token.kind === 'word') {
    if (token.upper === 'TRUE' || token.upper === 'FALSE') {
      p.next();
      return { kind: 'boolean', value: token.upper === 'TRUE' };
    }
    if (token.upper === 'NULL') {
      p.next();
      return { kind: 'null' };
    }
  }
  return p.expected('a value');
}

/** The name of a new object, checked as CnosDB checks it. */
function parseNewName(p: Parser): string {
  const pos = p.pos();
  return checkObjectName(p.parseIdentifier(), pos);
}

function parseNewObjectName(p: Parser): ObjectName {
  const parts = [parseNewName(p)];
  while (p.consumeOp('.')) parts.push(parseNewName(p));
  return parts;
}

/** `TTL '10d'`, `SHARD = 5`, ... when an option name is next; undefined otherwise. */
function parseDatabaseOption(p: Parser): DatabaseOption | undefined {
  const token = p.peek();
  if (token.kind !== 'word' || !DATABASE_OPTION_SET.has(token.upper)) return undefined;
  p.next();
  p.consumeOp('=');
  return { name: token.upper as DatabaseOptionName, value: parseOptionValue(p, false) };
}

export function parseCreateDatabase(p: Parser): CreateDatabase {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'DATABASE');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewName(p);
  p.parseKeyword('WITH');
  const options: DatabaseOption[] = [];
  for (let option = parseDatabaseOption(p); option !== undefined; option = parseDatabaseOption(p)) options.push(option);
  return { kind: 'createDatabase', pos, name, ifNotExists, options };
}

export function parseAlterDatabase(p: Parser): AlterDatabase {
  const pos = p.pos();
  p.expectKeywords('ALTER', 'DATABASE');
  const name = p.parseIdentifier();
  p.expectKeyword('SET');
  const token = p.peek();
  if (
    token.kind === 'word' &&
    DATABASE_OPTION_SET.has(token.upper) &&
    !ALTERABLE_DATABASE_OPTIONS.includes(token.upper as DatabaseOptionName)
  ) {
    p.fail(
      `database config is unmodifiable, only can modify database option: ${ALTERABLE_DATABASE_OPTIONS.join(', ')}`,
      token,
    );
  }
  const option = parseDatabaseOption(p) ?? p.expected('database option');
  return { kind: 'alterDatabase', pos, name, option };
}

export function parseDropDatabase(p: Parser): DropDatabase {
  const pos = p.pos();
  p.expectKeywords('DROP', 'DATABASE');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  const name = p.parseIdentifier();
  if (!p.parseKeyword('AFTER')) return { kind: 'dropDatabase', pos, name, ifExists };
  return { kind: 'dropDatabase', pos, name, ifExists, after: p.parseStringLiteral() };
}

export function parseRecoverDatabase(p: Parser): RecoverDatabase {
  const pos = p.pos();
  p.expectKeywords('RECOVER', 'DATABASE');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  return { kind: 'recoverDatabase', pos, name: p.parseIdentifier(), ifExists };
}

export function parseCompactDatabase(p: Parser): CompactDatabase {
  const pos = p.pos();
  p.expectKeywords('COMPACT', 'DATABASE');
  return { kind: 'compactDatabase', pos, name: p.parseIdentifier() };
}

/** `CODEC(DELTA)`: the codec name upper case. */
function parseCodec(p: Parser): string {
  p.expectKeyword('CODEC');
  p.expectOp('(');
  if (p.peekOp(')')) p.fail('expect codec encoding type in ()');
  const token = p.next();
  if (token.kind !== 'word' || !CODECS.has(token.upper)) p.fail(`${describeToken(token)} is not valid encoding`, token);
  p.expectOp(')');
  return token.upper;
}

/** `name TYPE [CODEC(x)]`. */
function parseColumnDef(p: Parser): ColumnDef {
  const name = p.parseIdentifier();
  const dataType = parseDataType(p);
  if (!p.peekKeyword('CODEC')) return { name, dataType };
  return { name, dataType, codec: parseCodec(p) };
}

/** CnosDB's CREATE TABLE: `( col TYPE [CODEC(x)], ... [, TAGS(a, b)] )`. */
export function parseCreateTable(p: Parser): CreateTable {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'TABLE');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewObjectName(p);
  if (!p.consumeOp('(') || p.peekOp(')')) p.fail('Expected field columns when create table');
  const columns: ColumnDef[] = [];
  let tags: string[] = [];
  for (;;) {
    columns.push(parseColumnDef(p));
    if (p.consumeOp(')')) break;
    if (!p.consumeOp(',')) p.expected("',' or ')' after column definition");
    if (p.peekKeyword('TAGS') && p.peekOp('(', 1)) {
      p.next();
      tags = parseTagList(p);
      p.expectOp(')');
      break;
    }
  }
  return { kind: 'createTable', pos, name, ifNotExists, columns, tags };
}

/** `( a, b [,] )`, possibly empty, as CnosDB's parse_tag_columns reads it. */
function parseTagList(p: Parser): string[] {
  const tags: string[] = [];
  p.expectOp('(');
  while (!p.consumeOp(')')) {
    tags.push(p.parseIdentifier());
    if (p.consumeOp(',')) continue;
    if (!p.peekOp(')')) p.expected("',' or ')' after tag name");
  }
  return tags;
}

export function parseCreateExternalTable(p: Parser): CreateExternalTable {
  const pos = p.pos();
  p.expectKeyword('CREATE');
  const unbounded = p.parseKeyword('UNBOUNDED');
  p.expectKeywords('EXTERNAL', 'TABLE');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewObjectName(p);
  const columns: CreateExternalTable['columns'][number][] = [];
  if (p.consumeOp('(') && !p.consumeOp(')')) {
    do {
      const column = p.parseIdentifier();
      const dataType = parseDataType(p);
      const notNull = p.parseKeywords('NOT', 'NULL');
      if (!notNull) p.parseKeyword('NULL');
      columns.push({ name: column, dataType, notNull });
    } while (p.consumeOp(','));
    p.expectOp(')');
  }
  const seen = new Set<string>();
  const clause = (...words: string[]): boolean => {
    if (!p.peekKeyword(words[0]!)) return false;
    if (seen.has(words[0]!)) p.fail(`${words.join(' ')} specified more than once`);
    if (!p.parseKeywords(...words)) return false;
    seen.add(words[0]!);
    return true;
  };
  let storedAs: string | undefined;
  let location: string | undefined;
  let delimiter: string | undefined;
  let compression: string | undefined;
  let withHeaderRow = false;
  let partitionedBy: string[] = [];
  const options: { key: string; value: string }[] = [];
  for (;;) {
    if (clause('STORED', 'AS')) storedAs = p.parseIdentifier().toUpperCase();
    else if (clause('LOCATION')) location = p.parseStringLiteral();
    else if (clause('DELIMITER')) delimiter = p.parseStringLiteral();
    else if (clause('COMPRESSION', 'TYPE')) compression = p.parseIdentifier().toUpperCase();
    else if (clause('PARTITIONED', 'BY')) partitionedBy = p.parseIdentifierList();
    else if (p.peekKeyword('WITH') && clause('WITH', 'HEADER', 'ROW')) withHeaderRow = true;
    else if (clause('OPTIONS')) {
      p.expectOp('(');
      do {
        const key = p.parseIdentifier();
        p.consumeOp('=');
        const value = parseOptionValue(p, true);
        options.push({
          key,
          value:
            value.kind === 'string'
              ? value.value
              : value.kind === 'number'
                ? value.text
                : value.kind === 'boolean'
                  ? String(value.value)
                  : 'NULL',
        });
      } while (p.consumeOp(','));
      p.expectOp(')');
    } else break;
  }
  if (storedAs === undefined) p.fail('Missing STORED AS clause in CREATE EXTERNAL TABLE statement');
  if (location === undefined) p.fail('Missing LOCATION clause in CREATE EXTERNAL TABLE statement');
  return {
    kind: 'createExternalTable',
    pos,
    name,
    ifNotExists,
    unbounded,
    columns,
    storedAs,
    withHeaderRow,
    ...(delimiter === undefined ? {} : { delimiter }),
    partitionedBy,
    ...(compression === undefined ? {} : { compression }),
    options,
    location,
  };
}

export function parseAlterTable(p: Parser): AlterTable {
  const pos = p.pos();
  p.expectKeywords('ALTER', 'TABLE');
  const table = p.parseObjectName();
  const alter = (action: AlterTable['action']): AlterTable => ({ kind: 'alterTable', pos, table, action });
  if (p.parseKeyword('ADD')) {
    if (p.parseKeyword('TAG')) return alter({ kind: 'addTag', name: p.parseIdentifier() });
    if (p.parseKeyword('FIELD')) return alter({ kind: 'addField', column: parseColumnDef(p) });
    return p.expected('FIELD or TAG');
  }
  if (p.parseKeyword('ALTER')) {
    const column = p.parseIdentifier();
    p.expectKeyword('SET');
    return alter({ kind: 'alterCodec', column, codec: parseCodec(p) });
  }
  if (p.parseKeyword('DROP')) return alter({ kind: 'dropColumn', column: p.parseIdentifier() });
  if (p.parseKeyword('RENAME')) {
    p.expectKeyword('COLUMN');
    const from = p.parseIdentifier();
    p.expectKeyword('TO');
    return alter({ kind: 'renameColumn', from, to: p.parseIdentifier() });
  }
  return p.expected('ADD, ALTER, DROP or RENAME');
}

export function parseDropTable(p: Parser): DropTable {
  const pos = p.pos();
  p.expectKeywords('DROP', 'TABLE');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  const name = p.parseObjectName();
  if (!p.parseKeyword('AFTER')) return { kind: 'dropTable', pos, name, ifExists };
  return { kind: 'dropTable', pos, name, ifExists, after: p.parseStringLiteral() };
}

export function parseRecoverTable(p: Parser): RecoverTable {
  const pos = p.pos();
  p.expectKeywords('RECOVER', 'TABLE');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  return { kind: 'recoverTable', pos, name: p.parseObjectName(), ifExists };
}

/** `CREATE STREAM TABLE [IF NOT EXISTS] name [(col type, ...)] WITH (k = v, ...) engine = tskv`, as CnosDB's parse_create_stream_table. */
export function parseCreateStreamTable(p: Parser): CreateStreamTable {
  const pos = p.pos();
  p.expectKeyword('CREATE');
  p.expectKeywords('STREAM', 'TABLE');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewObjectName(p);
  const columns: { name: string; dataType: CreateStreamTable['columns'][number]['dataType'] }[] = [];
  if (p.consumeOp('(') && !p.consumeOp(')')) {
    do columns.push({ name: p.parseIdentifier(), dataType: parseDataType(p) });
    while (p.consumeOp(','));
    p.expectOp(')');
  }
  const options: SqlOption[] = [];
  if (p.parseKeyword('WITH')) {
    p.expectOp('(');
    do {
      const key = p.parseIdentifier();
      p.expectOp('=');
      options.push({ name: key, value: parseOptionValue(p, true) });
    } while (p.consumeOp(','));
    p.expectOp(')');
  }
  if (!p.parseKeyword('ENGINE')) p.expected('ENGINE');
  p.expectOp('=');
  const engine = p.parseIdentifier().toUpperCase();
  return { kind: 'createStreamTable', pos, name, ifNotExists, columns, options, engine };
}
