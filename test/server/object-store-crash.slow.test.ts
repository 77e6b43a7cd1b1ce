// SIGKILL at each step of the object store's flush and compaction: before the upload, after it
// and before the manifest, after the manifest (a compaction's inputs still in the bucket). A real
// server under a write load kills itself at the step (host/storage/fs/fault-points.ts) and is
// restarted on the same directory with an empty cache; then every acknowledged row is there once,
// and the bucket holds exactly the files the manifest lists: none missing, no orphan left.

import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer } from '../support/server.js';
import { startS3, type TestS3 } from '../support/s3rver.js';

const LINES = 200;
const line = (seq: number, k: number): string => `load,host=h${k % 5} n=${seq * LINES + k}i ${seq * LINES + k}`;

async function writeUntilDead(url: string, maxRequests: number): Promise<Array<'ok' | 'unknown'>> {
  const out: Array<'ok' | 'unknown'> = [];
  for (let seq = 0; seq < maxRequests; seq++) {
    out.push('unknown');
    try {
      const r = await writeLp(url, Array.from({ length: LINES }, (_, k) => line(seq, k)).join('\n'));
      if (r.status !== 200) throw new Error(`unexpected status ${r.status}: ${r.text}`);
      out[seq] = 'ok';
    } catch (e) {
      if ((e as Error).message.startsWith('unexpected')) throw e;
      return out;
    }
  }
  return out;
}

let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
});

async function crashAt(point: string): Promise<void> {
  const prefix = point.replace(':', '-');
  // Small memtables so that a few requests flush; fan-in 2 so two flushes make a compaction.
  const args = [...s3.args({ prefix }), '--flush-bytes', '64KiB', '--compaction-fan-in', '2'];
  const server = await startServer({ env: { SUNDIAL_TEST_KILL_AT: point }, args });
  const outcomes = await writeUntilDead(server.url, 400);
  await server.exited;
  expect(server.child.signalCode, `the server killed itself at ${point}`).toBe('SIGKILL');
  expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThan(0);

  rmSync(join(server.dataDir, 'object-cache'), { recursive: true, force: true });
  const again = await startServer({ dataDir: server.dataDir, args });
  try {
    const r = await http(again.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: 'SELECT time, n FROM load ORDER BY time',
    });
    expect(r.status, r.text).toBe(200);
    const bySeq = new Map<number, number>();
    const rows = r.text.trim().split('\n').slice(1);
    for (const row of rows) {
      const n = Number(row.split(',')[1]);
      bySeq.set(Math.floor(n / LINES), (bySeq.get(Math.floor(n / LINES)) ?? 0) + 1);
    }
    expect(new Set(rows.map((row) => row.split(',')[1])).size, 'every row once').toBe(rows.length);
    outcomes.forEach((o, seq) => {
      const got = bySeq.get(seq) ?? 0;
      if (o === 'ok') expect(got, `acknowledged request ${seq} at ${point}`).toBe(LINES);
      else expect([0, LINES], `request ${seq} of unknown outcome`).toContain(got);
    });
    expect(await again.stop()).toBe(0);
    // The bucket holds what the manifest lists: every listed file, no orphan (collected at start).
    const dbDirs = readdirSync(join(server.dataDir, 'db')).filter((id) =>
      existsSync(join(server.dataDir, 'db', id, 'manifest.json')),
    );
    const listed = dbDirs.flatMap((id) =>
      (
        JSON.parse(readFileSync(join(server.dataDir, 'db', id, 'manifest.json'), 'utf8')) as {
          segments: Array<{ fileId: number }>;
        }
      ).segments.map((s) => `${prefix}/db/${id}/seg/${String(s.fileId).padStart(12, '0')}.seg`),
    );
    expect(s3.keys(`${prefix}/db/`)).toEqual(listed.sort());
  } finally {
    await again.kill();
    again.cleanup();
  }
}

describe('SIGKILL during an object store flush and compaction', () => {
  const points = [
    'flush:segment-written',
    'object:uploaded',
    'flush:manifest-saved',
    'compact:segment-written',
    'compact:manifest-saved',
    'compact:inputs-deleted',
  ];
  it('loses nothing and leaves the bucket as the manifest says', { timeout: 240_000 }, async () => {
    for (let i = 0; i < points.length; i += 2) await Promise.all(points.slice(i, i + 2).map((p) => crashAt(p)));
  });
});
