// parseDataType: the type after CAST ... AS, `::`, and in column definitions. Unknown words are
// kept as custom types instead of failing, because CnosDB reports a bad column type from the
// planner ("Unexpected data type BOOLE of column4, "), not from the parser.

import type { DataType } from './ast.js';
import type { Parser } from './parser-base.js';
import { RESERVED } from './tokens.js';

const INTEGER_TYPES = new Set(['BIGINT', 'INT', 'INTEGER', 'SMALLINT', 'TINYINT']);
/** Types that take an optional parenthesised parameter list. */
const PARAMETERISED = new Set([
  'BIGINT', 'INT', 'INTEGER', 'SMALLINT', 'TINYINT', 'FLOAT', 'DECIMAL', 'NUMERIC', 'VARCHAR',
  'CHAR', 'TIMESTAMP', 'TIME', 'GEOMETRY', 'BINARY', 'VARBINARY',
]);
const PLAIN = new Set(['DOUBLE', 'REAL', 'STRING', 'TEXT', 'BOOLEAN', 'DATE', 'INTERVAL', 'BYTEA', 'BLOB', ...PARAMETERISED]);
/** Spellings read as another type's canonical name. */
const SYNONYMS: Readonly<Record<string, string>> = { BOOL: 'BOOLEAN', DEC: 'DECIMAL', CHARACTER: 'CHAR' };

function makeType(name: string, custom: boolean, unsigned: boolean, params: string[], timeZone?: 'WITH' | 'WITHOUT'): DataType {
  return timeZone === undefined ? { name, custom, unsigned, params } : { name, custom, unsigned, params, timeZone };
}

/** `( p, ... )`: numbers as written, words upper case (`GEOMETRY(point, 0)` -> ['POINT', '0']). */
function parseTypeParams(p: Parser): string[] {
  const params: string[] = [];
  if (!p.consumeOp('(')) return params;
  do {
    const token = p.peek();
    if (token.kind === 'number') params.push(token.value);
    else if (token.kind === 'word') params.push(token.upper);
    else p.expected('a type parameter');
    p.next();
  } while (p.consumeOp(','));
  p.expectOp(')');
  return params;
}

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
  if (!known) return makeType(token.text, true, false, parseTypeParams(p));
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
