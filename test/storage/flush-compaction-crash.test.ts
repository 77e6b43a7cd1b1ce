// SIGKILL at each step of a flush and of a compaction: a real server under a write load kills
// itself at the named step (host/storage/fs/fault-points.ts), is restarted on the same directory,
// and then every acknowledged point is there with its exact values, exactly once, a request whose
// outcome was never learned is all there or all absent, and no unlisted (orphan) file is left
// or read.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer } from '../support/server.js';

const LINES = 200;

const line = (seq: number, k: number): string => {
  const ts = seq * LINES + k;
  return `load,host=h${k % 5} v=${ts / 8},n=${ts}i,s="r${seq}-${k}" ${ts}`;
};

/** Writes requests until the server dies; returns each request's outcome. */
async function writeUntilDead(url: string, maxRequests: number): Promise<Array<'ok' | 'rejected' | 'unknown'>> {
  const out: Array<'ok' | 'rejected' | 'unknown'> = [];
  for (let seq = 0; seq < maxRequests; seq++) {
    const body = Array.from({ length: LINES }, (_, k) => line(seq, k)).join('\n');
    out.push('unknown');
    try {
      const r = await writeLp(url, body);
      if (r.status === 200) out[seq] = 'ok';
      else if (r.status === 429) out[seq] = 'rejected';
      else throw new Error(`unexpected status ${r.status}`);
    } catch (e) {
      if ((e as Error).message.startsWith('unexpected')) throw e;
      return out; // the server died
    }
  }
  return out;
}

/** True when the process exits within a second (its last request may have raced its death). */
function exitsSoon(child: import('node:child_process').ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 1000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function crashAt(point: string, args: string[]): Promise<void> {
  const server = await startServer({ env: { SUNDIAL_TEST_KILL_AT: point }, args });
  const outcomes = await writeUntilDead(server.url, 400);
  const died = server.child.exitCode !== null || server.child.signalCode !== null || (await exitsSoon(server.child));
  await server.kill();
  expect(died, `the server killed itself at ${point}`).toBe(true);
  expect(server.child.signalCode).toBe('SIGKILL');
  expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThan(0);

  const again = await startServer({ dataDir: server.dataDir, args });
  expect(await again.stop()).toBe(0);
  const stored = await readBack(server.dataDir);
  try {
    const rows = await stored.rows('load');
    const bySeq = new Map<number, number>();
    const seen = new Set<bigint>();
    for (const r of rows) {
      expect(seen.has(r.time), `time ${r.time} read once`).toBe(false);
      seen.add(r.time);
      const ts = Number(r.time);
      const seq = Math.floor(ts / LINES);
      const k = ts % LINES;
      expect(r).toEqual({ time: BigInt(ts), host: `h${k % 5}`, v: ts / 8, n: BigInt(ts), s: `r${seq}-${k}` });
      bySeq.set(seq, (bySeq.get(seq) ?? 0) + 1);
    }
    outcomes.forEach((o, seq) => {
      const got = bySeq.get(seq) ?? 0;
      if (o === 'ok') expect(got, `acknowledged request ${seq}`).toBe(LINES);
      else if (o === 'rejected') expect(got, `rejected request ${seq}`).toBe(0);
      else expect([0, LINES], `request ${seq} of unknown outcome`).toContain(got);
    });
    expect(bySeq.size).toBeLessThanOrEqual(outcomes.length);
    // No orphan: every segment file is listed, every listed one exists, no temporary file.
    const dbDir = join(server.dataDir, 'db', String(stored.storage.catalog.requireDatabase('cnosdb', 'public').id));
    const manifestPath = join(dbDir, 'manifest.json');
    // No manifest yet: the crash came before the first flush took effect.
    const manifest = existsSync(manifestPath)
      ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { segments: Array<{ fileId: number }> })
      : { segments: [] };
    const listed = manifest.segments.map((s) => String(s.fileId).padStart(12, '0') + '.seg').sort();
    expect(readdirSync(join(dbDir, 'seg')).sort()).toEqual(listed);
    expect(existsSync(join(dbDir, 'manifest.json.tmp'))).toBe(false);
  } finally {
    await stored.close();
    server.cleanup();
  }
}

// Small memtables so that a few requests trigger a flush; fan-in 2 so two flushes trigger a compaction.
const ARGS = ['--flush-bytes', '96KiB', '--compaction-fan-in', '2'];

describe('SIGKILL during flush and compaction', () => {
  const points = [
    'flush:segment-written',
    'flush:segment-renamed',
    'flush:manifest-temp',
    'flush:manifest-saved',
    'flush:wal-trimmed',
    'compact:segment-written',
    'compact:segment-renamed',
    'compact:manifest-temp',
    'compact:manifest-saved',
    'compact:inputs-deleted',
  ];
  it('loses and duplicates nothing at any step', { timeout: 120_000 }, async () => {
    // Two at a time: each case is a server life and a restart, mostly waiting on fsync.
    for (let i = 0; i < points.length; i += 2) await Promise.all(points.slice(i, i + 2).map((p) => crashAt(p, ARGS)));
  });
  it('loses and duplicates nothing at any step of a compaction on its own thread', { timeout: 120_000 }, async () => {
    // The file is written, synced and renamed on the compaction thread, whose kill point ends the process.
    const threaded = [...ARGS, '--compaction-thread', 'true'];
    const compaction = points.filter((p) => p.startsWith('compact:'));
    for (let i = 0; i < compaction.length; i += 2)
      await Promise.all(compaction.slice(i, i + 2).map((p) => crashAt(p, threaded)));
  });
});
