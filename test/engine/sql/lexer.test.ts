import { describe, expect, it } from 'vitest';
import { parseStatements, printStatement, SqlTokenizeError } from '../../../host/engine/sql/index.js';
import { tokenize } from '../../../host/engine/sql/lexer.js';

/** Tokens as `kind:value@line:column`, without the final eof. */
function show(sql: string): string[] {
  return tokenize(sql)
    .filter((t) => t.kind !== 'eof')
    .map((t) => `${t.kind}:${t.value}@${t.line}:${t.column}`);
}

const cases: { name: string; sql: string; tokens: string[] }[] = [
  {
    name: 'lowercases unquoted words and keeps upper for keywords',
    sql: 'SELECT Foo',
    tokens: ['word:select@1:1', 'word:foo@1:8'],
  },
  { name: 'keeps case and spaces in double-quoted identifiers', sql: '"Bar Baz"', tokens: ['quoted:Bar Baz@1:1'] },
  { name: 'unescapes doubled double quotes', sql: '"a""b"', tokens: ['quoted:a"b@1:1'] },
  { name: 'reads backquoted identifiers', sql: '`Tbl``x`', tokens: ['quoted:Tbl`x@1:1'] },
  { name: 'reads an empty quoted identifier', sql: '""', tokens: ['quoted:@1:1'] },
  { name: 'unescapes doubled single quotes in strings', sql: "'it''s'", tokens: ["string:it's@1:1"] },
  { name: 'keeps backslashes in strings', sql: "'}\\'", tokens: ['string:}\\@1:1'] },
  { name: 'reads an empty string', sql: "''", tokens: ['string:@1:1'] },
  { name: 'reads integers', sql: '42 007', tokens: ['number:42@1:1', 'number:007@1:4'] },
  {
    name: 'reads decimals with leading and trailing dots',
    sql: '1.5 .5 1.',
    tokens: ['number:1.5@1:1', 'number:.5@1:5', 'number:1.@1:8'],
  },
  {
    name: 'reads exponents',
    sql: '1e3 1.5E-3 2e+10',
    tokens: ['number:1e3@1:1', 'number:1.5E-3@1:5', 'number:2e+10@1:12'],
  },
  {
    name: 'leaves an exponent marker without digits to the next word',
    sql: '1e',
    tokens: ['number:1@1:1', 'word:e@1:2'],
  },
  { name: 'splits a number from a following word', sql: '10ms', tokens: ['number:10@1:1', 'word:ms@1:3'] },
  { name: 'reads a dot after a name as an operator', sql: 't.5', tokens: ['word:t@1:1', 'op:.@1:2', 'number:5@1:3'] },
  {
    name: 'reads every operator',
    sql: '+ - * / % || = != <> < <= > >= :: ( ) , . ; [ ] ~ ~* !~ !~*',
    tokens: [
      '+',
      '-',
      '*',
      '/',
      '%',
      '||',
      '=',
      '!=',
      '<>',
      '<',
      '<=',
      '>',
      '>=',
      '::',
      '(',
      ')',
      ',',
      '.',
      ';',
      '[',
      ']',
      '~',
      '~*',
      '!~',
      '!~*',
    ].map((op, i, all) => `op:${op}@1:${all.slice(0, i).reduce((n, o) => n + o.length + 1, 1)}`),
  },
  {
    name: 'reads operators without spaces',
    sql: 'a<>b::c',
    tokens: ['word:a@1:1', 'op:<>@1:2', 'word:b@1:4', 'op:::@1:5', 'word:c@1:7'],
  },
  { name: 'reads @@ variables lowercased', sql: '@@Server_Version', tokens: ['variable:@@server_version@1:1'] },
  { name: 'reads @ variables', sql: '@x', tokens: ['variable:@x@1:1'] },
  {
    name: 'reads a lone @ as a variable, as sqlparser reads it as a word',
    sql: 'x @)',
    tokens: ['word:x@1:1', 'variable:@@1:3', 'op:)@1:4'],
  },
  {
    name: "reads sqlparser's tokens that no statement takes, for the parser to reject",
    sql: 'a : {b} \\',
    tokens: ['word:a@1:1', 'op::@1:3', 'op:{@1:5', 'word:b@1:6', 'op:}@1:7', 'op:\\@1:9'],
  },
  { name: 'skips line comments', sql: 'a -- c d\nb', tokens: ['word:a@1:1', 'word:b@2:1'] },
  { name: 'skips a comment at the end of input', sql: 'a -- 1ms;', tokens: ['word:a@1:1'] },
  { name: 'skips nested block comments', sql: 'a /* x /* y */ z */ b', tokens: ['word:a@1:1', 'word:b@1:21'] },
  { name: 'counts lines inside block comments', sql: '/*\n\n*/ b', tokens: ['word:b@3:4'] },
  { name: 'counts lines inside strings', sql: "'a\nb' c", tokens: ['string:a\nb@1:1', 'word:c@2:4'] },
  {
    name: 'counts CRLF and CR as one newline each',
    sql: 'a\r\nb\rc',
    tokens: ['word:a@1:1', 'word:b@2:1', 'word:c@3:1'],
  },
  {
    name: 'reads non-ASCII letters in words, lowercasing only ASCII',
    sql: 'Ñandú Ab',
    tokens: ['word:Ñandú@1:1', 'word:ab@1:7'],
  },
  { name: 'reads $ inside words', sql: 'a$b', tokens: ['word:a$b@1:1'] },
  { name: 'reads an empty input as nothing', sql: ' \t\n', tokens: [] },
  {
    name: 'reads the bitwise operators and a lone !',
    sql: 'a|b&c^d<<e>>f!',
    tokens: [
      'word:a@1:1',
      'op:|@1:2',
      'word:b@1:3',
      'op:&@1:4',
      'word:c@1:5',
      'op:^@1:6',
      'word:d@1:7',
      'op:<<@1:8',
      'word:e@1:10',
      'op:>>@1:11',
      'word:f@1:13',
      'op:!@1:14',
    ],
  },
];

