// Token shapes shared by the lexer and the parsers, and the keyword tables that decide where a
// word may stand as a bare identifier. Words are not pre-classified as keywords (sqlparser-rs
// does the same): whether `values`, `time` or `window` is a keyword depends on where it stands.

/**
 * `word`: an unquoted word (`value` lowercased, `upper` for keyword tests).
 * `quoted`: a "double-quoted" or `backquoted` identifier (`value` keeps case, never a keyword).
 * `string`: a 'single-quoted' string (`value` unescaped). `number`: `value` is the literal text.
 * `variable`: `@@name` or `@name` (`value` keeps the text as written). `op`: punctuation and
 * operators (`value` is the operator). `eof`: the end of the input.
 */
export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'variable' | 'op' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  /** Upper-cased text of a `word`; empty for every other kind. */
  readonly upper: string;
  /** The source text of the token, as shown in "found: X" messages. */
  readonly text: string;
  /** 1-based line and column (UTF-16 code units) of the first character. */
  readonly line: number;
  readonly column: number;
}

/** A source position carried by every expression and statement, for error messages. */
export interface Pos {
  readonly line: number;
  readonly column: number;
}

/**
 * Words that never stand as a bare identifier in an expression, a select item or an implicit
 * alias. Every other keyword (`time`, `values`, `window`, `key`, `first`, ...) is an identifier
 * wherever one is expected, as in sqlparser-rs's GenericDialect; the printer quotes exactly
 * these words (and names that are not lower-case [a-z_][a-z0-9_]*).
 */
export const RESERVED: ReadonlySet<string> = new Set([
  'ALL',
  'ALTER',
  'AND',
  'AS',
  'ASC',
  'BETWEEN',
  'BY',
  'CASE',
  'CAST',
  'CREATE',
  'CROSS',
  'DELETE',
  'DESC',
  'DISTINCT',
  'DROP',
  'ELSE',
  'END',
  'EXCEPT',
  'EXISTS',
  'FALSE',
  'FETCH',
  'FROM',
  'FULL',
  'GROUP',
  'HAVING',
  'ILIKE',
  'IN',
  'INNER',
  'INSERT',
  'INTERSECT',
  'INTERVAL',
  'INTO',
  'IS',
  'JOIN',
  'LATERAL',
  'LEFT',
  'LIKE',
  'LIMIT',
  'NATURAL',
  'NOT',
  'NULL',
  'OFFSET',
  'ON',
  'OR',
  'ORDER',
  'OUTER',
  'QUALIFY',
  'RIGHT',
  'SELECT',
  'SET',
  'SIMILAR',
  'TABLE',
  'THEN',
  'TRUE',
  'TRY_CAST',
  'UNION',
  'UPDATE',
  'USING',
  'WHEN',
  'WHERE',
  'WITH',
]);

/** Words that may not follow a select item as an implicit (AS-less) alias. */
export const RESERVED_FOR_COLUMN_ALIAS: ReadonlySet<string> = new Set([
  ...RESERVED,
  'WINDOW',
  'EXPLAIN',
  'ANALYZE',
  'SORT',
  'TOP',
  'VIEW',
  'CLUSTER',
  'DISTRIBUTE',
]);

/** Words that may not follow a table reference as an implicit (AS-less) alias. */
export const RESERVED_FOR_TABLE_ALIAS: ReadonlySet<string> = new Set([
  ...RESERVED_FOR_COLUMN_ALIAS,
  'PIVOT',
  'UNPIVOT',
  'SEMI',
  'ANTI',
  'VALUES',
]);

/** The token text shown after "found: " in error messages (sqlparser-rs shows EOF so). */
export function describeToken(token: Token): string {
  return token.kind === 'eof' ? 'EOF' : token.text;
}
