// WAL record and segment header encoding (host/storage/FORMAT.md §2). Pure functions over bytes;
// the file handling lives in wal.ts.

import { crc32 } from 'node:zlib';

export const SEGMENT_MAGIC = 0x4c415753; // "SWAL"
export const SEGMENT_VERSION = 1;
export const SEGMENT_HEADER_BYTES = 16;
export const RECORD_HEADER_BYTES = 24;

/** Record types (append-only numbering). */
export const RecordType = {
  /** Payload: one or more write batches (FORMAT.md §1) back to back; one request, atomically. */
  Write: 1,
  /** Payload: the table and column ids the batches resolved to, then the batches (wal-payloads.ts). */
  StampedWrite: 2,
  /** Payload: a DELETE resolved to a table id, series keys and a time range (wal-payloads.ts). */
  Delete: 3,
} as const;
export type RecordType = (typeof RecordType)[keyof typeof RecordType];

export const pad8 = (n: number): number => (n + 7) & ~7;

export function encodeSegmentHeader(firstLsn: number): Uint8Array {
  const b = new Uint8Array(SEGMENT_HEADER_BYTES);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, SEGMENT_MAGIC, true);
  dv.setUint32(4, SEGMENT_VERSION, true);
  dv.setBigUint64(8, BigInt(firstLsn), true);
  return b;
}

/**
 * Encodes the header of a record whose payload is `parts` concatenated, and the zero padding
 * that follows the payload. The CRC covers the length field, the rest of the header and the
 * payload, so a corrupt length is detected like a corrupt payload.
 */
export function encodeRecordHeader(
  lsn: number,
  type: RecordType,
  parts: readonly Uint8Array[],
): { header: Uint8Array; padding: Uint8Array } {
  let length = 0;
  for (const p of parts) length += p.length;
  const header = new Uint8Array(RECORD_HEADER_BYTES);
  const dv = new DataView(header.buffer);
  dv.setUint32(0, length, true);
  dv.setBigUint64(8, BigInt(lsn), true);
  dv.setUint8(16, type);
  let crc = crc32(header.subarray(0, 4));
  crc = crc32(header.subarray(8), crc);
  for (const p of parts) crc = crc32(p, crc);
  dv.setUint32(4, crc, true);
  return { header, padding: new Uint8Array(pad8(length) - length) };
}

export interface DecodedRecord {
  lsn: number;
  type: number;
  /** A view into the segment buffer. */
  payload: Uint8Array;
  /** Offset of the next record. */
  next: number;
}

/** Why a record could not be read; `torn` means it runs past the end of the data. */
export interface RecordDefect {
  offset: number;
  reason: string;
  torn: boolean;
}

/** Decodes the record at `offset`, or describes why it cannot (never reads past `buf`). */
export function decodeRecord(buf: Uint8Array, offset: number): DecodedRecord | RecordDefect {
  if (offset + RECORD_HEADER_BYTES > buf.length) {
    return {
      offset,
      torn: true,
      reason: `record header truncated: ${buf.length - offset} of ${RECORD_HEADER_BYTES} bytes`,
    };
  }
  const dv = new DataView(buf.buffer, buf.byteOffset + offset, RECORD_HEADER_BYTES);
  const length = dv.getUint32(0, true);
  const stored = dv.getUint32(4, true);
  const end = offset + RECORD_HEADER_BYTES + length;
  if (end > buf.length) {
    return {
      offset,
      torn: true,
      reason: `record payload truncated: have ${buf.length - offset - RECORD_HEADER_BYTES} of ${length} bytes`,
    };
  }
  let crc = crc32(buf.subarray(offset, offset + 4));
  crc = crc32(buf.subarray(offset + 8, end), crc);
  if (crc !== stored) {
    return {
      offset,
      torn: false,
      reason: `checksum mismatch: stored 0x${stored.toString(16)}, computed 0x${crc.toString(16)}`,
    };
  }
  const lsn = Number(dv.getBigUint64(8, true));
  return { lsn, type: dv.getUint8(16), payload: buf.subarray(offset + RECORD_HEADER_BYTES, end), next: pad8(end) };
}

export function isDefect(r: DecodedRecord | RecordDefect): r is RecordDefect {
  return 'reason' in r;
}

/** Checks a segment header; returns its first LSN or a reason. */
export function decodeSegmentHeader(buf: Uint8Array): number | string {
  if (buf.length < SEGMENT_HEADER_BYTES)
    return `segment header truncated: ${buf.length} of ${SEGMENT_HEADER_BYTES} bytes`;
  const dv = new DataView(buf.buffer, buf.byteOffset, SEGMENT_HEADER_BYTES);
  const magic = dv.getUint32(0, true);
  if (magic !== SEGMENT_MAGIC) return `bad magic 0x${magic.toString(16)}, want 0x${SEGMENT_MAGIC.toString(16)}`;
  const version = dv.getUint32(4, true);
  if (version !== SEGMENT_VERSION)
    return `unsupported WAL segment version ${version}, this server reads ${SEGMENT_VERSION}`;
  return Number(dv.getBigUint64(8, true));
}
