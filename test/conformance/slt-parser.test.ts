import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatLocation,
  parseDurationMs,
  parseSlt,
  parseSltFile,
  SltParseError,
  type SltRecord,
} from './slt-parser.js';
import { parseRequest } from './slt-request.js';

const only = <K extends SltRecord['kind']>(records: SltRecord[], kind: K): Array<Extract<SltRecord, { kind: K }>> =>
  records.filter((r): r is Extract<SltRecord, { kind: K }> => r.kind === kind);

describe('parseSlt', () => {
  it('reads statements, queries with results and sort modes, and comments', () => {
    const text = [
      '# a comment',
      'statement ok',
      'CREATE TABLE t(f DOUBLE);',
      '',
      'query T rowsort',
      'SELECT *',
      'FROM t;',
      '----',
      '"a" 1',
      '"b" NULL',
      '',
      'query',
      'SELECT 1',
      '----',
      '',
    ].join('\n');
    const records = parseSlt(text, 'x.slt');
    expect(records.map((r) => r.kind)).toEqual(['comment', 'statement', 'query', 'query']);
    const [q1, q2] = only(records, 'query');
    expect(q1!.sql).toBe('SELECT *\nFROM t;');
    expect(q1!.loc).toEqual({ file: 'x.slt', line: 5 });
    expect(q1!.expect).toEqual({
      kind: 'results',
      types: 'T',
      sortMode: 'rowsort',
      label: undefined,
      rows: ['"a" 1', '"b" NULL'],
    });
    expect(q2!.expect).toEqual({ kind: 'results', types: '', sortMode: undefined, label: undefined, rows: [] });
  });

  it('reads inline error regexes, bare errors, a multi-line error block and retry', () => {
    const text = [
      'statement error Table not found: \\"t\\"',
      'DROP TABLE t;',
      '',
      'query error',
      'SELECT x;',
      '',
      'statement error',
      'SELECT y;',
      '----',
      'first line',
      'second line',
      '',
      '',
      'statement ok retry 3 backoff 1s',
      'INSERT INTO t VALUES (1);',
      '',
    ].join('\n');
    const records = parseSlt(text, 'e.slt');
    const statements = only(records, 'statement');
    expect(statements[0]!.expect).toEqual({
      kind: 'error',
      error: { kind: 'regex', source: 'Table not found: \\"t\\"' },
    });
    expect(only(records, 'query')[0]!.expect).toEqual({ kind: 'error', error: { kind: 'any' } });
    expect(statements[1]!.expect).toEqual({
      kind: 'error',
      error: { kind: 'multiline', text: 'first line\nsecond line' },
    });
    expect(statements[2]!.retry).toEqual({ attempts: 3, backoffMs: 1000 });
  });

  it('reads sleep, halt, include and conditions', () => {
    const records = parseSlt(
      ['sleep 100ms', 'skipif singleton', 'statement ok', 'SELECT 1', '', 'include ./other.slt', 'halt'].join('\n'),
      'c.slt',
    );
    expect(records.map((r) => r.kind)).toEqual(['sleep', 'condition', 'statement', 'include', 'halt']);
    expect(only(records, 'sleep')[0]!.durationMs).toBe(100);
    expect(only(records, 'statement')[0]!.conditions).toEqual([{ kind: 'skipif', label: 'singleton' }]);
  });

  const BAD: ReadonlyArray<readonly [string, string, number, RegExp]> = [
    ['an unknown record', 'frobnicate now', 1, /unknown record type/],
    ['a statement without SQL', 'statement ok', 2, /expected SQL/],
    ['a statement with results', 'statement ok\nSELECT 1\n----\n1', 1, /use `query` instead/],
    ['a bad sleep', 'sleep soon', 1, /expected `sleep <duration>`/],
    ['a bad sort mode', 'query T sideways\nSELECT 1', 1, /invalid sort mode/],
  ];
  for (const [name, text, line, message] of BAD) {
    it(`rejects ${name} with its line`, () => {
      let err: unknown;
      try {
        parseSlt(text, 'bad.slt');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SltParseError);
      expect((err as SltParseError).message.startsWith(`bad.slt:${line}: `)).toBe(true);
      expect((err as SltParseError).message).toMatch(message);
    });
  }

  it('reads humantime durations', () => {
    expect(['100ms', '1s', '3m', '1m30s', '2h', 'soon', ''].map(parseDurationMs)).toEqual([
      100,
      1000,
      180000,
      90000,
      7200000,
      undefined,
      undefined,
    ]);
  });
});

describe('parseSltFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slt-parser-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('splices included files in place, relative to the including file, with their origin', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'setup.slt'), 'statement ok\nCREATE DATABASE d;\n');
    writeFileSync(join(dir, 'sub', 'main.slt'), 'include ./../setup.slt\n\nstatement ok\nSELECT 2;\n');
    const records = parseSltFile(join(dir, 'sub', 'main.slt'));
    const statements = only(records, 'statement');
    expect(statements.map((s) => s.sql)).toEqual(['CREATE DATABASE d;', 'SELECT 2;']);
    expect(formatLocation(statements[0]!.loc)).toBe(
      `${join(dir, 'setup.slt')}:1 (included from ${join(dir, 'sub', 'main.slt')}:1)`,
    );
  });

  it('fails on an include that matches no file', () => {
    writeFileSync(join(dir, 'missing.slt'), 'include ./nowhere/*.slt\n');
    expect(() => parseSltFile(join(dir, 'missing.slt'))).toThrow(/matches no file/);
  });
});

describe('parseRequest', () => {
  it('separates instructions from SQL and keeps `-- comments` as SQL', () => {
    const r = parseRequest('--#DATABASE = db1;\nSELECT 1 -- why\n\n;');
    expect(r.instructions).toEqual([{ name: 'DATABASE', value: 'db1;', lineOffset: 0 }]);
    expect(r.body).toEqual({ kind: 'sql', text: 'SELECT 1 -- why\n;' });
  });

  it('reads write blocks that end on the last line, and rejects others', () => {
    expect(parseRequest('--#LP_BEGIN\ncpu v=1 1\ncpu v=2 2\n--#LP_END').body).toEqual({
      kind: 'line-protocol',
      text: 'cpu v=1 1\ncpu v=2 2',
    });
    expect(parseRequest('--#OPENTSDB_JSON_BEGIN\n{}\n--#OPENTSDB_JSON_END').body).toEqual({
      kind: 'opentsdb-json',
      text: '{}',
    });
    expect(parseRequest('--#LP_BEGIN\ncpu v=1 1').body.kind).toBe('invalid');
    expect(parseRequest('--#LP_BEGIN\n--#LP_END\ncpu v=1 1').body.kind).toBe('invalid');
  });

  it('answers a record of instructions only with no body, and notes --#HTTP', () => {
    expect(parseRequest('--#CHUNKED=true').body).toEqual({ kind: 'none' });
    expect(parseRequest('--#HTTP\nSELECT 1').http).toBe(true);
  });
});
