// Writes test/storage/golden/v1/: a data directory holding segment files (FORMAT.md §5, v1), a
// manifest with a tombstone (§6), and a WAL with a stamped write and a delete (§2), with every
// value type, NULLs, NaN, -0, u64 max, empty and unicode strings. golden.test.ts reads it in every
// run, so a later version of the server must keep reading what v1 wrote (STYLE.md §19).
//
// Run once per format version: node --import tsx test/storage/golden/make-golden.ts

import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { ValueType } from '../../../host/core/write-batch.js';
import { batch, bool, dbl, dump, int, openStore, str, uns } from '../support.js';

const dir = new URL('./v1', import.meta.url).pathname;
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
  rows.push(['all_types', [['host', host], ['région', 'üñï']], BigInt(1_700_000_000_000 + t * 1000), [
    dbl('d', t === 1 ? NaN : t === 2 ? -0 : Math.round(Math.sin(t) * 10000) / 100),
    ...(t % 5 === 0 ? [] : [int('i', t === 3 ? -(2n ** 63n) : BigInt(t * 7 - 1000))]),
    uns('u', t === 4 ? 2n ** 64n - 1n : BigInt(t)),
    ...(t % 2 === 0 ? [bool('b', t % 4 === 0)] : []),
    str('s', t === 5 ? '' : t % 7 === 0 ? '🌍 unicode' : `v${t % 11}`),
  ]]);
}
await st.write(db, [batch(rows.slice(0, 700))]);
await st.flushAll();
await st.write(db, [batch(rows.slice(700))]);
await st.flushAll();
await st.delete(db, 'all_types', { minTime: 1_700_000_100_000n, maxTime: 1_700_000_199_000n, seriesFilter: (t) => t.get('host') === 'a' });
await st.flushAll(); // the tombstone goes to the manifest
// Left in the WAL: a write after the last flush and a delete.
await st.write(db, [batch([['all_types', [['host', 'c'], ['région', 'x']], 1_700_100_000_000n, [dbl('d', 1.5), str('s', 'wal')]]])]);
await st.delete(db, 'all_types', { minTime: 1_700_000_000_000n, maxTime: 1_700_000_000_000n });
await s.close();

// What a reader must see, taken from a copy (opening a directory replays and rewrites its WAL).
const copy = `${dir}-read`;
rmSync(copy, { recursive: true, force: true });
cpSync(dir, copy, { recursive: true });
const r = await openStore({}, copy);
const lines = await dump(r.storage, 'all_types', {}, 'golden');
await r.close();
rmSync(copy, { recursive: true, force: true });
writeFileSync(new URL('./v1.expected.txt', import.meta.url), lines.join('\n') + '\n');
