// Reads the golden data directory of every segment version (test/storage/golden/make-golden.ts
// wrote them: segment files, manifest with a tombstone, WAL with a stamped write and a delete)
// and must see exactly what that version saw: every later reader keeps reading what earlier
// versions wrote (STYLE.md §19).

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { dump, openStore } from './support.js';

// v1: segments of series with blocks of their own; v2: also packs of small series (FORMAT.md §5.1).
for (const [version, tables] of [
  [1, ['all_types']],
  [2, ['all_types', 'tiny']],
] as const) {
  it(`reads the v${version} golden data directory`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sundial-golden-'));
    try {
      cpSync(new URL(`./golden/v${version}`, import.meta.url).pathname, dir, { recursive: true });
      const s = await openStore({}, dir);
      const read = async (): Promise<string[]> => {
        const out: string[] = [];
        for (const t of tables) out.push(...(await dump(s.storage, t, {}, 'golden')));
        return out;
      };
      try {
        const want = readFileSync(new URL(`./golden/v${version}.expected.txt`, import.meta.url), 'utf8').trimEnd().split('\n');
        expect(want.length).toBeGreaterThan(1000);
        expect(await read()).toEqual(want);
        await s.storage.compactAll();
        expect(await read()).toEqual(want);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
