import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { injectFailure } from '../../../host/storage/fs/fault-points.js';
import { Quarantine } from '../../../host/storage/fs/quarantine.js';
import { nodeWalFiles } from '../../../host/storage/wal/node-wal-files.js';
import { Wal } from '../../../host/storage/wal/wal.js';
import { WalFailure } from '../../../host/storage/wal/write-log.js';
import {
  encodeRecordHeader,
  encodeSegmentHeader,
  RecordType,
  SEGMENT_HEADER_BYTES,
} from '../../../host/storage/wal/wal-record.js';
import { recordingLogger } from '../../support/logger.js';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sundial-wal-'));
  dir = join(root, 'wal');
});
afterEach(() => {
  injectFailure(undefined);
  rmSync(root, { recursive: true, force: true });
});

function payload(i: number, size = 24): Uint8Array {
  const b = new Uint8Array(size);
  b.fill(i & 0xff);
  new DataView(b.buffer).setUint32(0, i, true);
  return b;
}

interface Opened {
  wal: Wal;
  seen: Array<{ lsn: number; first: number; length: number }>;
  lines: Array<Record<string, unknown>>;
  counts: Quarantine['counts'];
}

/** Opens the log in `dir`, the data directory being its parent (quarantine/ goes there); probes allowed at once. */
async function openWal(segmentBytes = 1 << 20, afterLsn = 0): Promise<Opened> {
  const { logger, lines } = recordingLogger();
  const seen: Opened['seen'] = [];
  const quarantine = new Quarantine(root, logger);
  const wal = await Wal.open(
    { dir, files: nodeWalFiles, segmentBytes, sync: true, logger, quarantine, probeIntervalMs: 0 },
    afterLsn,
    (lsn, _type, p) =>
      seen.push({ lsn, first: new DataView(p.buffer, p.byteOffset).getUint32(0, true), length: p.length }),
  );
  return { wal, seen, lines, counts: quarantine.counts };
}

const firsts = (o: Opened): number[] => o.seen.map((s) => s.first);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function segments(): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.wal'))
    .sort();
}

