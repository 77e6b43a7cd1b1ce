// LEB128 varints for the writers. Writers always know the exact size of what they write before
// writing it (output capacity is reserved once per block).
import { zigzag } from './zigzag';

/** Bytes taken by `v` as LEB128 (1..10). */
@inline export function varintSize(v: u64): u32 {
  return <u32>(63 - clz<u64>(v | 1)) / 7 + 1;
}

/** Writes `v` as LEB128 at p; returns the position after it. */
export function writeVarint(p: usize, v: u64): usize {
  while (v >= 0x80) {
    store<u8>(p++, <u8>(v | 0x80));
    v >>= 7;
  }
  store<u8>(p++, <u8>v);
  return p;
}

/** Bytes of a signed value as a zigzag varint. */
@inline export function svarintSize(v: i64): u32 {
  return varintSize(zigzag(v));
}

/** Writes a signed value as a zigzag varint. */
@inline export function writeSvarint(p: usize, v: i64): usize {
  return writeVarint(p, zigzag(v));
}
