// Reads the golden data directory of every segment version (test/storage/golden/make-golden.ts
// wrote them: segment files, manifest with a tombstone, WAL with a stamped write and a delete)
// and must see exactly what that version saw: every later reader keeps reading what earlier
// versions wrote (STYLE.md §19). From v3 on, the page statistics must also give what the rows give.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { SeriesChunk, StatsRequest } from '../../host/core/scan.js';
import type { Storage } from '../../host/storage/storage.js';
import { dump, openStore } from './support.js';

/** 5-minute buckets of host b (its row groups have pages of 5 minutes), present values of d and i. */
const FIVE_MINUTES: StatsRequest = {
  fields: ['d', 'i'],
  bucket: { origin: 0n, width: 300_000n },
  seriesFilter: (t) => t.get('host') === 'b',
};
const bucket = (t: bigint): bigint => t / 300_000n;

function countRows(out: Record<string, number>, c: SeriesChunk): void {
  for (const [f, col] of c.fields)
    for (let i = 0; i < c.length; i++)
      if (col.validity === undefined || col.validity[i] === 1)
        out[`${bucket(c.time[i]!)} ${f}`] = (out[`${bucket(c.time[i]!)} ${f}`] ?? 0) + 1;
}

async function countsFromPages(s: Storage): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let pages = 0;
  for await (const items of s.scanStats(s.catalog.requireDatabase('cnosdb', 'golden'), 'all_types', FIVE_MINUTES)) {
    for (const item of items) {
      if (item.kind === 'stats') {
        pages++;
        for (const [f, st] of item.stats.fields)
          out[`${bucket(item.stats.minTime)} ${f}`] = (out[`${bucket(item.stats.minTime)} ${f}`] ?? 0) + st.count;
        continue;
      }
      countRows(out, item.chunk);
    }
  }
  expect(pages).toBeGreaterThan(0);
  return out;
}

async function countsFromRows(s: Storage): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const c of s.scan(s.catalog.requireDatabase('cnosdb', 'golden'), 'all_types', FIVE_MINUTES))
    countRows(out, c);
  return out;
}

// v1: segments of series with blocks of their own; v2: also packs of small series; v3: also page
// statistics of row groups (FORMAT.md §5.1); v4: the series index in index blocks and postings
// (§5.3).
for (const [version, tables] of [
  [1, ['all_types']],
  [2, ['all_types', 'tiny']],
  [3, ['all_types', 'tiny']],
  [4, ['all_types', 'tiny']],
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
        const want = readFileSync(new URL(`./golden/v${version}.expected.txt`, import.meta.url), 'utf8')
          .trimEnd()
          .split('\n');
        expect(want.length).toBeGreaterThan(1000);
        expect(await read()).toEqual(want);
        if (version >= 3) expect(await countsFromPages(s.storage)).toEqual(await countsFromRows(s.storage));
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
