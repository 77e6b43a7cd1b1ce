// A write split by vnode for the JetStream WAL: every row lands in exactly one part, in the part
// of its series' vnode, with its values and with the catalog ids of its columns.

import { describe, expect, it } from 'vitest';
import { ValueType, batchString, readWriteBatch } from '../../../host/core/write-batch.js';
import { WriteBatchBuilder } from '../../../host/core/write-batch-builder.js';
import { splitByVnode, vnodeOf } from '../../../host/storage/jetstream/index.js';

function sampleBatch(): Uint8Array {
  const b = new WriteBatchBuilder();
  for (let i = 0; i < 60; i++) {
    const fields = [
      { name: 'v', type: ValueType.Double, value: i + 0.5 },
      ...(i % 3 === 0 ? [{ name: 's', type: ValueType.String, value: `é${i}` }] : []),
      ...(i % 4 === 0 ? [{ name: 'ok', type: ValueType.Boolean, value: i % 8 === 0 } as const] : []),
    ] as const;
    b.addRow('cpu', [['host', `h${i % 9}`]], BigInt(i), [...fields]);
  }
  b.addRow('mem', [], 5n, [{ name: 'n', type: ValueType.BigInt, value: -3n }]);
  return b.finish();
}

/** Every row as text: table, series key, time, then each present column by name with its catalog id. */
function rows(encoded: readonly Uint8Array[], stamps: ReadonlyArray<ReadonlyArray<{ columnIds: ArrayLike<number> }>>) {
  const out: string[] = [];
  encoded.forEach((bytes, b) => {
    readWriteBatch(bytes).tables.forEach((t, ti) => {
      for (const s of t.series)
        for (let r = s.rowStart; r < s.rowStart + s.rowCount; r++) {
          const cols = t.columns
            .map((c, ci) => {
              if (c.type === ValueType.Tag || c.validity?.[r] === 0) return '';
              const v = c.type === ValueType.String ? batchString(c.strings!, r) : String(c.values![r]);
              return `${c.name}#${stamps[b]![ti]!.columnIds[ci]}=${v}`;
            })
            .filter((x) => x !== '')
            .sort();
          out.push(`${t.name}|${s.key}|${t.timestamps[r]}|${cols.join(',')}`);
        }
    });
  });
  return out.sort();
}

describe('splitByVnode', () => {
  const bytes = sampleBatch();
  const batch = readWriteBatch(bytes);
  // Made-up catalog ids: 100 + the column's index, by name, so a mix-up shows.
  const ids = new Map<string, number>();
  const stamps = [
    batch.tables.map((t, i) => ({
      tableId: 10 + i,
      columnIds: Uint32Array.from(t.columns, (c) => {
        if (!ids.has(`${t.name}.${c.name}`)) ids.set(`${t.name}.${c.name}`, 100 + ids.size);
        return ids.get(`${t.name}.${c.name}`)!;
      }),
    })),
  ];

  for (const vnodes of [1, 2, 4, 7]) {
    it(`puts each row once in its series' vnode with ${vnodes} vnode(s)`, () => {
      const parts = splitByVnode([batch], [bytes], stamps, vnodes);
      expect(
        rows(
          parts.flatMap((p) => p.encoded),
          parts.flatMap((p) => p.stamps),
        ),
      ).toEqual(rows([bytes], stamps));
      for (const p of parts)
        for (const e of p.encoded)
          for (const t of readWriteBatch(e).tables)
            for (const s of t.series) expect(vnodeOf(s.key, vnodes), s.key).toBe(p.vnode);
      if (vnodes === 1) expect(parts).toEqual([{ vnode: 0, encoded: [bytes], stamps: [stamps[0]] }]);
      else expect(parts.length).toBeGreaterThan(1);
    });
  }

  it('hashes keys as UTF-8 bytes (FNV-1a), the same for ASCII and non-ASCII paths', () => {
    // FNV-1a 32 of "a" is 0xe40c292c.
    expect(vnodeOf('a', 2 ** 31)).toBe(0xe40c292c % 2 ** 31);
    expect(vnodeOf('é', 1000)).toBe(
      (Math.imul(Math.imul(0x811c9dc5 ^ 0xc3, 0x01000193) ^ 0xa9, 0x01000193) >>> 0) % 1000,
    );
  });
});
