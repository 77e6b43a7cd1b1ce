// Parses sqllogictest (.slt) text into records, following sqllogictest-rs 0.28's parser.rs line for
// line (cnosdb-sql.md §7.1): an *exactly* empty line ends a record (a line of spaces does not), `#`
// starts a comment only at the top level, and the first line after a record header is always SQL.

import { readFileSync } from 'node:fs';
import { expandInclude } from './include-glob.js';
import { parseRequest, type SltRequest } from './slt-request.js';

export interface SltLocation {
  file: string;
  /** 1-based. */
  line: number;
  /** The `include` line that pulled this file in, if any. */
  includedFrom?: SltLocation;
}

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

export type Condition = { kind: 'skipif' | 'onlyif'; label: string };

export type ExpectedError =
  | { kind: 'any' }
  /** Tokens after `error`, rejoined with single spaces: a regex *searched* in the error text. */
  | { kind: 'regex'; source: string }
  /** The block under `----`, ended by two blank lines: the whole error text, trimmed. */
  | { kind: 'multiline'; text: string };

export interface Retry {
  attempts: number;
  backoffMs: number;
}

export type StatementExpect =
  | { kind: 'ok' }
  | { kind: 'count'; count: bigint }
  | { kind: 'error'; error: ExpectedError };

export type QueryExpect =
  | { kind: 'results'; types: string; sortMode: SortMode | undefined; label: string | undefined; rows: string[] }
  | { kind: 'error'; error: ExpectedError };

interface Executable {
  loc: SltLocation;
  /** `skipif`/`onlyif` lines seen since the previous statement, query or system record. */
  conditions: Condition[];
  /** From a `connection NAME` line; undefined is the default connection. */
  connection: string | undefined;
  /** The raw text between the header and `----` (or the blank line), lines joined with `\n`. */
  sql: string;
  /** `sql` split into CnosDB instructions and the body to send. */
  request: SltRequest;
  retry: Retry | undefined;
}

export type SltRecord =
  | ({ kind: 'statement'; expect: StatementExpect } & Executable)
  | ({ kind: 'query'; expect: QueryExpect } & Executable)
  | { kind: 'system'; loc: SltLocation; conditions: Condition[]; command: string }
  | { kind: 'include'; loc: SltLocation; pattern: string; files: string[] }
  | { kind: 'sleep'; loc: SltLocation; durationMs: number }
  | { kind: 'halt'; loc: SltLocation }
  | { kind: 'subtest'; loc: SltLocation; name: string }
  | { kind: 'condition'; loc: SltLocation; condition: Condition }
  | { kind: 'connection'; loc: SltLocation; name: string }
  | { kind: 'hash-threshold'; loc: SltLocation; threshold: number }
  | { kind: 'control'; loc: SltLocation; setting: 'sortmode' | 'resultmode' | 'substitution'; value: string }
  | { kind: 'comment'; loc: SltLocation; lines: string[] };

export class SltParseError extends Error {
  constructor(
    readonly loc: SltLocation,
    readonly reason: string,
  ) {
    super(`${formatLocation(loc)}: ${reason}`);
    this.name = 'SltParseError';
  }
}

export function formatLocation(loc: SltLocation): string {
  let s = `${loc.file}:${loc.line}`;
  for (let up = loc.includedFrom; up !== undefined; up = up.includedFrom) s += ` (included from ${up.file}:${up.line})`;
  return s;
}

const DELIMITER = '----';
const SORT_MODES: readonly string[] = ['nosort', 'rowsort', 'valuesort'];

/**
 * Parses one file's text. `include` records are returned unexpanded (with `files: []`); use
 * `parseSltFile` to read a file and splice its includes in. Throws `SltParseError`.
 */