const errors: { name: string; sql: string; message: string }[] = [
  {
    name: 'an unterminated string',
    sql: "SELECT 'abc",
    message: 'sql parser error: Unterminated string literal at Line: 1, Column 8',
  },
  {
    name: 'an unterminated string over lines',
    sql: "a\n 'x\ny",
    message: 'sql parser error: Unterminated string literal at Line: 2, Column 2',
  },
  {
    name: 'an unterminated quoted identifier',
    sql: 'SELECT "abc',
    message: `sql parser error: Expected close delimiter '"' before EOF. at Line: 1, Column 8`,
  },
  {
    name: 'an unterminated backquoted identifier',
    sql: '`a',
    message: "sql parser error: Expected close delimiter '`' before EOF. at Line: 1, Column 1",
  },
  {
    name: 'an unterminated block comment',
    sql: 'a /* x /* y */',
    message: 'sql parser error: Unexpected EOF while in a multi-line comment at Line: 1, Column 3',
  },
  { name: 'a #', sql: '\n  #', message: "sql parser error: Unexpected character '#' at Line: 2, Column 3" },
  {
    name: 'a non-letter symbol',
    sql: 'a €',
    message: "sql parser error: Unexpected character '€' at Line: 1, Column 3",
  },
];

describe('tokenize', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(show(c.sql)).toEqual(c.tokens);
    });
  }

  it('ends with an eof token at the end position', () => {
    const tokens = tokenize('ab\ncd');
    expect(tokens.at(-1)).toMatchObject({ kind: 'eof', line: 2, column: 3 });
  });

  it('keeps the source text of each token for messages', () => {
    expect(tokenize("Sel 'a''b' \"Q\"").map((t) => t.text)).toEqual(['Sel', "'a''b'", '"Q"', '']);
  });

  for (const c of errors) {
    it(`rejects ${c.name}`, () => {
      let error: unknown;
      try {
        tokenize(c.sql);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SqlTokenizeError);
      expect((error as SqlTokenizeError).kind).toBe('sqlParse');
      expect((error as Error).message).toBe(c.message);
    });
  }
});

// The parser reads tokens one at a time (lexer.ts): a tokenizer error must still come before any
// parse error, and a reading that goes back past the tokens it keeps must read them again.
describe('tokens read one at a time', () => {
  it('reports a tokenizer error late in the text before an earlier parse error', () => {
    expect(() => parseStatements("SELECT FROM t WHERE s = 'unterminated")).toThrow(SqlTokenizeError);
  });

  it('goes back over more tokens than it keeps behind the cursor', () => {
    // POSITION(a IN b) is tried first, then read again as a call: 800 tokens back.
    const terms = Array.from({ length: 400 }, (_, i) => String(i)).join(' + ');
    const [s] = parseStatements(`SELECT position(${terms}, 'x') FROM t`);
    const [plain] = parseStatements(`SELECT strpos(${terms}, 'x') FROM t`);
    expect(printStatement(s!).replace('position(', 'strpos(')).toBe(printStatement(plain!));
  });
});
