// Runs a directory of sqllogictest files against a Sundial server over HTTP (cnosdb-sql.md §7):
// files in CnosDB's order (in each directory its files by name, then its subdirectories by
// name; a name ending `__WINDOWS` runs only on Windows and `__UNIX` only elsewhere, as CnosDB's
// runner does), each with fresh client state; `include` spliced in by the parser; `sleep`
// shortened (Sundial has no asynchronous meta service to wait for), except in the files that wait
// for the server's own clock (real-time-files.ts; all with `realTime: 'all'`); `retry N backoff
// D` honoured with the backoff treated alike; `skipif`/`onlyif` against the labels below; `halt`
// ends the file; `system` commands are not run (a failure). A record passes or fails on its own;
// an error of the server is a failure, never a crash of the runner. CnosDB's runner also rewrites
// every CREATE DATABASE to add `shard 1 replica 1`; those are Sundial's defaults, so nothing is added.

import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { applyInstruction, initialState } from './client-state.js';
import { actualLines, errorRegex, expectedLines, valueSorted } from './normalize.js';
import { REAL_TIME_FILES } from './real-time-files.js';
import { execute, type Outcome } from './server-client.js';
import { formatLocation, parseSltFile, type ExpectedError, type SltLocation, type SltRecord } from './slt-parser.js';

/** Labels `skipif`/`onlyif` compare with: CnosDB's engine name for a single node, and ours. */
export const ENGINE_LABELS: readonly string[] = ['singleton', 'sundial'];

export interface RunOptions {
  /** Base URL of the server, e.g. http://127.0.0.1:8902. */
  url: string;
  /** Multiplies every `sleep` and retry backoff (default 0.05, at most MAX_SLEEP_MS each). */
  sleepScale?: number;
  /**
   * Files (paths relative to the directory) whose sleeps and backoffs run in full, or 'all'.
   * Default: REAL_TIME_FILES, the CnosDB files that wait for TTL expiry, delayed drops or usage reports.
   */
  realTime?: readonly string[] | 'all';
  /** Only files whose path relative to the directory contains this. */
  filter?: string;
  /** Per-request timeout (default 30 s; a TIMEOUT instruction overrides it per file). */
  timeoutMs?: number;
  /** Called after each file (progress output). */
  onFile?: (result: FileResult) => void;
}

export interface RecordFailure {
  /** `file:line`, with the including file when the record came from an include. */
  location: string;
  sql: string;
  expected: string;
  got: string;
  /** An error was expected and came, but its message did not match. */
  errorTextOnly: boolean;
}

export interface FileResult {
  /** Path relative to the directory run. */
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: RecordFailure[];
  /** Locations of the records that passed. */
  passes: string[];
  /** Whether its sleeps ran in full (real time) or shortened. */
  realTime: boolean;
  /** Milliseconds the runner waited in `sleep` records and retry backoffs. */
  sleptMs: number;
}

export interface RunResult {
  files: FileResult[];
  passed: number;
  failed: number;
  skipped: number;
}

const MAX_SLEEP_MS = 100;

/** Whether a file is for this system: CnosDB's runner runs `x__WINDOWS.slt` only on Windows, `x__UNIX.slt` only elsewhere. */
export function forThisSystem(name: string, platform: string = process.platform): boolean {
  const stem = name.slice(0, -'.slt'.length);
  if (stem.endsWith('__WINDOWS')) return platform === 'win32';
  if (stem.endsWith('__UNIX')) return platform !== 'win32';
  return true;
}

/** Every .slt file under `dir` in CnosDB's order, those for another system left out. */
export function sltFiles(dir: string, platform: string = process.platform): string[] {
  const entries = readdirSync(dir).sort();
  const files = entries
    .filter((e) => e.endsWith('.slt') && forThisSystem(e, platform) && statSync(join(dir, e)).isFile())
    .map((e) => join(dir, e));
  const dirs = entries.filter((e) => statSync(join(dir, e)).isDirectory());
  return [...files, ...dirs.flatMap((d) => sltFiles(join(dir, d), platform))];
}

