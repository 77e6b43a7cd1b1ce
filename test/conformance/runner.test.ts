// The runner against the real server, on a small case set of its own: writes that succeed and
// fail, per-file client state, file order (files for another system left out), include, sleep
// (shortened, or in full in the real-time files), retry, halt, conditions, system records and
// parse errors. (SQL records are covered by conformance.test.ts over CnosDB's set.)

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { fileLine, fullReport, totalLine } from './report.js';
import { runDirectory, sltFiles, type RunResult } from './runner.js';
import { closeConnections } from './server-client.js';

const LP = (line: string): string => `--#LP_BEGIN\n${line}\n--#LP_END`;

const FILES: Record<string, string> = {
  'a.slt': [
    `statement ok\n${LP('cpu,host=a usage=1 1')}`,
    `statement error Database not found: "nosuchdb"\n--#DATABASE = nosuchdb;\n${LP('cpu,host=a usage=1 1')}`,
    `statement ok\n--#DATABASE = public`,
    `statement error\n${LP('cpu,host=a usage=2 2')}`,
    `statement error .+\n${LP('cpu,host=a')}`,
    `statement ok\n--#PRECISION = ms\n${LP('cpu,host=b usage=1 1700000000000')}`,
    `skipif singleton\nstatement ok\n${LP('cpu,host=a usage=1 1')}`,
    `onlyif cluster\nstatement ok\n${LP('cpu,host=a usage=1 1')}`,
    `onlyif sundial\nstatement ok\n${LP('cpu,host=c usage=1 1')}`,
    `system ok\necho hello`,
    `sleep 1s`,
    `statement ok retry 2 backoff 10ms\n--#DATABASE = nosuchdb\n${LP('cpu,host=a usage=1 1')}`,
    `halt`,
    `statement ok\nnever run`,
  ].join('\n\n'),
  'z.slt': `include ./common.part\n\nstatement ok\n${LP('mem,host=z used=1i 1')}\n\nstatement error Table not found\n--#DATABASE = nosuchdb\n${LP('mem,host=z used=1i 1')}\n`,
  'common.part': `statement ok\n${LP('mem,host=part used=1i 1')}\n`,
  'sub/b.slt': `statement ok\n${LP('disk,host=b free=1 1')}\n`,
  'sub/broken.slt': 'statement ok\n',
  // CnosDB's runner runs these on one system only (copy_into_location__WINDOWS.slt).
  'sub/c__WINDOWS.slt': 'statement ok\nnever run on Linux\n',
  'sub/d__UNIX.slt': `statement ok\n${LP('disk,host=d free=1 1')}\n`,
  // Run in real time below: its sleep is not shortened.
  'sub/wait.slt': `sleep 1s\n\nstatement ok\n${LP('disk,host=w free=1 1')}\n`,
};

describe('conformance runner', () => {
  let server: TestServer;
  let dir: string;
  let result: RunResult;

  beforeAll(async () => {
    server = await startServer({ inProcess: true });
    dir = mkdtempSync(join(tmpdir(), 'slt-runner-'));
    mkdirSync(join(dir, 'sub'));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
    result = await runDirectory(dir, { url: server.url, realTime: ['sub/wait.slt'] });
  });
  afterAll(async () => {
    closeConnections();
    await server.stop();
    server.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists files in CnosDB order: a directory's files by name, then its subdirectories", () => {
    expect(sltFiles(dir, 'linux').map((f) => f.slice(dir.length + 1))).toEqual([
      'a.slt',
      'z.slt',
      'sub/b.slt',
      'sub/broken.slt',
      'sub/d__UNIX.slt',
      'sub/wait.slt',
    ]);
    expect(sltFiles(dir, 'win32').map((f) => f.slice(dir.length + 1))).toEqual([
      'a.slt',
      'z.slt',
      'sub/b.slt',
      'sub/broken.slt',
      'sub/c__WINDOWS.slt',
      'sub/wait.slt',
    ]);
  });

  it('sleeps in full in the real-time files, shortened elsewhere (100 ms at most)', () => {
    const byName = new Map(result.files.map((f) => [f.file, f]));
    expect([byName.get('sub/wait.slt')!.realTime, byName.get('sub/wait.slt')!.sleptMs]).toEqual([true, 1000]);
    // a.slt: `sleep 1s` at the default scale (0.05) and two retry backoffs of 10 ms, as 0.5 ms each.
    expect([byName.get('a.slt')!.realTime, byName.get('a.slt')!.sleptMs]).toEqual([false, 51]);
    expect(fileLine(byName.get('sub/wait.slt')!)).toBe('sub/wait.slt: 1 passed, 0 failed (real time: slept 1.0 s)');
  });

  it('counts passes, failures and skips per file and in total', () => {
    expect(result.files.map(fileLine)).toEqual([
      'a.slt: 6 passed, 3 failed, 2 skipped',
      'z.slt: 2 passed, 1 failed',
      'sub/b.slt: 1 passed, 0 failed',
      'sub/broken.slt: 0 passed, 1 failed',
      'sub/d__UNIX.slt: 1 passed, 0 failed',
      'sub/wait.slt: 1 passed, 0 failed (real time: slept 1.0 s)',
    ]);
    expect(totalLine(result)).toBe('total: 11 passed, 5 failed, 2 skipped (6 files)');
  });

  it('reports each failure with its location, SQL, expected and got', () => {
    const [a, , , broken] = result.files;
    expect(a!.failures.map((f) => [f.location, f.expected, f.got])).toEqual([
      ['a.slt:15', 'an error', 'success without a result set'],
      ['a.slt:49', 'a shell command run', 'system commands are not run over HTTP'],
      // Retried twice (state re-applied each time), failed every time, counted once.
      ['a.slt:54', 'success', 'error 422 030017: Meta: Database not found: "nosuchdb"'],
    ]);
    expect(broken!.failures[0]!.got).toMatch(/broken\.slt:2: unexpected end of file, expected SQL/);
    expect(a!.passes).toEqual(['a.slt:1', 'a.slt:6', 'a.slt:12', 'a.slt:20', 'a.slt:25', 'a.slt:44']);
    const report = fullReport(result);
    expect(report).toContain(
      'FAIL a.slt:15\n  sql:\n    --#LP_BEGIN\n    cpu,host=a usage=2 2\n    --#LP_END\n  expected:\n    an error\n  got:\n    success without a result set\n',
    );
    expect(result.files[1]!.passes).toEqual(['common.part:1 (included from z.slt:1)', 'z.slt:3']);
    expect(result.files[1]!.failures.map((f) => [f.location, f.expected, f.errorTextOnly])).toEqual([
      ['z.slt:8', 'an error matching /Table not found/', true],
    ]);
    expect(a!.failures.every((f) => !f.errorTextOnly)).toBe(true);
    expect(report).toContain('(1 of the failures got the expected error with another message)');
  });
});
