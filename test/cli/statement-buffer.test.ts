// The shell's statement buffer (host/cli/statement-buffer.ts): which typed lines complete which
// statements, and what waits for the next line.

import { describe, expect, it } from 'vitest';
import { StatementBuffer } from '../../host/cli/statement-buffer.js';

const cases: Array<{ name: string; lines: string[]; want: string[][]; pending: boolean }> = [
  { name: 'one statement on one line', lines: ['SELECT 1;'], want: [['SELECT 1']], pending: false },
  {
    name: 'a statement over lines',
    lines: ['SELECT a,', 'b FROM t', 'WHERE x;'],
    want: [[], [], ['SELECT a,\nb FROM t\nWHERE x']],
    pending: false,
  },
  {
    name: 'two statements on a line',
    lines: ['SELECT 1; SELECT 2;'],
    want: [['SELECT 1', 'SELECT 2']],
    pending: false,
  },
  {
    name: 'a statement and the start of the next',
    lines: ['SELECT 1; SELECT', '2;'],
    want: [['SELECT 1'], ['SELECT\n2']],
    pending: false,
  },
  { name: 'a ; in a string', lines: ["SELECT 'a;b'", ';'], want: [[], ["SELECT 'a;b'"]], pending: false },
  { name: 'a ; in a string over lines', lines: ["SELECT 'a", ";b';"], want: [[], ["SELECT 'a\n;b'"]], pending: false },
  { name: 'a ; in a line comment', lines: ['SELECT 1 -- no;', ';'], want: [[], ['SELECT 1 -- no;']], pending: false },
  { name: 'a ; in a block comment', lines: ['SELECT /* ; */ 1;'], want: [['SELECT /* ; */ 1']], pending: false },
  { name: 'a ; in a quoted name', lines: ['SELECT "a;b" FROM t;'], want: [['SELECT "a;b" FROM t']], pending: false },
  {
    name: 'a ; in parentheses',
    lines: ['CREATE TABLE t (v DOUBLE;', 'TAGS(h));'],
    want: [[], ['CREATE TABLE t (v DOUBLE;\nTAGS(h))']],
    pending: false,
  },
  { name: 'an unfinished statement', lines: ['SELECT 1'], want: [[]], pending: true },
  {
    name: 'empty statements and a comment after the last ;',
    lines: [';;', 'SELECT 1; -- done'],
    want: [[], ['SELECT 1']],
    pending: false,
  },
  { name: 'blank lines', lines: ['', '   '], want: [[], []], pending: false },
];

describe('StatementBuffer', () => {
  for (const c of cases) {
    it(`completes ${c.name}`, () => {
      const b = new StatementBuffer();
      expect(c.lines.map((l) => b.add(l))).toEqual(c.want);
      expect(b.pending).toBe(c.pending);
    });
  }

  it('forgets an unfinished statement when cleared (Ctrl-C at the prompt)', () => {
    const b = new StatementBuffer();
    b.add('SELECT 1,');
    b.clear();
    expect(b.pending).toBe(false);
    expect(b.add('SELECT 2;')).toEqual(['SELECT 2']);
  });
});