export function parseSlt(text: string, file: string, includedFrom?: SltLocation): SltRecord[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // as Rust's str::lines()
  const records: SltRecord[] = [];
  let conditions: Condition[] = [];
  let connection: string | undefined;
  let comment: { loc: SltLocation; lines: string[] } | undefined;
  let i = 0;
  const at = (line: number): SltLocation =>
    includedFrom === undefined ? { file, line } : { file, line, includedFrom };

  /** SQL lines up to an empty line or, if `delimited`, a `----` line; the first line is always taken. */
  const takeSql = (header: SltLocation, delimited: boolean): { sql: string; hasResults: boolean } => {
    if (i >= lines.length) throw new SltParseError(at(header.line + 1), 'unexpected end of file, expected SQL');
    const out = [lines[i++]!];
    while (i < lines.length) {
      const line = lines[i++]!;
      if (line === '') return { sql: out.join('\n'), hasResults: false };
      if (delimited && line === DELIMITER) return { sql: out.join('\n'), hasResults: true };
      out.push(line);
    }
    return { sql: out.join('\n'), hasResults: false };
  };

  const takeMultilineError = (): ExpectedError => {
    const out: string[] = [];
    while (i < lines.length) {
      const line = lines[i++]!;
      if (line === '' && (i >= lines.length || lines[i] === '')) {
        i++;
        break;
      }
      out.push(line);
    }
    return { kind: 'multiline', text: out.join('\n').trim() };
  };

  while (i < lines.length) {
    const lineNo = i + 1;
    const line = lines[i++]!;
    if (line.startsWith('#')) {
      if (comment === undefined) comment = { loc: at(lineNo), lines: [] };
      comment.lines.push(line.slice(1));
      continue;
    }
    if (comment !== undefined) {
      records.push({ kind: 'comment', ...comment });
      comment = undefined;
    }
    const tokens = line.split(/\s+/).filter((t) => t !== '');
    if (tokens.length === 0) continue;
    const loc = at(lineNo);
    const [head, ...args] = tokens as [string, ...string[]];
    const bad = (reason: string): never => {
      throw new SltParseError(loc, `${reason}; found ${JSON.stringify(line)}`);
    };
    switch (head) {
      case 'include':
        if (args.length !== 1) bad('expected `include <file>`');
        records.push({ kind: 'include', loc, pattern: args[0]!, files: [] });
        break;
      case 'halt':
        if (args.length !== 0) bad('expected `halt`');
        records.push({ kind: 'halt', loc });
        break;
      case 'subtest':
        if (args.length !== 1) bad('expected `subtest <name>`');
        records.push({ kind: 'subtest', loc, name: args[0]! });
        break;
      case 'sleep': {
        const ms = args.length === 1 ? parseDurationMs(args[0]!) : undefined;
        if (ms === undefined) bad('expected `sleep <duration>` such as 100ms or 1s');
        records.push({ kind: 'sleep', loc, durationMs: ms! });
        break;
      }
      case 'skipif':
      case 'onlyif': {
        if (args.length !== 1) bad(`expected \`${head} <label>\``);
        const condition: Condition = { kind: head, label: args[0]! };
        conditions.push(condition);
        records.push({ kind: 'condition', loc, condition });
        break;
      }
      case 'connection':
        if (args.length !== 1) bad('expected `connection <name>`');
        connection = args[0] === 'default' ? undefined : args[0];
        records.push({ kind: 'connection', loc, name: args[0]! });
        break;
      case 'hash-threshold': {
        if (args.length !== 1 || !/^\d+$/.test(args[0]!)) bad('expected `hash-threshold <number>`');
        records.push({ kind: 'hash-threshold', loc, threshold: Number(args[0]) });
        break;
      }
      case 'control': {
        const [setting, value] = args;
        if (args.length !== 2 || (setting !== 'sortmode' && setting !== 'resultmode' && setting !== 'substitution')) {
          bad('expected `control sortmode|resultmode|substitution <value>`');
        }
        if (setting === 'sortmode' && !SORT_MODES.includes(value!)) bad(`invalid sort mode ${JSON.stringify(value)}`);
        if (setting === 'substitution' && value !== 'on' && value !== 'off')
          bad('expected `control substitution on|off`');
        records.push({
          kind: 'control',
          loc,
          setting: setting as 'sortmode' | 'resultmode' | 'substitution',
          value: value!,
        });
        break;
      }
      case 'system': {
        if (args.length !== 1 || args[0] !== 'ok') bad('expected `system ok`');
        const { sql } = takeSql(loc, false);
        records.push({ kind: 'system', loc, conditions, command: sql });
        conditions = [];
        break;
      }
      case 'statement': {
        const { rest, retry } = splitRetry(args, bad);
        let expect: StatementExpect;
        if (rest.length === 1 && rest[0] === 'ok') expect = { kind: 'ok' };
        else if (rest[0] === 'count' && rest.length === 2 && /^\d+$/.test(rest[1]!))
          expect = { kind: 'count', count: BigInt(rest[1]!) };
        else if (rest[0] === 'error') expect = { kind: 'error', error: inlineError(rest.slice(1)) };
        else expect = bad('expected `statement ok`, `statement count <n>` or `statement error [regex]`');
        const { sql, hasResults } = takeSql(loc, true);
        if (hasResults) {
          if (expect.kind !== 'error') bad('a statement has no results; use `query` instead');
          if (expect.kind === 'error' && expect.error.kind !== 'any')
            bad('an error message both inline and under `----`');
          expect = { kind: 'error', error: takeMultilineError() };
        }
        records.push({
          kind: 'statement',
          loc,
          conditions,
          connection,
          sql,
          request: parseRequest(sql),
          retry,
          expect,
        });
        conditions = [];
        connection = undefined;
        break;
      }
      case 'query': {
        const { rest, retry } = splitRetry(args, bad);
        let expect: QueryExpect;
        if (rest[0] === 'error') expect = { kind: 'error', error: inlineError(rest.slice(1)) };
        else {
          const [types = '', sortMode, label] = rest;
          if (sortMode !== undefined && !SORT_MODES.includes(sortMode))
            bad(`invalid sort mode ${JSON.stringify(sortMode)}`);
          expect = { kind: 'results', types, sortMode: sortMode as SortMode | undefined, label, rows: [] };
        }
        const { sql, hasResults } = takeSql(loc, true);
        if (hasResults) {
          if (expect.kind === 'results') {
            while (i < lines.length) {
              const row = lines[i++]!;
              if (row === '') break;
              expect.rows.push(row);
            }
          } else if (expect.error.kind !== 'any') bad('an error message both inline and under `----`');
          else expect = { kind: 'error', error: takeMultilineError() };
        }
        records.push({ kind: 'query', loc, conditions, connection, sql, request: parseRequest(sql), retry, expect });
        conditions = [];
        connection = undefined;
        break;
      }
      default:
        bad('unknown record type');
    }
  }
  if (comment !== undefined) records.push({ kind: 'comment', ...comment });
  return records;
}

