// DDL against the WAL under a real kill -9: a child process (ddl-kill-child.ts) drops, re-adds
// and renames columns, drops and recreates a table, deletes rows and writes, and is killed with
// SIGKILL once all of it was acknowledged. Reopened, the data directory holds exactly what was
// acknowledged: no dropped column or table back, old values under the renamed columns, the
// deleted rows gone, the table whose catalog save was not awaited present.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { dump, openStore } from './support.js';

it('replays to exactly the acknowledged schema and data after kill -9', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-ddl-kill-'));
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', new URL('./ddl-kill-child.ts', import.meta.url).pathname, dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (l) => l === 'done' && resolve());
      void exited.then(() => reject(new Error(`child exited early: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const s = await openStore({}, dir);
    try {
      const db = s.storage.catalog.requireDatabase('cnosdb', 'public');
      const cols = (t: string) =>
        [...db.tables.get(t)!.tags, ...db.tables.get(t)!.fields]
          .sort((a, b) => a.id - b.id)
          .map((c) => `${c.name}:${c.type}`);
      expect(cols('m')).toEqual(['t9:0', 'f9:2', 'x:1', 'y:5']);
      expect(await dump(s.storage, 'm', { fields: ['x', 'y', 'f9'] })).toEqual([
        't9=a | 1 | x=f:3ff8000000000000 y=NULL f9=10',
        't9=a | 3 | x=f:400c000000000000 y="new" f9=30',
      ]);
      expect(cols('gone')).toEqual(['v:2']);
      expect(await dump(s.storage, 'gone')).toEqual([' | 3 | v=3']);
      expect(await dump(s.storage, 'fresh')).toEqual(['h=q | 4 | n=4']);
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
