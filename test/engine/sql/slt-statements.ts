// Reads the SQL of every record in CnosDB's .slt files (format: reference/cnosdb-sql.md §7) at
// test time from ../shared; the files are AGPL fixtures and are never copied into this repository.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import { CONFORMANCE_DIR } from '../../support/shared-dir.js';

/** The cases' folder, or undefined outside the workspace (the tests that need it skip). */
export const SLT_ROOT = CONFORMANCE_DIR;

export interface SltStatement {
  /** File path relative to SLT_ROOT, and the 1-based line of the record header. */
  readonly file: string;
  readonly line: number;
  readonly sql: string;
  /** `ok` for statement ok / query; `error` for statement error / query error. */
  readonly expect: 'ok' | 'error';
  /** CnosDB's own parser message when the expected error is a parser error (unescaped). */
  readonly parserError?: string;
}

function sltFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sltFiles(path));
    else if (name.endsWith('.slt')) out.push(path);
  }
  return out;
}

/** The text after "sql parser error: " in an error regex, with regex escapes removed. */
function parserErrorOf(regex: string): string | undefined {
  const at = regex.indexOf('sql parser error: ');
  if (at < 0) return undefined;
  let text = '';
  for (let i = at + 'sql parser error: '.length; i < regex.length; i++) {
    const c = regex[i]!;
    if (c === '\\') {
      // `\\"` in the regex stands for a `\"` inside the Rust status text, i.e. a quote.
      i++;
      if (regex[i] === '\\' && regex[i + 1] === '"') i++;
      text += regex[i] ?? '';
    } else if (c === '"') {
      break;
    } else {
      text += c;
    }
  }
  return text;
}

/** SQL lines of a record: instruction lines and line-protocol blocks dropped. */
function sqlOf(lines: string[]): string {
  const kept: string[] = [];
  let inBody = false;
  for (const line of lines) {
    const instruction = /^--\s*#\s*(\w+)/.exec(line);
    if (instruction) {
      const name = instruction[1]!;
      if (/_BEGIN$/.test(name)) inBody = true;
      if (/_END$/.test(name)) inBody = false;
      continue;
    }
    if (!inBody && line.trim() !== '') kept.push(line);
  }
  return kept.join('\n');
}

/** Every record's SQL; none when the cases are absent (SLT_ROOT undefined). */
export function readSltStatements(root = SLT_ROOT): SltStatement[] {
  const statements: SltStatement[] = [];
  if (root === undefined) return statements;
  for (const path of sltFiles(root)) {
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const header = lines[i]!;
      const words = header.trim().split(/\s+/);
      if (words[0] !== 'statement' && words[0] !== 'query') continue;
      const line = i + 1;
      const body: string[] = [];
      for (i++; i < lines.length && lines[i]!.trim() !== '' && lines[i] !== '----'; i++) body.push(lines[i]!);
      if (lines[i] === '----') for (i++; i < lines.length && lines[i]!.trim() !== ''; i++);
      const sql = sqlOf(body);
      if (sql === '') continue;
      const isError = words[1] === 'error';
      const regex = isError ? header.trim().slice(`${words[0]} error`.length).trim() : '';
      const parserError = isError ? parserErrorOf(regex) : undefined;
      statements.push({
        file: relative(root, path),
        line,
        sql,
        expect: isError ? 'error' : 'ok',
        ...(parserError === undefined ? {} : { parserError }),
      });
    }
  }
  return statements;
}