/**
 * Reads and parses a file, splicing each `include`d file's records in right after the `include`
 * record (recursively). A pattern matching no file is a parse error, as in sqllogictest-rs.
 */
export function parseSltFile(path: string, includedFrom?: SltLocation, depth = 0): SltRecord[] {
  if (depth > 16)
    throw new SltParseError(includedFrom ?? { file: path, line: 0 }, 'includes nested deeper than 16 levels');
  const records = parseSlt(readFileSync(path, 'utf8'), path, includedFrom);
  const out: SltRecord[] = [];
  for (const r of records) {
    out.push(r);
    if (r.kind !== 'include') continue;
    r.files = expandInclude(r.pattern, path);
    if (r.files.length === 0) throw new SltParseError(r.loc, `include ${JSON.stringify(r.pattern)} matches no file`);
    for (const f of r.files) out.push(...parseSltFile(f, r.loc, depth + 1));
  }
  return out;
}

function inlineError(tokens: string[]): ExpectedError {
  const source = tokens.join(' ');
  return source === '' ? { kind: 'any' } : { kind: 'regex', source };
}

/** Strips a trailing `retry <n> backoff <duration>` from a statement or query header. */
function splitRetry(args: string[], bad: (reason: string) => never): { rest: string[]; retry: Retry | undefined } {
  const n = args.length;
  if (n >= 4 && args[n - 4] === 'retry' && args[n - 2] === 'backoff') {
    const backoffMs = parseDurationMs(args[n - 1]!);
    if (!/^\d+$/.test(args[n - 3]!) || backoffMs === undefined) bad('expected `retry <n> backoff <duration>`');
    return { rest: args.slice(0, n - 4), retry: { attempts: Number(args[n - 3]), backoffMs: backoffMs! } };
  }
  return { rest: args, retry: undefined };
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  nsec: 1e-6,
  us: 1e-3,
  usec: 1e-3,
  µs: 1e-3,
  ms: 1,
  msec: 1,
  millis: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/** A humantime duration (`100ms`, `1s`, `1m30s`) in milliseconds; undefined if malformed. */
export function parseDurationMs(text: string): number | undefined {
  const re = /(\d+)\s*([a-zµ]+)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const unit = UNIT_MS[m[2]!];
    if (unit === undefined) return undefined;
    total += Number(m[1]) * unit;
    matched = re.lastIndex;
  }
  return matched === text.length && matched > 0 ? total : undefined;
}
