// Issue 24: CHECK DATABASE checks the catalog and the database's manifest as saved too. They have
// no checksum; a damaged one fails to read back as a start would read it (so the next start would
// fail), and CHECK DATABASE ... REPAIR writes it out again from the server's memory.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

async function check(
  url: string,
  text: string,
): Promise<Array<{ file: string; offset: number | null; problem: string; action: string }>> {
  const r = await http(url, '/api/v1/sql', { method: 'POST', body: text, headers: { accept: 'application/json' } });
  expect(r.status, r.text).toBe(200);
  return r.text === ''
    ? []
    : (JSON.parse(r.text) as Array<{ file: string; offset: number | null; problem: string; action: string }>);
}

describe('CHECK DATABASE and the saved documents', () => {
  it('names a damaged catalog.json and manifest.json; REPAIR rewrites them, and the server starts again on them', async () => {
    const server = await startServer({ inProcess: true, env: QUIET });
    let restarted: TestServer | undefined;
    try {
      expect((await writeLp(server.url, 'm v=1 1')).status).toBe(200);
      expect((await http(server.url, '/api/v1/sql', { method: 'POST', body: 'COMPACT DATABASE public' })).status).toBe(
        200,
      );
      const catalog = JSON.parse(readFileSync(join(server.dataDir, 'catalog.json'), 'utf8')) as {
        databases: Array<{ id: number; name: string }>;
      };
      const id = catalog.databases.find((d) => d.name === 'public')!.id;
      const manifest = `db/${id}/manifest.json`;
      expect(await check(server.url, 'CHECK DATABASE public')).toEqual([]);
      writeFileSync(join(server.dataDir, 'catalog.json'), '{"format": "sundial-catal');
      writeFileSync(join(server.dataDir, manifest), '{"format":"sundial-manifest","version":1,"flushedLsn":"x"}');
      expect(await check(server.url, 'CHECK DATABASE public')).toEqual([
        { file: 'catalog.json', offset: 0, problem: expect.stringMatching(/^not valid JSON: /) as string, action: '' },
        { file: manifest, offset: 0, problem: expect.stringMatching(/^malformed manifest: /) as string, action: '' },
      ]);
      expect((await check(server.url, 'CHECK DATABASE public REPAIR')).map((r) => [r.file, r.action])).toEqual([
        ['catalog.json', "rewrote it from the server's memory"],
        [manifest, "rewrote it from the server's memory"],
      ]);
      expect(await check(server.url, 'CHECK DATABASE public')).toEqual([]);
      expect(await server.stop()).toBe(0);
      restarted = await startServer({ inProcess: true, env: QUIET, dataDir: server.dataDir });
      const r = await http(restarted.url, '/api/v1/sql', { method: 'POST', body: 'SELECT v FROM m' });
      expect([r.status, r.text]).toEqual([200, 'v\n1.0\n']);
    } finally {
      await server.stop();
      await restarted?.stop();
      server.cleanup();
    }
  });
});
