// The objects the read and write paths make by the thousand, or once per query, have one hidden
// class whatever is set in them. V8 (Node 20) gives every object made by a literal that adds a
// property after a spread (`{ ...ref, stats }`) a hidden class of its own, which made the read
// path's loads of block and request fields megamorphic (core/scan.ts, scanRequest). Checked in a
// child process with V8's test intrinsics (%HaveSameMap), over the built modules: blocks decoded
// from the golden v3 segment files, statistics of every kind, scan, stats and last-point requests
// with and without their optional parts, manifest records, registered queries.

import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

const dist = (path: string): string => JSON.stringify(new URL(`../../dist/host/${path}`, import.meta.url).href);
const SEGMENTS = new URL('../storage/golden/v3/db/4/seg/', import.meta.url).pathname;

const SCRIPT = `
  import { readdirSync } from 'node:fs';
  import { coreWasmBytes } from ${dist('node/package-info.js')};
  import { lastRequest, scanRequest, statsRequest } from ${dist('core/scan.js')};
  import { Core } from ${dist('core/wasm.js')};
  import { ValueType } from ${dist('core/write-batch.js')};
  import { QueryRegistry } from ${dist('server/query-registry.js')};
  import { BlockCache } from ${dist('storage/segment/block-cache.js')};
  import { blockStats, computeStats, presentStats } from ${dist('storage/segment/block-stats.js')};
  import { storageCodecs } from ${dist('storage/segment/codecs.js')};
  import { segmentRecord } from ${dist('storage/segment/manifest.js')};
  import { columnBlock, NO_BLOCK } from ${dist('storage/segment/segment-format.js')};
  import { SegmentReader } from ${dist('storage/segment/segment-reader.js')};
  import { nodeSegmentStore } from ${dist('storage/segment/node-segment-store.js')};

  /** How many hidden classes the objects have among them. */
  const classes = (objects) => {
    const seen = [];
    for (const o of objects) if (!seen.some((s) => %HaveSameMap(s, o))) seen.push(o);
    return seen.length;
  };
  const out = {};
  // Statistics of every kind: numbers and bigints in one field. Made once before anything is
  // compared, as a running server has long done: the first objects holding a bigint where others
  // held a number change the field's representation, and objects made before keep the old class.
  const kinds = () => [
    computeStats(ValueType.Double, new Float64Array([1, 2]), undefined, 2),
    computeStats(ValueType.Double, new Float64Array([1, NaN]), undefined, 2),
    computeStats(ValueType.BigInt, new BigInt64Array([1n, 2n ** 40n]), undefined, 2),
    computeStats(ValueType.BigInt, new BigInt64Array([2n ** 62n, 2n ** 62n]), undefined, 2),
    computeStats(ValueType.Boolean, new Uint8Array([1, 0]), undefined, 2),
    computeStats(ValueType.Double, new Float64Array([1]), new Uint8Array([0]), 1),
    presentStats(undefined, 3),
  ];
  kinds();
  const codecs = storageCodecs(await Core.load(coreWasmBytes()));
  const blocks = [];
  for (const name of readdirSync(${JSON.stringify(SEGMENTS)})) {
    const reader = await SegmentReader.open(nodeSegmentStore, ${JSON.stringify(SEGMENTS)} + name, 1, codecs, new BlockCache(1 << 20));
    for (const t of reader.tableIds()) for (const s of await reader.tableSeries(t)) for (const g of s.groups) blocks.push(...g.columns);
    reader.release();
  }
  blocks.push(columnBlock(NO_BLOCK, blockStats(0)));
  out.blocks = [blocks.length, classes(blocks)];
  const stats = [...kinds(), ...blocks.map((b) => b.stats)];
  out.stats = [stats.length, classes(stats)];
  const request = scanRequest(['f'], 1n, undefined, (t) => t.size > 0);
  const requests = [scanRequest(['f'], undefined, undefined), request, scanRequest([], 0n, 9n, undefined, [{ field: 'f', min: 1 }])];
  out.requests = classes(requests);
  out.statsRequests = classes([statsRequest(request, undefined), statsRequest(requests[0], { origin: 0n, width: 60n })]);
  out.lastRequests = classes([lastRequest(['f']), lastRequest(['f', 'g'], (t) => t.size > 0), lastRequest([])]);
  const meta = { partitionStart: 0n, partitionEnd: 10n, minTs: 1n, maxTs: 2n, minLsn: 1, maxLsn: 2, cleanLsn: 0, rows: 2 };
  out.records = classes([segmentRecord(1, 0, meta, 10), segmentRecord(2, 1, { ...meta, cleanLsn: 7 }, 20)]);
  const registry = new QueryRegistry(() => 0);
  const start = (text) => ({ text, user: { id: 1, name: 'root' }, tenant: { id: 1, name: 'cnosdb' }, database: 'public' });
  out.queries = classes([registry.register(start('SELECT 1')).query, registry.register(start('SELECT 2')).query]);
  console.log(JSON.stringify(out));
`;

it('gives the objects the hot paths make one hidden class each', () => {
  const r = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  const out = JSON.parse(r.stdout) as Record<string, number | [number, number]>;
  expect((out.blocks as [number, number])[0]).toBeGreaterThan(10);
  expect(out).toEqual({
    blocks: [(out.blocks as [number, number])[0], 1],
    stats: [(out.stats as [number, number])[0], 1],
    requests: 1,
    statsRequests: 1,
    lastRequests: 1,
    records: 1,
    queries: 1,
  });
});