export async function runDirectory(dir: string, options: RunOptions): Promise<RunResult> {
  const result: RunResult = { files: [], passed: 0, failed: 0, skipped: 0 };
  for (const path of sltFiles(dir)) {
    const file = relative(dir, path);
    if (options.filter !== undefined && !file.includes(options.filter)) continue;
    const r = await runFile(path, file, options, dir);
    result.files.push(r);
    result.passed += r.passed;
    result.failed += r.failed;
    result.skipped += r.skipped;
    options.onFile?.(r);
  }
  return result;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs one file; locations in the result are relative to `root`. */
export async function runFile(path: string, file: string, options: RunOptions, root: string): Promise<FileResult> {
  const realTimeFiles = options.realTime ?? REAL_TIME_FILES;
  const realTime = realTimeFiles === 'all' || realTimeFiles.includes(file.split(sep).join('/'));
  const result: FileResult = { file, passed: 0, failed: 0, skipped: 0, failures: [], passes: [], realTime, sleptMs: 0 };
  const where = (loc: SltLocation): string =>
    formatLocation(loc).replaceAll(root.endsWith(sep) ? root : root + sep, '');
  const scale = options.sleepScale ?? 0.05;
  const wait = (ms: number): Promise<void> => {
    const waitMs = realTime ? ms : Math.min(ms * scale, MAX_SLEEP_MS);
    result.sleptMs += waitMs;
    return sleep(waitMs);
  };
  let records: SltRecord[];
  try {
    records = parseSltFile(path);
  } catch (e) {
    result.failed++;
    result.failures.push({
      location: file,
      sql: '',
      expected: 'a file the parser reads',
      got: (e as Error).message,
      errorTextOnly: false,
    });
    return result;
  }
  const state = initialState(options.timeoutMs ?? 30_000);
  for (const record of records) {
    if (record.kind === 'halt') break;
    if (record.kind === 'sleep') {
      await wait(record.durationMs);
      continue;
    }
    if (record.kind === 'system') {
      if (skipped(record.conditions)) result.skipped++;
      else
        fail(result, {
          location: where(record.loc),
          sql: record.command,
          expected: 'a shell command run',
          got: 'system commands are not run over HTTP',
          errorTextOnly: false,
        });
      continue;
    }
    if (record.kind !== 'statement' && record.kind !== 'query') continue;
    if (skipped(record.conditions)) {
      result.skipped++;
      continue;
    }
    const attempts = 1 + (record.retry?.attempts ?? 0);
    let verdict: Verdict = { ok: false, expected: '', got: '' };
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await wait(record.retry!.backoffMs);
      for (const ins of record.request.instructions) applyInstruction(state, ins);
      verdict = judge(record, await execute(options.url, state, record.request.body));
      if (verdict.ok) break;
    }
    if (verdict.ok) {
      result.passed++;
      result.passes.push(where(record.loc));
    } else
      fail(result, {
        location: where(record.loc),
        sql: record.sql,
        expected: verdict.expected,
        got: verdict.got,
        errorTextOnly: verdict.errorTextOnly === true,
      });
  }
  return result;
}

function fail(result: FileResult, failure: RecordFailure): void {
  result.failed++;
  result.failures.push(failure);
}

function skipped(conditions: ReadonlyArray<{ kind: 'skipif' | 'onlyif'; label: string }>): boolean {
  return conditions.some((c) =>
    c.kind === 'skipif' ? ENGINE_LABELS.includes(c.label) : !ENGINE_LABELS.includes(c.label),
  );
}

interface Verdict {
  ok: boolean;
  expected: string;
  got: string;
  errorTextOnly?: boolean;
}

function describe(outcome: Outcome): string {
  switch (outcome.kind) {
    case 'done':
      return 'success without a result set';
    case 'rows':
      return outcome.rows.length === 0 ? 'zero rows' : actualLines(outcome.rows).join('\n');
    case 'error':
      return `error ${outcome.status} ${outcome.code}: ${outcome.message}`;
    case 'broken':
      return `no valid answer: ${outcome.reason}`;
  }
}

export function judge(record: Extract<SltRecord, { kind: 'statement' | 'query' }>, outcome: Outcome): Verdict {
  const got = describe(outcome);
  const expect = record.expect;
  if (expect.kind === 'error') return judgeError(expect.error, outcome, got);
  if (record.kind === 'statement') {
    if (expect.kind === 'ok')
      return { ok: outcome.kind === 'done' || outcome.kind === 'rows', expected: 'success', got };
    if (expect.kind === 'count') {
      const n =
        outcome.kind === 'rows' && outcome.rows.length === 1 && outcome.rows[0]!.length === 1
          ? outcome.rows[0]![0]!
          : undefined;
      const count = n?.t === 'number' ? n.raw : outcome.kind === 'done' ? '0' : undefined;
      return { ok: count === String(expect.count), expected: `${expect.count} rows affected`, got };
    }
  }
  if (expect.kind !== 'results') return { ok: false, expected: 'BUG: unknown expectation', got };
  let want = expectedLines(expect.rows);
  if (outcome.kind === 'done') return { ok: want.length === 0, expected: want.join('\n') || 'zero rows', got };
  if (outcome.kind !== 'rows') return { ok: false, expected: want.join('\n') || 'zero rows', got };
  let have = actualLines(outcome.rows);
  if (expect.sortMode === 'rowsort') {
    want = [...want].sort();
    have = [...have].sort();
  } else if (expect.sortMode === 'valuesort') {
    want = valueSorted(want);
    have = valueSorted(have);
  }
  const ok = want.length === have.length && want.every((line, i) => line === have[i]);
  return { ok, expected: want.join('\n') || 'zero rows', got: have.join('\n') || 'zero rows' };
}

function judgeError(error: ExpectedError, outcome: Outcome, got: string): Verdict {
  if (outcome.kind !== 'error')
    return { ok: false, expected: `an error${error.kind === 'any' ? '' : ` matching ${describeError(error)}`}`, got };
  switch (error.kind) {
    case 'any':
      return { ok: true, expected: 'an error', got };
    case 'multiline': {
      const ok = outcome.message.trim() === error.text;
      return { ok, expected: `the error ${JSON.stringify(error.text)}`, got, errorTextOnly: !ok };
    }
    case 'regex': {
      let re: RegExp;
      try {
        re = errorRegex(error.source);
      } catch (e) {
        return {
          ok: false,
          expected: `an error matching ${error.source}`,
          got: `(the regex does not compile in JavaScript: ${(e as Error).message}) ${got}`,
          errorTextOnly: true,
        };
      }
      const ok = re.test(outcome.message);
      return { ok, expected: `an error matching /${re.source}/`, got, errorTextOnly: !ok };
    }
  }
}

function describeError(error: ExpectedError): string {
  if (error.kind === 'regex') {
    try {
      return `/${errorRegex(error.source).source}/`;
    } catch {
      return error.source;
    }
  }
  return error.kind === 'multiline' ? JSON.stringify(error.text) : '';
}
