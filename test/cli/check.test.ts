// `sundial check --data-dir DIR [--repair]` (issue 24) on a data directory a real server wrote and
// left: every checksum verified, each damaged file named relative to DIR; --repair moves a damaged
// segment file to quarantine/ and unlists it, so that a server started on DIR serves the rest.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));
const QUIET = ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'];
const WEEK_NS = 7n * 86_400n * 1_000_000_000n;

function check(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(BIN, ['check', ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function flip(path: string, offset: number): void {
  const b = readFileSync(path);
  b[offset]! ^= 0xff;
  writeFileSync(path, b);
}

async function rows(url: string): Promise<string> {
  const r = await http(url, '/api/v1/sql?db=public', {
    method: 'POST',
    body: 'SELECT time, v FROM m ORDER BY time',
    headers: { accept: 'text/csv' },
  });
  expect(r.status, r.text).toBe(200);
  return r.text;
}

let dataDir: string;
let dbDir: string;
let cleanup: () => void;
beforeAll(async () => {
  const server: TestServer = await startServer({ args: QUIET });
  dataDir = server.dataDir;
  cleanup = () => server.cleanup();
  // Two partitions (weeks) in segment files, then four requests in the WAL only.
  expect((await writeLp(server.url, `m v=1 1\nm v=2 ${WEEK_NS + 1n}`, 'db=public')).status).toBe(200);
  expect(
    (await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: 'COMPACT DATABASE public' })).status,
  ).toBe(200);
  for (let i = 3; i <= 6; i++)
    expect((await writeLp(server.url, `m v=${i} ${WEEK_NS + BigInt(i)}`, 'db=public')).status).toBe(200);
  await server.stop();
  const manifest = readdirSync(join(dataDir, 'db'))
    .map((id) => join(dataDir, 'db', id))
    .find((d) => existsSync(join(d, 'seg')) && readdirSync(join(d, 'seg')).length === 2);
  dbDir = manifest!;
});
afterAll(() => cleanup());

describe('sundial check', () => {
  let week0: string;
  let wal: string;

  it('finds nothing in a sound data directory', () => {
    const r = check(['--data-dir', dataDir]);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^checked catalog\.json, \d+ databases, 2 segment files, \d+ WAL segments in .*: no problems\n$/,
    );
  });

  it('names every damaged file relative to the data directory: a segment block, a WAL record, the catalog', () => {
    const m = JSON.parse(readFileSync(join(dbDir, 'manifest.json'), 'utf8')) as {
      segments: Array<{ fileId: number; partitionStart: string }>;
    };
    const first = m.segments.find((s) => s.partitionStart === '0')!;
    const id = dbDir.split('/').at(-1)!;
    week0 = `db/${id}/seg/${String(first.fileId).padStart(12, '0')}.seg`;
    const walName = readdirSync(join(dbDir, 'wal')).sort().at(-1)!;
    wal = `db/${id}/wal/${walName}`;
    flip(join(dataDir, week0), 18); // the first data block (after the 16-byte header)
    flip(join(dataDir, wal), 16 + 24 + 8); // the payload of the segment's first record
    const catalog = readFileSync(join(dataDir, 'catalog.json'));
    writeFileSync(join(dataDir, 'catalog.json'), catalog.subarray(0, 100));
    try {
      const r = check(['--data-dir', dataDir]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe('');
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines, r.stdout).toHaveLength(5);
      expect(lines[0]).toMatch(/^catalog\.json at 0: not valid JSON: /);
      expect(lines[1]).toMatch(
        new RegExp(
          `^${week0} at \\d+: (time|column) block checksum mismatch: stored 0x[0-9a-f]+, computed 0x[0-9a-f]+$`,
        ),
      );
      expect(lines[2]).toMatch(new RegExp(`^${wal} at 16: bytes 16 to \\d+: .+$`));
      expect(lines[3]).toMatch(new RegExp(`^${wal} at \\d+: LSN (\\d+) to \\1 missing$`)); // the damaged record
      expect(lines[4]).toMatch(
        /^checked catalog\.json, \d+ databases, 2 segment files, \d+ WAL segments in .*: 4 problems$/,
      );
    } finally {
      writeFileSync(join(dataDir, 'catalog.json'), catalog);
    }
  });

  it('--repair moves the damaged segment file to quarantine/ and leaves the WAL to the next start, which serves the rest', async () => {
    const r = check(['--data-dir', dataDir, '--repair']);
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^${week0} at \\d+: .* -> moved to quarantine/${week0}; its 1 rows are no longer served$`),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^${wal} at 16: .* -> left for the next start, which replays every intact record around it and moves the damaged bytes to quarantine/$`,
      ),
    );
    expect(existsSync(join(dataDir, week0))).toBe(false);
    expect(existsSync(join(dataDir, 'quarantine', week0))).toBe(true);
    const again = check(['--data-dir', dataDir]);
    expect(again.stdout).toMatch(
      /^\S+\.wal at 16: .*\n\S+\.wal at \d+: LSN .*\nchecked catalog\.json, \d+ databases, 1 segment file, \d+ WAL segments in .*: 2 problems\n$/,
    );

    const server = await startServer({ dataDir, args: QUIET });
    try {
      // Week 0's file is gone; week 1's file and the WAL records around the damaged one (v=3) serve.
      expect(await rows(server.url)).toBe(
        ['time,v', ...[2, 4, 5, 6].map((v) => `1970-01-08T00:00:00.00000000${v === 2 ? 1 : v},${v}.0`)].join('\n') +
          '\n',
      );
    } finally {
      await server.stop();
    }
    expect(check(['--data-dir', dataDir])).toMatchObject({ status: 0, stderr: '' });
  });

  it('refuses a directory a running server has open, and names the server and CHECK DATABASE', async () => {
    const server = await startServer({ dataDir, args: QUIET });
    try {
      for (const args of [
        ['--data-dir', dataDir],
        ['--data-dir', dataDir, '--repair'],
      ]) {
        const r = check(args);
        expect([r.status, r.stdout]).toEqual([1, '']);
        expect(r.stderr).toBe(
          `sundial: data directory ${dataDir} is in use: process ${server.pid} has it open (${join(dataDir, 'LOCK')}); stop or close that first, or use another directory; on a running server use CHECK DATABASE <name> [REPAIR]\n`,
        );
      }
    } finally {
      await server.stop();
    }
    expect(check(['--data-dir', dataDir]).status).toBe(0);
  });

  it('needs --data-dir, and a data directory', () => {
    expect(check([])).toEqual({
      status: 2,
      stdout: '',
      stderr: 'sundial: check needs --data-dir DIR; see sundial check --help\n',
    });
    expect(check(['--data-dir', join(dataDir, 'db')])).toEqual({
      status: 1,
      stdout: '',
      stderr: `sundial: ${join(dataDir, 'db')} is not a Sundial data directory (no catalog.json, no db/)\n`,
    });
  });
});
