// readWriteBatch's checks of series keys and tags (FORMAT.md §1): ASCII is checked eight bytes a
// step, anything else is decoded as UTF-8 and refused with the offset of the broken text, the
// key before its tags, whatever the position of the first byte above 0x7f.

import { describe, expect, it } from 'vitest';
import { CorruptionError } from '../../host/core/errors.js';
import { WriteBatchBuilder } from '../../host/core/write-batch-builder.js';
import { readWriteBatch, ValueType } from '../../host/core/write-batch.js';

function batchOf(tags: Array<[string, string]>): Uint8Array {
  const b = new WriteBatchBuilder();
  b.addRow('m', tags, 1n, [{ name: 'f', type: ValueType.Double, value: 1 }]);
  return b.finish();
}

/** Offsets of every occurrence of `text` (ASCII) in `bytes`. */
function find(bytes: Uint8Array, text: string): number[] {
  const want = Buffer.from(text);
  const out: number[] = [];
  for (let i = 0; i + want.length <= bytes.length; i++) if (Buffer.from(bytes.subarray(i, i + want.length)).equals(want)) out.push(i);
  return out;
}

function refusal(bytes: Uint8Array): CorruptionError {
  try {
    readWriteBatch(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(CorruptionError);
    return e as CorruptionError;
  }
  throw new Error('the batch was read');
}

describe('readWriteBatch series tags', () => {
  const value = 'abcdefghijklmnopqrstuvwxyz0123456789';

  it('reads ASCII tags without decoding them, and others as UTF-8', () => {
    const ascii = readWriteBatch(batchOf([['host', value]])).tables[0]!.series[0]!;
    expect(ascii.rawTags).toBeDefined();
    expect(ascii.tags).toEqual([[0, value]]);
    expect(ascii.key).toBe(`m,host=${value}`);
    const utf = readWriteBatch(batchOf([['host', `${value}é`]])).tables[0]!.series[0]!;
    expect(utf.rawTags).toBeUndefined();
    expect(utf.tags).toEqual([[0, `${value}é`]]);
  });

  // A byte above 0x7f at each place of a 36-byte value (in the eight-byte steps and the tail):
  // in the key (which comes first) it is reported there; in the tag value, there.
  for (let at = 0; at < value.length; at += 5) {
    it(`refuses invalid UTF-8 at byte ${at} of a tag value, in the key first`, () => {
      const bytes = batchOf([['host', value]]);
      const [inKey, inTag] = find(bytes, value);
      const tagOnly = bytes.slice();
      tagOnly[inTag! + at] = 0xff;
      const e = refusal(tagOnly);
      expect(e.check).toBe('tag value: invalid UTF-8');
      expect(e.offset).toBe(inTag);
      const both = tagOnly.slice();
      both[inKey! + at] = 0xff;
      const k = refusal(both);
      expect(k.check).toBe('series key: invalid UTF-8');
      expect(k.offset).toBe(inKey! - 'm,host='.length);
    });
  }
});
