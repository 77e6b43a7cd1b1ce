// A torn WAL tail on a real server's data directory: the last record is damaged (truncated at a
// random byte, or one byte flipped), the server cuts it on start, logs it, and everything
// acknowledged before it is intact.

import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer } from '../support/server.js';

/** The WAL segment files of database `public` (tenant cnosdb), oldest first. */
function walFiles(dataDir: string): string[] {
  const catalog = JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8')) as { databases: Array<{ id: number; tenant: string; name: string }> };
  const id = catalog.databases.find((d) => d.tenant === 'cnosdb' && d.name === 'public')!.id;
  const dir = join(dataDir, 'db', String(id), 'wal');
  return readdirSync(dir).filter((n) => n.endsWith('.wal')).sort().map((n) => join(dir, n));
}

const damages: Array<[string, (file: string, lastRecordBytes: number) => void]> = [
  ['truncated at a random byte of the last record', (file, last) => {
    const size = statSync(file).size;
    truncateSync(file, size - 1 - Math.floor(Math.random() * (last - 1)));
  }],
  ['a flipped byte in the last record', (file, last) => {
    const b = readFileSync(file);
    const at = b.length - 1 - Math.floor(Math.random() * (last - 8));
    b[at] = b[at]! ^ 0x5a;
    writeFileSync(file, b);
  }],
];

describe('WAL repair on start', () => {
  for (const [name, damage] of damages) {
    it(`cuts the tail (${name}) and keeps everything before it`, async () => {
      const server = await startServer();
      for (let i = 0; i < 10; i++) expect((await writeLp(server.url, `torn,i=${i} v=${i} ${i}`)).status).toBe(200);
      const file = walFiles(server.dataDir).at(-1)!;
      const before = statSync(file).size;
      expect((await writeLp(server.url, 'torn,i=last v=99 99')).status).toBe(200);
      expect(await server.stop()).toBe(0);
      damage(file, statSync(file).size - before);

      const again = await startServer({ dataDir: server.dataDir });
      await again.waitForLog((l) => l.msg === 'WAL: cut the torn tail of the last segment');
      expect(await again.stop()).toBe(0);
      const stored = await readBack(server.dataDir);
      try {
        expect((await stored.rows('torn')).map((r) => r.i)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
      } finally {
        await stored.close();
        server.cleanup();
      }
    });
  }
});
