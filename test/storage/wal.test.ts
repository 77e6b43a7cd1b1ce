import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Wal } from '../../host/storage/wal.js';
import { RecordType, SEGMENT_HEADER_BYTES } from '../../host/storage/wal-record.js';
import { recordingLogger } from '../support/logger.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sundial-wal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function payload(i: number, size = 24): Uint8Array {
  const b = new Uint8Array(size);
  b.fill(i & 0xff);
  new DataView(b.buffer).setUint32(0, i, true);
  return b;
}

async function openWal(segmentBytes = 1 << 20): Promise<{ wal: Wal; seen: Array<{ lsn: number; first: number; length: number }>; lines: Array<Record<string, unknown>> }> {
  const { logger, lines } = recordingLogger();
  const seen: Array<{ lsn: number; first: number; length: number }> = [];
  const wal = await Wal.open({ dir, segmentBytes, sync: true, logger }, 0, (lsn, _type, p) =>
    seen.push({ lsn, first: new DataView(p.buffer, p.byteOffset).getUint32(0, true), length: p.length }),
  );
  return { wal, seen, lines };
}

function segments(): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.wal')).sort();
}

describe('Wal', () => {
  it('replays every appended record in LSN order after reopening', async () => {
    const { wal } = await openWal();
    const appends = Array.from({ length: 50 }, (_, i) => wal.append(RecordType.Write, [payload(i, 8 * (1 + (i % 5)))]));
    expect(appends.map((a) => a.lsn)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await Promise.all(appends.map((a) => a.durable));
    await wal.close();
    const again = await openWal();
    expect(again.seen.map((s) => s.first)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(again.seen.map((s) => s.length)).toEqual(Array.from({ length: 50 }, (_, i) => 8 * (1 + (i % 5))));
    expect(again.wal.nextLsn).toBe(51);
    await again.wal.close();
  });

  it('concatenates the parts of one record', async () => {
    const { wal } = await openWal();
    await wal.append(RecordType.Write, [payload(7, 8), payload(9, 16)]).durable;
    await wal.close();
    const again = await openWal();
    expect(again.seen).toEqual([{ lsn: 1, first: 7, length: 24 }]);
    await again.wal.close();
  });

  it('rolls over to a new segment and removes segments whose records are all older', async () => {
    const { wal } = await openWal(200);
    for (let i = 0; i < 20; i++) await wal.append(RecordType.Write, [payload(i, 64)]).durable;
    expect(segments().length).toBeGreaterThan(3);
    await wal.removeSegmentsBefore(15);
    const left = segments();
    expect(Number(left[0]!.slice(0, 20))).toBeLessThanOrEqual(16);
    await wal.close();
    const again = await openWal(200);
    expect(again.seen.at(-1)!.first).toBe(19);
    expect(again.seen[0]!.lsn).toBeLessThanOrEqual(16);
    await again.wal.close();
  });

  // A memtable's freeze asks for a roll without waiting; its flush may finish first (a tiny
  // memtable, a slow disk). The trim must still remove the segment that holds its records.
  it('removes the rolled segment even when the roll has not happened yet when asked to', async () => {
    const { wal } = await openWal();
    for (let i = 0; i < 3; i++) await wal.append(RecordType.Write, [payload(i, 64)]).durable;
    void wal.rollover();
    await wal.removeSegmentsBefore(3);
    expect(segments().map((n) => statSync(join(dir, n)).size)).toEqual([SEGMENT_HEADER_BYTES]);
    await wal.append(RecordType.Write, [payload(3, 64)]).durable;
    await wal.close();
    const again = await openWal();
    expect(again.seen.map((s) => s.lsn)).toEqual([4]);
    await again.wal.close();
  });

  it('settles a roll that fails, and refuses appends after it', async () => {
    const { wal, lines } = await openWal();
    await wal.append(RecordType.Write, [payload(0, 64)]).durable;
    rmSync(dir, { recursive: true, force: true }); // the new segment cannot be created
    await wal.rollover();
    await expect(wal.append(RecordType.Write, [payload(1, 64)]).durable).rejects.toThrow(/WAL in .* failed, no further writes are accepted/);
    expect(lines.some((l) => l.msg === 'WAL write failed')).toBe(true);
    await wal.close();
  });

  it('resolves a roll of an empty segment without starting another', async () => {
    const { wal } = await openWal();
    await wal.rollover();
    await wal.rollover();
    expect(segments()).toHaveLength(1);
    await wal.close();
  });

  // A torn tail: the last record cut at every possible byte, and a flipped byte in it.
  const damages: Array<[string, (file: string, lastStart: number, size: number) => void]> = [
    ['truncated inside the last record header', (f, s) => truncateSync(f, s + 10)],
    ['truncated inside the last record payload', (f, s, size) => truncateSync(f, s + Math.floor((size - s) / 2))],
    ['a flipped byte in the last payload', (f, _s, size) => flip(f, size - 3)],
    ['a flipped byte in the last length field', (f, s) => flip(f, s + 1)],
    ['zeros appended after the last record', (f, _s, size) => writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.alloc(40)]), { flag: 'w' }) ?? size],
  ];
  for (const [name, damage] of damages) {
    it(`cuts a torn tail (${name}) and keeps everything before it`, async () => {
      const { wal } = await openWal();
      for (let i = 0; i < 10; i++) await wal.append(RecordType.Write, [payload(i, 32)]).durable;
      await wal.close();
      const file = join(dir, segments().at(-1)!);
      const size = statSync(file).size;
      const lastStart = size - (24 + 32);
      damage(file, lastStart, size);
      const again = await openWal();
      const expectLost = name.startsWith('zeros') ? 0 : 1;
      expect(again.seen.map((s) => s.first)).toEqual(Array.from({ length: 10 - expectLost }, (_, i) => i));
      expect(again.lines.some((l) => l.msg === 'WAL: cut the torn tail of the last segment')).toBe(true);
      // The cut tail is gone from the file and appends continue after the last intact record.
      await again.wal.append(RecordType.Write, [payload(100, 32)]).durable;
      await again.wal.close();
      const third = await openWal();
      expect(third.seen.map((s) => s.first)).toEqual([...Array.from({ length: 10 - expectLost }, (_, i) => i), 100]);
      expect(third.seen.at(-1)!.lsn).toBe(11 - expectLost);
      expect(third.lines.some((l) => String(l.msg).startsWith('WAL: cut'))).toBe(false);
      await third.wal.close();
    });
  }

  it('cuts at any truncation point without replaying garbage', async () => {
    const { wal } = await openWal();
    for (let i = 0; i < 5; i++) await wal.append(RecordType.Write, [payload(i, 40)]).durable;
    await wal.close();
    const file = join(dir, segments()[0]!);
    const original = readFileSync(file);
    for (let cut = SEGMENT_HEADER_BYTES; cut < original.length; cut += 7) {
      writeFileSync(file, original.subarray(0, cut));
      const again = await openWal();
      const complete = Math.floor((cut - SEGMENT_HEADER_BYTES) / (24 + 40));
      expect(again.seen.map((s) => s.first)).toEqual(Array.from({ length: complete }, (_, i) => i));
      await again.wal.close();
    }
  });

  it('moves segments after a corruption in an older segment aside', async () => {
    const { wal } = await openWal(200);
    for (let i = 0; i < 12; i++) await wal.append(RecordType.Write, [payload(i, 64)]).durable;
    await wal.close();
    const segs = segments();
    expect(segs.length).toBeGreaterThan(2);
    flip(join(dir, segs[0]!), SEGMENT_HEADER_BYTES + 30);
    const again = await openWal(200);
    expect(again.seen).toEqual([]);
    expect(again.lines.some((l) => String(l.msg).includes('moved the later segments aside'))).toBe(true);
    expect(readdirSync(dir).some((n) => n.startsWith('corrupt-'))).toBe(true);
    await again.wal.close();
  });

  it('rejects appends after close', async () => {
    const { wal } = await openWal();
    await wal.close();
    await expect(wal.append(RecordType.Write, [payload(1)]).durable).rejects.toThrow(/BUG: append to a closed WAL/);
  });
});

function flip(file: string, offset: number): void {
  const b = readFileSync(file);
  b[offset] = b[offset]! ^ 0xff;
  writeFileSync(file, b);
}
