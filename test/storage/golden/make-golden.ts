// Writes test/storage/golden/v<N>/ for the segment version N this server writes: a data directory
// holding segment files (FORMAT.md §5), a manifest with a tombstone (§6), and a WAL with a
// stamped write and a delete (§2), with every value type, NULLs, NaN, -0, u64 max, empty and
// unicode strings; from v2 on also a table of small series, which go into packs (§5.1).
// golden.test.ts reads every version's directory in every run, so a later version of the server
// must keep reading what earlier ones wrote (STYLE.md §19). v1/ was written by this script before
// packs existed (git history has that version of it).
//
// Run once per format version: node --import tsx test/storage/golden/make-golden.ts

import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { ValueType } from '../../../host/core/write-batch.js';
import { SEGMENT_VERSION } from '../../../host/storage/segment/segment-format.js';
import { batch, bool, dbl, dump, int, openStore, str, uns } from '../support.js';

const dir = new URL(`./v${SEGMENT_VERSION}`, import.meta.url).pathname;
rmSync(dir, { recursive: true, force: true });
const s = await openStore({}, dir);
const st = s.storage;
await st.createDatabase('cnosdb', 'golden', { ...DEFAULT_DATABASE_OPTIONS, precision: 'MS' });
const db = st.catalog.requireDatabase('cnosdb', 'golden');
await st.createTable(db, {
  name: 'all_types',
  tags: [{ name: 'host' }, { name: 'région' }],
  fields: [
    { name: 'd', type: ValueType.Double, codec: 'GORILLA' },
    { name: 'i', type: ValueType.BigInt, codec: 'DELTA' },
    { name: 'u', type: ValueType.Unsigned },
    { name: 'b', type: ValueType.Boolean, codec: 'BITPACK' },
    { name: 's', type: ValueType.String, codec: 'ZSTD' },
  ],
  timeCodec: 'DELTATS',
});
const rows: Parameters<typeof batch>[0][number][] = [];
for (let t = 0; t < 1200; t++) {
  const host = t % 3 === 0 ? 'a' : 'b';
  rows.push([
    'all_types',
    [
      ['host', host],
      ['région', 'üñï'],
    ],
    BigInt(1_700_000_000_000 + t * 1000),
    [
      dbl('d', t === 1 ? NaN : t === 2 ? -0 : Math.round(Math.sin(t) * 10000) / 100),
      ...(t % 5 === 0 ? [] : [int('i', t === 3 ? -(2n ** 63n) : BigInt(t * 7 - 1000))]),
      uns('u', t === 4 ? 2n ** 64n - 1n : BigInt(t)),
      ...(t % 2 === 0 ? [bool('b', t % 4 === 0)] : []),
      str('s', t === 5 ? '' : t % 7 === 0 ? '🌍 unicode' : `v${t % 11}`),
    ],
  ]);
}
await st.write(db, [batch(rows.slice(0, 700))]);
// Small series (a span id each, one to three rows, sparse fields of every type): packs.
const tiny: Parameters<typeof batch>[0][number][] = [];
for (let i = 0; i < 300; i++) {
  for (let j = 0; j <= i % 3; j++) {
    tiny.push([
      'tiny',
      [
        ['span', `s${i}`],
        ['svc', i % 5 === 0 ? 'ünï' : `svc${i % 4}`],
      ],
      BigInt(1_700_000_000_000 + i * 10 + j),
      [
        dbl('d', i % 7 === 0 ? NaN : i / 8),
        ...(i % 4 === 0 ? [] : [int('i', BigInt(i * 1000 - j))]),
        ...(i % 6 === 0 ? [uns('u', 2n ** 64n - 1n - BigInt(i))] : []),
        ...(i % 2 === 0 ? [bool('b', j === 0)] : []),
        str('s', i % 9 === 0 ? '' : `🌍${i}`),
      ],
    ]);
  }
}
await st.write(db, [batch(tiny)]);
await st.flushAll();
await st.write(db, [batch(rows.slice(700))]);
await st.flushAll();
await st.delete(db, 'all_types', {
  minTime: 1_700_000_100_000n,
  maxTime: 1_700_000_199_000n,
  seriesFilter: (t) => t.get('host') === 'a',
});
await st.flushAll(); // the tombstone goes to the manifest
// Left in the WAL: a write after the last flush and a delete.
await st.write(db, [
  batch([
    [
      'all_types',
      [
        ['host', 'c'],
        ['région', 'x'],
      ],
      1_700_100_000_000n,
      [dbl('d', 1.5), str('s', 'wal')],
    ],
  ]),
]);
await st.delete(db, 'all_types', { minTime: 1_700_000_000_000n, maxTime: 1_700_000_000_000n });
await s.close();

// What a reader must see, taken from a copy (opening a directory replays and rewrites its WAL).
const copy = `${dir}-read`;
rmSync(copy, { recursive: true, force: true });
cpSync(dir, copy, { recursive: true });
const r = await openStore({}, copy);
const lines = [...(await dump(r.storage, 'all_types', {}, 'golden')), ...(await dump(r.storage, 'tiny', {}, 'golden'))];
await r.close();
rmSync(copy, { recursive: true, force: true });
writeFileSync(new URL(`./v${SEGMENT_VERSION}.expected.txt`, import.meta.url), lines.join('\n') + '\n');
