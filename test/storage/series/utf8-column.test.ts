// The UTF-8 string buffer of the row area and the flush's packs: values set by bytes, by string
// and by ranges of a write batch's column, with skipped rows empty, read back as the strings.

import { describe, expect, it } from 'vitest';
import { CorruptionError } from '../../../host/core/errors.js';
import { ValueType } from '../../../host/core/write-batch.js';
import { storageCodecs } from '../../../host/storage/segment/codecs.js';
import { Utf8Buffer } from '../../../host/storage/series/utf8-column.js';
import { loadCore } from '../../support/core.js';
import { mulberry32 } from '../../support/rng.js';

const utf8 = new TextEncoder();
const WORDS = ['', 'a', 'span-7f3a', 'é', '日本語', '🦀 crab', 'x'.repeat(40), 'GET /api/items/42', 'naïve café'];

/** The bytes and offsets of a write batch column holding `values`. */
function batchColumn(values: string[]): { offsets: Uint32Array; bytes: Uint8Array } {
  const parts = values.map((v) => utf8.encode(v));
  const offsets = new Uint32Array(values.length + 1);
  parts.forEach((p, i) => {
    offsets[i + 1] = offsets[i]! + p.length;
  });
  const bytes = new Uint8Array(offsets[values.length]!);
  parts.forEach((p, i) => {
    bytes.set(p, offsets[i]!);
  });
  return { offsets, bytes };
}

describe('Utf8Buffer', () => {
  it('reads back what every setter wrote, skipped rows empty, across growth', () => {
    const r = mulberry32(20261126);
    for (let round = 0; round < 50; round++) {
      const capacity = 1 + Math.floor(r() * 300);
      const buf = new Utf8Buffer(capacity);
      const want: string[] = [];
      while (want.length < capacity) {
        const row = Math.min(capacity - 1, want.length + (r() < 0.2 ? Math.floor(r() * 3) : 0));
        while (want.length < row) want.push('');
        const pick = r();
        if (pick < 0.3) {
          const s = WORDS[Math.floor(r() * WORDS.length)]!;
          buf.setString(row, s);
          want.push(s);
        } else if (pick < 0.6) {
          const s = WORDS[Math.floor(r() * WORDS.length)]!;
          const b = utf8.encode('..' + s);
          buf.setBytes(row, b, 2, b.length);
          want.push(s);
        } else {
          const count = Math.min(capacity - row, 1 + Math.floor(r() * 20));
          const values = Array.from({ length: count + 2 }, () => WORDS[Math.floor(r() * WORDS.length)]!);
          const col = batchColumn(values);
          buf.setRange(row, col.offsets, col.bytes, 2, count);
          want.push(...values.slice(2));
        }
      }
      expect(buf.length).toBe(capacity);
      expect(Array.from({ length: capacity }, (_, i) => buf.get(i))).toEqual(want);
      expect(buf.used).toBe(want.reduce((n, s) => n + utf8.encode(s).length, 0));
    }
  });

  it('pads to a row and refuses rows out of order or past its capacity', () => {
    const buf = new Utf8Buffer(4);
    buf.setString(1, 'b');
    buf.pad(3);
    expect([0, 1, 2].map((i) => buf.get(i))).toEqual(['', 'b', '']);
    expect(() => buf.setString(1, 'again')).toThrow(/out of order/);
    buf.setString(3, 'd');
    expect(() => buf.setString(4, 'e')).toThrow(/out of order/);
    expect(() => buf.pad(5)).toThrow(/past its capacity/);
  });

  it('encodes what TextEncoder does, lone surrogates included', () => {
    const buf = new Utf8Buffer(4);
    // The last grows the array between its ASCII head and the rest.
    const values = ['plain', 'mixé🦀', 'a\ud800b', 'a'.repeat(60) + 'é'.repeat(30)];
    values.forEach((v, i) => {
      buf.setString(i, v);
    });
    values.forEach((v, i) => {
      expect([...buf.bytes.subarray(buf.offsets[i]!, buf.offsets[i + 1]!)]).toEqual([...utf8.encode(v)]);
    });
  });
});

describe('STRING blocks read as UTF-8 (compaction)', () => {
  it('refuses a dictionary that is not UTF-8, as decoding it to strings does', async () => {
    const codecs = storageCodecs(await loadCore());
    const bad = new Utf8Buffer(2);
    bad.setBytes(0, Uint8Array.from([0x61, 0xff, 0x62]), 0, 3);
    bad.setBytes(1, Uint8Array.from([0x63]), 0, 1);
    const block = codecs.encodeUtf8(bad, 2, undefined, 'NULL');
    expect(() => codecs.decodeUtf8(block, 2)).toThrow(CorruptionError);
    expect(() => codecs.decodeValues(ValueType.String, block, 2)).toThrow(CorruptionError);
    // Valid UTF-8 once joined ("é"), but each value holds half of the character.
    const split = new Utf8Buffer(2);
    split.setBytes(0, Uint8Array.from([0xc3]), 0, 1);
    split.setBytes(1, Uint8Array.from([0xa9]), 0, 1);
    const halves = codecs.encodeUtf8(split, 2, undefined, 'NULL');
    expect(() => codecs.decodeUtf8(halves, 2)).toThrow(CorruptionError);
    expect(() => codecs.decodeValues(ValueType.String, halves, 2)).toThrow(CorruptionError);
    const good = new Utf8Buffer(2);
    good.setString(0, 'é');
    good.setString(1, 'b');
    const d = codecs.decodeUtf8(codecs.encodeUtf8(good, 2, undefined, 'DEFAULT'), 2);
    expect(
      [...d.index].map((j) => new TextDecoder().decode(d.dictBytes.subarray(d.dictOffsets[j]!, d.dictOffsets[j + 1]!))),
    ).toEqual(['é', 'b']);
  });
});
