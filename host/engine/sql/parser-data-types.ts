// parseDataType: the type after CAST ... AS, `::`, and in column definitions. Unknown words are
// kept as custom types instead of failing, because CnosDB reports a bad column type from the
// planner ("Unexpected data type BOOLE of column4, "), not from the parser.

import type { DataType } from './ast.js';
import type { Parser } from './parser-base.js';
import { RESERVED } from './tokens.js';

const INTEGER_TYPES = new Set(['BIGINT', 'INT', 'INTEGER', 'SMALLINT', 'TINYINT']);
/** Types that take an optional parenthesised parameter list. */
const PARAMETERISED = new Set([
  'BIGINT',
  'INT',
  'INTEGER',
  'SMALLINT',
  'TINYINT',
  'FLOAT',
  'DECIMAL',
  'NUMERIC',
  'VARCHAR',
  'CHAR',
  'TIMESTAMP',
  'TIME',
  'GEOMETRY',
  'BINARY',
  'VARBINARY',
]);
const PLAIN = new Set([
  'DOUBLE',
  'REAL',
  'STRING',
  'TEXT',
  'BOOLEAN',
  'DATE',
  'INTERVAL',
  'BYTEA',
  'BLOB',
  ...PARAMETERISED,
]);
/** Spellings read as another type's canonical name. */
const SYNONYMS: Readonly<Record<string, string>> = { BOOL: 'BOOLEAN', DEC: 'DECIMAL', CHARACTER: 'CHAR' };

function makeType(
  name: string,
  custom: boolean,
  unsigned: boolean,
  params: string[],
  timeZone?: 'WITH' | 'WITHOUT',
  written?: string,
): DataType {
  const t: { -readonly [K in keyof DataType]: DataType[K] } = { name, custom, unsigned, params };
  if (timeZone !== undefined) t.timeZone = timeZone;
  if (written !== undefined) t.written = written;
  return t;
}

/**
 * `( p, ... )`: numbers as written, words upper case (`GEOMETRY(point, 0)` -> ['POINT', '0']);
 * `raw` collects them as written, for sqlparser's display of a custom type. `()` is an empty list
 * (sqlparser reads `geometry()` so, and CnosDB then rejects it with its format hint).
 */
function parseTypeParams(p: Parser, raw: string[] = []): string[] {
  const params: string[] = [];
  if (!p.consumeOp('(')) return params;
  if (p.consumeOp(')')) return params;
  do {
    const token = p.peek();
    if (token.kind === 'number') params.push(token.value);
    else if (token.kind === 'word') params.push(token.upper);
    else p.expected('a type parameter');
    raw.push(token.kind === 'number' ? token.value : token.text);
    p.next();
  } while (p.consumeOp(','));
  p.expectOp(')');
  return params;
}

/** sqlparser's Display of a custom type: `geometry(point, 0)`, or the bare name without parameters. */
const writtenType = (name: string, raw: readonly string[]): string =>
  raw.length === 0 ? name : `${name}(${raw.join(', ')})`;

/** `WITH TIME ZONE` / `WITHOUT TIME ZONE` after TIMESTAMP or TIME. */
function parseTimeZone(p: Parser): 'WITH' | 'WITHOUT' | undefined {
  if (p.parseKeywords('WITH', 'TIME', 'ZONE')) return 'WITH';
  if (p.parseKeywords('WITHOUT', 'TIME', 'ZONE')) return 'WITHOUT';
  return undefined;
}

export function parseDataType(p: Parser): DataType {
  const token = p.peek();
  let name = SYNONYMS[token.upper] ?? token.upper;
  const known = token.kind === 'word' && PLAIN.has(name);
  if (!known && (token.kind !== 'word' || RESERVED.has(token.upper))) return p.expected('a data type name');
  p.next();
  if (!known) {
    const raw: string[] = [];
    const params = parseTypeParams(p, raw);
    return makeType(token.text, true, false, params, undefined, writtenType(token.text, raw));
  }
  if (name === 'GEOMETRY') {
    const raw: string[] = [];
    const params = parseTypeParams(p, raw);
    return makeType(name, false, false, params, undefined, writtenType(token.text, raw));
  }
  if (name === 'DOUBLE') p.parseKeyword('PRECISION');
  if (name === 'CHAR' && p.parseKeyword('VARYING')) name = 'VARCHAR';
  const params = PARAMETERISED.has(name) ? parseTypeParams(p) : [];
  const unsigned = INTEGER_TYPES.has(name) && p.parseKeyword('UNSIGNED');
  const timeZone = name === 'TIMESTAMP' || name === 'TIME' ? parseTimeZone(p) : undefined;
  return makeType(name, false, unsigned, params, timeZone);
}

/** The canonical SQL text of a type, as the printer writes it. */
export function formatDataType(type: DataType): string {
  let text = type.name;
  if (type.params.length > 0) text += `(${type.params.join(', ')})`;
  if (type.unsigned) text += ' UNSIGNED';
  if (type.timeZone !== undefined) text += ` ${type.timeZone} TIME ZONE`;
  return text;
}
