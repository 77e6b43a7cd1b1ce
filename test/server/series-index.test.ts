// SQL tag predicates over a table whose series are mostly in v4 segment files: `=`, IN, `!=`,
// NOT IN, LIKE and regex matches on tags find their series through the files' postings
// (storage/read/series-postings.ts, once the files hold 4096 series of the table) and must answer
// as a test of every series would, also for series still in the memtable and series that lack
// the tag.

import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
/** Small: all but the last few hundred series are flushed to files. */
const FLUSH_BYTES = 65536;

beforeAll(async () => {
  server = await startServer({ inProcess: true, args: ['--flush-bytes', String(FLUSH_BYTES)] });
});

afterAll(async () => {
  await server.stop();
});

const sql = (text: string): Promise<HttpResponse> =>
  http(server.url, '/api/v1/sql?db=public', { body: text, headers: { accept: 'application/json' } });

const SERIES = 6000;
const zone = (i: number): string | undefined => (i % 3 === 0 ? `z${i % 5}` : undefined);

function lines(from: number, to: number): string {
  const out: string[] = [];
  for (let i = from; i < to; i++) {
    const z = zone(i);
    out.push(`m,host=h${i % 100},pod=p${i}${z === undefined ? '' : `,zone=${z}`} v=${i} ${1_000 + i}`);
  }
  return out.join('\n');
}

function segFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => p.endsWith('.seg'));
}

describe('SQL tag predicates through the postings', () => {
  it('answer as a test of every series would', async () => {
    for (let from = 0; from < SERIES; from += 1000)
      expect((await writeLp(server.url, lines(from, from + 1000), '?db=public&precision=ns')).status).toBe(200);
    // The memtable is flushed once it holds storage.flush_bytes (the maintenance tick): wait
    // until it holds less, so that the files hold most series and reads take the postings.
    const memtableBytes = async (): Promise<number> => {
      const r = await http(server.url, '/metrics', { auth: null });
      const line = r.text
        .split('\n')
        .find((l) => l.startsWith('sundial_memtable_bytes{tenant="cnosdb",database="public"}'));
      return line === undefined ? Infinity : Number(line.split(' ').at(-1));
    };
    const deadline = Date.now() + 60_000;
    while ((await memtableBytes()) >= FLUSH_BYTES && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(await memtableBytes()).toBeLessThan(FLUSH_BYTES);
    expect(segFiles(server.dataDir).length).toBeGreaterThan(0);
    // A few more series that stay in the memtable.
    expect((await writeLp(server.url, lines(SERIES, SERIES + 30), '?db=public&precision=ns')).status).toBe(200);
    const all = SERIES + 30;
    const cases: Array<{ where: string; keep: (i: number) => boolean }> = [
      { where: "host = 'h7'", keep: (i) => i % 100 === 7 },
      { where: "pod IN ('p12', 'p6010', 'nope')", keep: (i) => i === 12 || i === 6010 },
      {
        where: "zone != 'z0' AND host = 'h3'",
        keep: (i) => zone(i) !== undefined && zone(i) !== 'z0' && i % 100 === 3,
      },
      {
        where: "zone NOT IN ('z0', 'z1') AND host IN ('h6', 'h9')",
        keep: (i) => zone(i) !== undefined && zone(i) !== 'z0' && zone(i) !== 'z1' && (i % 100 === 6 || i % 100 === 9),
      },
      { where: "pod LIKE 'p12%'", keep: (i) => String(i).startsWith('12') },
      { where: "pod ~ '^p[0-9]*77$'", keep: (i) => String(i).endsWith('77') },
      { where: "pod !~ '0' AND host = 'h11'", keep: (i) => !String(i).includes('0') && i % 100 === 11 },
      { where: "zone IS NULL AND host = 'h1'", keep: (i) => zone(i) === undefined && i % 100 === 1 },
    ];
    for (const c of cases) {
      const want: Array<{ pod: string; v: number }> = [];
      for (let i = 0; i < all; i++) if (c.keep(i)) want.push({ pod: `p${i}`, v: i });
      want.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
      expect(want.length, c.where).toBeGreaterThan(0);
      for (let k = 0; k < 2; k++) {
        const r = await sql(`SELECT pod, v FROM m WHERE ${c.where} ORDER BY pod`);
        expect(r.status, r.text).toBe(200);
        expect(JSON.parse(r.text), c.where).toEqual(want);
        const n = await sql(`SELECT count(*) AS n FROM m WHERE ${c.where}`);
        expect(JSON.parse(n.text), c.where).toEqual([{ n: want.length }]);
      }
    }
  });
});