describe('Wal', () => {
  it('replays every appended record in LSN order after reopening', async () => {
    const { wal } = await openWal();
    const lsns: number[] = [];
    const appends = Array.from({ length: 50 }, (_, i) =>
      wal.append(RecordType.Write, [payload(i, 8 * (1 + (i % 5)))], (lsn) => lsns.push(lsn)),
    );
    await Promise.all(appends);
    expect(lsns).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await wal.close();
    const again = await openWal();
    expect(again.seen.map((s) => s.first)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(again.seen.map((s) => s.length)).toEqual(Array.from({ length: 50 }, (_, i) => 8 * (1 + (i % 5))));
    expect(again.wal.nextLsn).toBe(51);
    await again.wal.close();
  });

  it('concatenates the parts of one record', async () => {
    const { wal } = await openWal();
    await wal.append(RecordType.Write, [payload(7, 8), payload(9, 16)]);
    await wal.close();
    const again = await openWal();
    expect(again.seen).toEqual([{ lsn: 1, first: 7, length: 24 }]);
    await again.wal.close();
  });

  it('rolls over to a new segment and removes segments whose records are all older', async () => {
    const { wal } = await openWal(200);
    for (let i = 0; i < 20; i++) await wal.append(RecordType.Write, [payload(i, 64)]);
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
    for (let i = 0; i < 3; i++) await wal.append(RecordType.Write, [payload(i, 64)]);
    void wal.rollover();
    await wal.removeSegmentsBefore(3);
    expect(segments().map((n) => statSync(join(dir, n)).size)).toEqual([SEGMENT_HEADER_BYTES]);
    await wal.append(RecordType.Write, [payload(3, 64)]);
    await wal.close();
    const again = await openWal();
    expect(again.seen.map((s) => s.lsn)).toEqual([4]);
    await again.wal.close();
  });

  it('settles a roll that fails, refuses appends until the segment can be made, then goes on', async () => {
    const { wal, lines } = await openWal();
    await wal.append(RecordType.Write, [payload(0, 64)]);
    const kept = readFileSync(join(dir, segments()[0]!));
    rmSync(dir, { recursive: true, force: true }); // the new segment cannot be created
    await wal.rollover();
    expect(wal.failure?.message).toBe(
      'WAL segment in wal failed (ENOENT); writes are refused until it is writable again',
    );
    expect(
      lines.some(
        (l) => l.msg === 'WAL write failed; the writes of the group were answered with an error and cut off the log',
      ),
    ).toBe(true);
    mkdirSync(dir);
    writeFileSync(join(dir, '00000000000000000001.wal'), kept);
    await wal.append(RecordType.Write, [payload(1, 64)]); // the probe makes the new segment
    expect(wal.failure).toBeUndefined();
    await wal.close();
    const again = await openWal();
    expect(firsts(again)).toEqual([0, 1]);
    await again.wal.close();
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
    [
      'zeros appended after the last record',
      (f, _s, size) => writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.alloc(40)]), { flag: 'w' }) ?? size,
    ],
  ];
  for (const [name, damage] of damages) {
    it(`cuts a torn tail (${name}) and keeps everything before it`, async () => {
      const { wal } = await openWal();
      for (let i = 0; i < 10; i++) await wal.append(RecordType.Write, [payload(i, 32)]);
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
      await again.wal.append(RecordType.Write, [payload(100, 32)]);
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
    for (let i = 0; i < 5; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
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

  it('rejects appends after close', async () => {
    const { wal } = await openWal();
    await wal.close();
    await expect(wal.append(RecordType.Write, [payload(1)])).rejects.toThrow(/BUG: append to a closed WAL/);
  });
});

// Issue 24: damage followed by intact records is corruption, not a torn tail. Each case writes
// records 0..19 of 40-byte payloads (64 bytes a record, 3 a segment of 200 bytes, so that some
// cases span segments), damages them, and expects the intact ones replayed, the damaged bytes
// copied to the quarantine folder, and the loss logged and counted.
describe('Wal replay of damaged segments', () => {
  const RECORD = 24 + 40;
  /** Offset of record i (0-based) in its segment, and the segment's file. */
  const at = (i: number, perSegment: number): { file: string; offset: number } => ({
    file: join(dir, segments()[Math.floor(i / perSegment)]!),
    offset: SEGMENT_HEADER_BYTES + (i % perSegment) * RECORD,
  });
  const cases: Array<{
    name: string;
    segmentBytes: number;
    damage: (perSegment: number) => void;
    replayed: number[];
    lost: number;
    ranges: Array<[number, number]>;
  }> = [
    {
      name: 'a flipped payload byte in the middle of a segment',
      segmentBytes: 1 << 20,
      damage: (n) => flip(at(7, n).file, at(7, n).offset + 30),
      replayed: [...range(0, 6), ...range(8, 19)],
      lost: 1,
      ranges: [[16 + 7 * RECORD, 16 + 8 * RECORD]],
    },
    {
      name: 'a flipped length field (the record boundary is lost)',
      segmentBytes: 1 << 20,
      damage: (n) => flip(at(3, n).file, at(3, n).offset + 2),
      replayed: [0, 1, 2, ...range(4, 19)],
      lost: 1,
      ranges: [[16 + 3 * RECORD, 16 + 4 * RECORD]],
    },
    {
      name: 'three records zeroed',
      segmentBytes: 1 << 20,
      damage: (n) => zero(at(10, n).file, at(10, n).offset, 3 * RECORD),
      replayed: [...range(0, 9), ...range(13, 19)],
      lost: 3,
      ranges: [[16 + 10 * RECORD, 16 + 13 * RECORD]],
    },
    {
      name: 'a damaged record in the first of several segments',
      segmentBytes: 200,
      damage: (n) => flip(at(1, n).file, at(1, n).offset + 40),
      replayed: [0, ...range(2, 19)],
      lost: 1,
      ranges: [[16 + RECORD, 16 + 2 * RECORD]],
    },
    {
      name: 'the last record of an older segment (its tail, but later segments go on)',
      segmentBytes: 200,
      damage: (n) => flip(at(2, n).file, at(2, n).offset + 40),
      replayed: [0, 1, ...range(3, 19)],
      lost: 1,
      ranges: [[16 + 2 * RECORD, 16 + 3 * RECORD]],
    },
    {
      name: 'a damaged segment header',
      segmentBytes: 200,
      damage: (n) => flip(at(3, n).file, 2),
      replayed: range(0, 19),
      lost: 0,
      ranges: [[0, 16]],
    },
  ];
  for (const c of cases) {
    it(`skips ${c.name}, quarantines the bytes and replays every intact record`, async () => {
      const { wal } = await openWal(c.segmentBytes);
      for (let i = 0; i < 20; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
      await wal.close();
      const perSegment = c.segmentBytes === 200 ? 3 : 20;
      const files = segments();
      const damagedFile = c.name.includes('header')
        ? files[1]!
        : c.name.includes('first') || c.name.includes('older')
          ? files[0]!
          : files[0]!;
      const before = readFileSync(join(dir, damagedFile));
      c.damage(perSegment);
      const damaged = readFileSync(join(dir, damagedFile));
      expect(Buffer.compare(before, damaged)).not.toBe(0);

      const again = await openWal(c.segmentBytes);
      expect(firsts(again)).toEqual(c.replayed);
      expect(segments()).toEqual(expect.arrayContaining(files)); // nothing deleted or set aside
      const errors = again.lines.filter(
        (l) =>
          l.msg ===
          'WAL: damaged bytes skipped and copied to the quarantine folder; every intact record after them is replayed',
      );
      expect(errors.map((l) => [l.file, l.start, l.end])).toEqual(
        c.ranges.map(([s, e]) => [`wal/${damagedFile}`, s, e]),
      );
      expect(errors.every((l) => l.level === 50)).toBe(true);
      for (const [s, e] of c.ranges) {
        expect(readFileSync(join(root, 'quarantine', 'wal', `${damagedFile}.${s}-${e}`))).toEqual(
          damaged.subarray(s, e),
        );
      }
      expect(again.counts.walDamagedRanges).toBe(c.ranges.length);
      expect(again.counts.walRecordsLost).toBe(c.lost);
      expect(
        again.lines
          .filter((l) => l.msg === 'WAL: records lost to damage; every intact record after them is replayed')
          .reduce((n, l) => n + Number(l.records), 0),
      ).toBe(c.lost);
      expect(again.wal.report.damaged).toBe(true);
      // Appends go on after the last LSN, in a segment of their own.
      await again.wal.append(RecordType.Write, [payload(100, 40)]);
      await again.wal.close();
      const third = await openWal(c.segmentBytes);
      expect(firsts(third)).toEqual([...c.replayed, 100]);
      expect(third.seen.at(-1)!.lsn).toBe(21);
      await third.wal.close();
    });
  }

  it('reports nothing lost when the damage lies below what segment files hold', async () => {
    const { wal } = await openWal();
    for (let i = 0; i < 20; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
    await wal.close();
    flip(join(dir, segments()[0]!), SEGMENT_HEADER_BYTES + 4 * RECORD + 30);
    const again = await openWal(1 << 20, 10);
    expect(firsts(again)).toEqual(range(10, 19));
    expect(again.counts.walDamagedRanges).toBe(1);
    expect(again.counts.walRecordsLost).toBe(0);
    await again.wal.close();
  });

  it('reports a missing segment as lost records', async () => {
    const { wal } = await openWal(200);
    for (let i = 0; i < 12; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
    await wal.close();
    rmSync(join(dir, segments()[1]!)); // records 3, 4, 5
    const again = await openWal(200);
    expect(firsts(again)).toEqual([0, 1, 2, ...range(6, 11)]);
    expect(again.counts.walRecordsLost).toBe(3);
    expect(again.lines.find((l) => String(l.msg).startsWith('WAL: records lost'))).toMatchObject({
      fromLsn: 4,
      toLsn: 6,
      level: 50,
    });
    await again.wal.close();
  });
});

// Issue 24: a write whose WAL write or fsync failed is answered with an error and must never
// come back: not applied, cut off the file, and after a failed fsync void for the replay too.
describe('Wal write failures', () => {
  const failures: Array<[string, string, boolean]> = [
    ['an fsync that fails (EIO)', 'wal:fsync#3:EIO', true],
    ['a write that fails for want of space (ENOSPC)', 'wal:write#3:ENOSPC', false],
  ];
  for (const [name, spec, rolls] of failures) {
    it(`answers ${name} with an error, applies and keeps nothing of it, and goes on after a probe`, async () => {
      const { wal, lines, counts } = await openWal();
      injectFailure(spec);
      const applied: number[] = [];
      const append = (i: number) => wal.append(RecordType.Write, [payload(i, 40)], (lsn) => applied.push(lsn));
      await append(0);
      await append(1);
      const size = statSync(join(dir, segments()[0]!)).size;
      const err = await append(2).catch((e: unknown) => e as WalFailure);
      expect(err).toBeInstanceOf(WalFailure);
      expect((err as WalFailure).code).toBe(spec.split(':').at(-1));
      expect(applied).toEqual([1, 2]);
      expect(statSync(join(dir, segments()[0]!)).size).toBe(size); // cut back to the last durable byte
      expect(wal.failure).toBe(err);
      expect(counts.walWriteFailures).toBe(1);
      expect(
        lines.find(
          (l) => l.msg === 'WAL write failed; the writes of the group were answered with an error and cut off the log',
        ),
      ).toMatchObject({ level: 50, roll: rolls });
      // The next append probes first and is written (its LSN is the failed one's).
      await append(3);
      expect(applied).toEqual([1, 2, 3]);
      expect(wal.failure).toBeUndefined();
      expect(segments()).toHaveLength(rolls ? 2 : 1);
      if (rolls) expect(segments()[1]).toBe('00000000000000000003.wal');
      await wal.close();
      const again = await openWal();
      expect(again.seen.map((s) => [s.lsn, s.first])).toEqual([
        [1, 0],
        [2, 1],
        [3, 3],
      ]);
      expect(again.counts.walDamagedRanges + again.counts.walRecordsLost).toBe(0);
      await again.wal.close();
    });
  }

  it('opens on a disk where no segment can be made, refusing appends until one can', async () => {
    const { wal } = await openWal();
    for (let i = 0; i < 3; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
    await wal.close();
    flip(join(dir, segments()[0]!), 4); // a damaged header: appends need a new segment
    injectFailure('wal:segment*0:ENOSPC');
    const again = await openWal();
    expect(firsts(again)).toEqual([0, 1, 2]);
    expect(again.wal.failure?.code).toBe('ENOSPC');
    await expect(again.wal.append(RecordType.Write, [payload(3, 40)])).rejects.toBeInstanceOf(WalFailure);
    injectFailure(undefined);
    await again.wal.append(RecordType.Write, [payload(4, 40)]);
    await again.wal.close();
    const third = await openWal();
    expect(third.seen.map((s) => [s.lsn, s.first])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 4],
    ]);
    await third.wal.close();
  });

  it('voids records of a failed write that stayed in an older segment', async () => {
    const { wal } = await openWal();
    for (let i = 0; i < 5; i++) await wal.append(RecordType.Write, [payload(i, 40)]);
    await wal.close();
    // As if the cut back had failed after records 4 and 5 failed: the log went on in a segment
    // whose first LSN is 4, with other records.
    const next = join(dir, '00000000000000000004.wal');
    const records = [4, 5].map((lsn) => {
      const body = payload(50 + lsn, 40);
      const { header, padding } = encodeRecordHeader(lsn, RecordType.Write, [body]);
      return Buffer.concat([header, body, padding]);
    });
    writeFileSync(next, Buffer.concat([encodeSegmentHeader(4), ...records]));
    const again = await openWal();
    expect(again.seen.map((s) => [s.lsn, s.first])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 54],
      [5, 55],
    ]);
    expect(
      again.lines.find(
        (l) => l.msg === 'WAL: skipped the records of writes that failed (they were answered with an error)',
      ),
    ).toMatchObject({ records: 2 });
    expect(again.counts.walFailedWriteRecords).toBe(2);
    expect(again.counts.walDamagedRanges + again.counts.walRecordsLost).toBe(0);
    await again.wal.close();
  });
});

function zero(file: string, offset: number, length: number): void {
  const b = readFileSync(file);
  b.fill(0, offset, offset + length);
  writeFileSync(file, b);
}

function flip(file: string, offset: number): void {
  const b = readFileSync(file);
  b[offset] = b[offset]! ^ 0xff;
  writeFileSync(file, b);
}
