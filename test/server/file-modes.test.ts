// Issue 24: every file the server creates is owner read-write only (0600) and every directory
// owner only (0700): the catalog holds password hashes, the WAL and segments every tenant's data.
// A data directory made more open by its operator is left so, with a warning; catalog.json, which
// each save replaces by an owner-only file anyway, is tightened at start.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer } from '../support/server.js';

const parent = mkdtempSync(join(tmpdir(), 'sundial-modes-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

/** Every path under `dir` (itself included) with its permission bits, as "path mode" lines. */
function modes(dir: string, base = dir): string[] {
  const out = [`${dir === base ? '.' : dir.slice(base.length + 1)} ${(statSync(dir).mode & 0o777).toString(8)}`];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...modes(path, base));
    else out.push(`${path.slice(base.length + 1)} ${(statSync(path).mode & 0o777).toString(8)}`);
  }
  return out;
}

const sql = (url: string, text: string) => http(url, '/api/v1/sql', { method: 'POST', body: text });

describe('file modes', () => {
  it('creates the data directory, catalog, WAL, segments and manifests owner-only', async () => {
    const dataDir = join(parent, 'new', 'data');
    const server = await startServer({ dataDir });
    try {
      expect((await writeLp(server.url, 'm,h=a v=1 1\nm,h=b v=2 2')).status).toBe(200);
      expect((await sql(server.url, 'CREATE DATABASE other')).status).toBe(200);
      expect((await sql(server.url, 'COMPACT DATABASE public')).status).toBe(200); // flushes: a segment and a manifest
      expect((await writeLp(server.url, 'm,h=a v=3 3')).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const all = modes(dataDir);
    expect(all.some((l) => /\.seg 600$/.test(l))).toBe(true);
    expect(all.some((l) => /\.wal 600$/.test(l))).toBe(true);
    expect(all.some((l) => /manifest\.json 600$/.test(l))).toBe(true);
    expect(all).toContain('catalog.json 600');
    expect(all.filter((l) => !/ (600|700)$/.test(l))).toEqual([]);
    expect((statSync(join(parent, 'new')).mode & 0o777).toString(8)).toBe('700');
  });

  it('leaves an open data directory as it is, with a warning, and tightens catalog.json', async () => {
    const dataDir = join(parent, 'shared');
    mkdirSync(dataDir);
    const first = await startServer({ dataDir });
    expect(await first.stop()).toBe(0);
    chmodSync(dataDir, 0o750);
    chmodSync(join(dataDir, 'catalog.json'), 0o644);
    const server = await startServer({ dataDir });
    try {
      expect(
        server.logs.some(
          (l) =>
            l.msg === 'the data directory is accessible to other users; chmod 700 it unless that is meant' &&
            l.mode === '750',
        ),
      ).toBe(true);
      expect(
        server.logs.some(
          (l) => l.msg === 'made catalog.json readable by its owner only (it holds password hashes)' && l.was === '644',
        ),
      ).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('750');
    expect((statSync(join(dataDir, 'catalog.json')).mode & 0o777).toString(8)).toBe('600');
  });
});
