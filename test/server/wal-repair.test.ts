// A torn WAL tail on a real server's data directory: the last record is damaged (truncated at a
// random byte, or one byte flipped), the server cuts it on start, logs it, and everything
// acknowledged before it is intact. Damage followed by intact records is corruption, not a torn
// tail (issue 24): the damaged record is skipped and quarantined, everything after it replayed.

import { existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer } from '../support/server.js';

/** The WAL segment files of database `public` (tenant cnosdb), oldest first. */
function walFiles(dataDir: string): string[] {
  const catalog = JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8')) as {
    databases: Array<{ id: number; tenant: string; name: string }>;
  };
  const id = catalog.databases.find((d) => d.tenant === 'cnosdb' && d.name === 'public')!.id;
  const dir = join(dataDir, 'db', String(id), 'wal');
  return readdirSync(dir)
    .filter((n) => n.endsWith('.wal'))
    .sort()
    .map((n) => join(dir, n));
}

const damages: Array<[string, (file: string, lastRecordBytes: number) => void]> = [
  [
    'truncated at a random byte of the last record',
    (file, last) => {
      const size = statSync(file).size;
      truncateSync(file, size - 1 - Math.floor(Math.random() * (last - 1)));
    },
  ],
  [
    'a flipped byte in the last record',
    (file, last) => {
      const b = readFileSync(file);
      const at = b.length - 1 - Math.floor(Math.random() * (last - 8));
      b[at] = b[at]! ^ 0x5a;
      writeFileSync(file, b);
    },
  ],
];

describe('WAL repair on start', () => {
  for (const [name, damage] of damages) {
    it(`cuts the tail (${name}) and keeps everything before it`, async () => {
      const server = await startServer();
      for (let i = 0; i < 10; i++) expect((await writeLp(server.url, `torn,i=${i} v=${i} ${i}`)).status).toBe(200);
      const file = walFiles(server.dataDir).at(-1)!;
      const before = statSync(file).size;
      expect((await writeLp(server.url, 'torn,i=last v=99 99')).status).toBe(200);
      expect(await server.stop()).toBe(0);
      damage(file, statSync(file).size - before);

      const again = await startServer({ dataDir: server.dataDir });
      await again.waitForLog((l) => l.msg === 'WAL: cut the torn tail of the last segment');
      expect(await again.stop()).toBe(0);
      const stored = await readBack(server.dataDir);
      try {
        expect((await stored.rows('torn')).map((r) => r.i)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
      } finally {
        await stored.close();
        server.cleanup();
      }
    });
  }
});

/** Start offsets of the records of a WAL segment file (FORMAT.md §2: 16-byte header, 8-aligned records). */
function recordOffsets(file: string): number[] {
  const b = readFileSync(file);
  const out: number[] = [];
  for (let at = 16; at + 24 <= b.length; ) {
    out.push(at);
    at = (at + 24 + b.readUInt32LE(at) + 7) & ~7;
  }
  return out;
}

function flipByte(file: string, at: number): void {
  const b = readFileSync(file);
  b[at] = b[at]! ^ 0x5a;
  writeFileSync(file, b);
}

const DAMAGED =
  'WAL: damaged bytes skipped and copied to the quarantine folder; every intact record after them is replayed';
const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};

describe('WAL corruption on start (issue 24)', () => {
  const cases: Array<{
    name: string;
    segmentBytes?: string;
    damage: (files: string[]) => { file: string; start: number; end: number };
    lost: string[];
  }> = [
    {
      name: 'a flipped byte in the 3rd of 10 records',
      damage: (files) => {
        const at = recordOffsets(files[0]!);
        flipByte(files[0]!, at[2]! + 40);
        return { file: files[0]!, start: at[2]!, end: at[3]! };
      },
      lost: ['2'],
    },
    {
      name: 'a flipped byte in the segment header',
      damage: (files) => {
        flipByte(files[0]!, 1);
        return { file: files[0]!, start: 0, end: 16 };
      },
      lost: [],
    },
    {
      name: 'a flipped byte in an older segment of several',
      segmentBytes: '300',
      damage: (files) => {
        expect(files.length).toBeGreaterThan(2);
        const at = recordOffsets(files[0]!);
        flipByte(files[0]!, at[1]! + 30);
        // The segment's last record (records after it are in the next segments).
        expect(at).toHaveLength(2);
        return { file: files[0]!, start: at[1]!, end: statSync(files[0]!).size };
      },
      lost: ['1'],
    },
  ];
  for (const c of cases) {
    it(`skips ${c.name}, quarantines its bytes and replays every intact record`, async () => {
      const env = { ...QUIET, ...(c.segmentBytes === undefined ? {} : { SUNDIAL_WAL_SEGMENT_BYTES: c.segmentBytes }) };
      const server = await startServer({ env });
      for (let i = 0; i < 10; i++) expect((await writeLp(server.url, `bad,i=${i} v=${i} ${i}`)).status).toBe(200);
      expect(await server.stop()).toBe(0);
      const files = walFiles(server.dataDir);
      const { file, start, end } = c.damage(files);
      const damaged = readFileSync(file);

      const again = await startServer({ dataDir: server.dataDir, env });
      try {
        const error = await again.waitForLog((l) => l.msg === DAMAGED);
        const rel = file.slice(server.dataDir.length + 1);
        expect(error).toMatchObject({
          level: 50,
          file: rel,
          start,
          end,
          quarantined: `quarantine/${rel}.${start}-${end}`,
        });
        const kept = `${server.dataDir}/quarantine/${rel}.${start}-${end}`;
        expect(readFileSync(kept)).toEqual(damaged.subarray(start, end));
        expect((statSync(kept).mode & 0o777).toString(8)).toBe('600');
        const ready = await again.waitForLog((l) => l.msg === 'ready');
        expect(ready.faults).toMatchObject({ walDamagedRanges: 1, walRecordsLost: c.lost.length });
        const r = await http(again.url, '/api/v1/sql', { method: 'POST', body: 'SELECT i FROM bad ORDER BY i' });
        expect(r.text).toBe(
          'i\n' +
            ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'].filter((i) => !c.lost.includes(i)).join('\n') +
            '\n',
        );
        await again.waitForLog((l) => l.msg === 'flushed');
      } finally {
        expect(await again.stop()).toBe(0);
      }
      // Flushed at that start: the damaged segment is gone, the next start finds nothing wrong.
      expect(existsSync(file)).toBe(false);
      const third = await startServer({ dataDir: server.dataDir, env });
      try {
        expect(third.logs.some((l) => l.msg === DAMAGED)).toBe(false);
        const r = await http(third.url, '/api/v1/sql', { method: 'POST', body: 'SELECT count(*) AS n FROM bad' });
        expect(r.text).toBe(`n\n${10 - c.lost.length}\n`);
      } finally {
        expect(await third.stop()).toBe(0);
        server.cleanup();
      }
    });
  }
});
