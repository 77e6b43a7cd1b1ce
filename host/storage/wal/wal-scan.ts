// Walks the records of one WAL segment (FORMAT.md §2) and tells intact records from damaged
// bytes. A record that fails its checks is not the end of the segment: the walk resynchronises at
// the next 8-aligned offset where an intact record with a later LSN begins, so one flipped byte
// costs one record, not every record after it. Pure function over bytes; wal.ts decides what to
// do with the damage (quarantine, cut a torn tail) and with LSN gaps.

import { crc32 } from 'node:zlib';
import {
  decodeRecord,
  decodeSegmentHeader,
  isDefect,
  RECORD_HEADER_BYTES,
  SEGMENT_HEADER_BYTES,
} from './wal-record.js';

/** Record types a resynchronising walk accepts as a record start (wal-record.ts RecordType). */
const MAX_RECORD_TYPE = 3;

export type SegmentEvent =
  /** An intact record; its LSN is above every LSN before it in the segment. `payload` views the buffer. */
  | { kind: 'record'; lsn: number; type: number; payload: Uint8Array; offset: number; next: number }
  /**
   * Bytes [start, end) hold no intact record. `tail`: nothing intact follows them in the
   * segment (end is its length), as after a torn write.
   */
  | { kind: 'damage'; start: number; end: number; reason: string; tail: boolean };

/**
 * The events of a segment in file order. `firstLsn` is the one its file name gives: a damaged
 * header is reported as damage of its 16 bytes, and the records after it are still read.
 */
export function* walkSegment(buf: Uint8Array, firstLsn: number): Generator<SegmentEvent> {
  if (buf.length < SEGMENT_HEADER_BYTES) {
    yield {
      kind: 'damage',
      start: 0,
      end: buf.length,
      reason: `segment header truncated: ${buf.length} of ${SEGMENT_HEADER_BYTES} bytes`,
      tail: true,
    };
    return;
  }
  const header = decodeSegmentHeader(buf);
  const headerDefect =
    typeof header === 'string'
      ? header
      : header !== firstLsn
        ? `header says first LSN ${header}, file name says ${firstLsn}`
        : undefined;
  let offset = SEGMENT_HEADER_BYTES;
  if (headerDefect !== undefined) {
    const next = resync(buf, offset, firstLsn - 1);
    yield { kind: 'damage', start: 0, end: next ?? buf.length, reason: headerDefect, tail: next === undefined };
    if (next === undefined) return;
    offset = next;
  }
  let last = firstLsn - 1;
  while (offset < buf.length) {
    const r = decodeRecord(buf, offset);
    if (!isDefect(r) && r.lsn > last) {
      yield { kind: 'record', lsn: r.lsn, type: r.type, payload: r.payload, offset, next: r.next };
      last = r.lsn;
      offset = r.next;
      continue;
    }
    const reason = isDefect(r) ? r.reason : `LSN ${r.lsn} does not follow LSN ${last}`;
    const next = resync(buf, offset + 8, last);
    yield { kind: 'damage', start: offset, end: next ?? buf.length, reason, tail: next === undefined };
    if (next === undefined) return;
    offset = next;
  }
}

/**
 * The first 8-aligned offset at or after `from` where an intact record with an LSN above `last`
 * starts, or undefined. Cheap checks (length inside the buffer, a known type, zero reserved
 * bytes, a plausible LSN) come before the CRC, so a long damaged or zeroed stretch costs a few
 * loads per 8 bytes; the CRC then makes a false start a 1 in 2^32 event on top of those checks.
 */
function resync(buf: Uint8Array, from: number, last: number): number | undefined {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let off = (from + 7) & ~7; off + RECORD_HEADER_BYTES <= buf.length; off += 8) {
    const length = dv.getUint32(off, true);
    if (off + RECORD_HEADER_BYTES + length > buf.length) continue;
    const type = buf[off + 16]!;
    if (type === 0 || type > MAX_RECORD_TYPE) continue;
    if (
      buf[off + 17]! |
      buf[off + 18]! |
      buf[off + 19]! |
      buf[off + 20]! |
      buf[off + 21]! |
      buf[off + 22]! |
      buf[off + 23]!
    )
      continue;
    const lsn = dv.getBigUint64(off + 8, true);
    if (lsn <= BigInt(last) || lsn > BigInt(last) + 0x1_0000_0000n) continue;
    let crc = crc32(buf.subarray(off, off + 4));
    crc = crc32(buf.subarray(off + 8, off + RECORD_HEADER_BYTES + length), crc);
    if (crc === dv.getUint32(off + 4, true)) return off;
  }
  return undefined;
}
