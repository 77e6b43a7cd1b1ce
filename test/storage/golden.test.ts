// Reads the v1 golden data directory (test/storage/golden/make-golden.ts wrote it: segment files,
// manifest with a tombstone, WAL with a stamped write and a delete) and must see exactly what v1
// saw: every later reader keeps reading what earlier versions wrote (STYLE.md §19).

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { dump, openStore } from './support.js';

it('reads the v1 golden data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-golden-'));
  try {
    cpSync(new URL('./golden/v1', import.meta.url).pathname, dir, { recursive: true });
    const s = await openStore({}, dir);
    try {
      const want = readFileSync(new URL('./golden/v1.expected.txt', import.meta.url), 'utf8').trimEnd().split('\n');
      expect(want.length).toBeGreaterThan(1000);
      expect(await dump(s.storage, 'all_types', {}, 'golden')).toEqual(want);
      await s.storage.compactAll();
      expect(await dump(s.storage, 'all_types', {}, 'golden')).toEqual(want);
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
