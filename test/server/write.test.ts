// POST /api/v1/write against a real server: every case sends its body, then the server is
// stopped and its data directory read back with the storage engine, and each case checks its
// status, error headers and stored rows.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { readBack, type ReadBack, type StoredRow } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

interface Case {
  name: string;
  body: string;
  query?: string;
  status: number;
  code?: string;
  /** A regular expression the X-Sundial-Error message must match. */
  message?: RegExp;
  /** Expected rows of `table` (default: the table named like the case's first word). */
  table?: string;
  rows?: StoredRow[];
}

const NOW_SLACK_NS = 60_000_000_000n;

const cases: Case[] = [
  // Value types
  {
    name: 'a bare number is a DOUBLE',
    body: 't01 f=1,g=-2.5,h=1e3,i=1.,j=-0 5',
    status: 200,
    rows: [{ time: 5n, f: 1, g: -2.5, h: 1000, i: 1, j: -0 }],
  },
  {
    name: 'i and u suffixes are BIGINT and BIGINT UNSIGNED',
    body: 't02 a=-9223372036854775808i,b=9223372036854775807i,c=18446744073709551615u,d=0u 1',
    status: 200,
    rows: [{ time: 1n, a: -(2n ** 63n), b: 2n ** 63n - 1n, c: 2n ** 64n - 1n, d: 0n }],
  },
  {
    name: 'every boolean spelling',
    body: 't03 a=t,b=T,c=true,d=True,e=TRUE,f=f,g=F,h=false,i=False,j=FALSE 1',
    status: 200,
    rows: [{ time: 1n, a: true, b: true, c: true, d: true, e: true, f: false, g: false, h: false, i: false, j: false }],
  },
  {
    name: 'quoted strings with escapes, spaces, commas and newlines',
    body: 't04 s="a \\"b\\", c=d\\\\e\nf",e="" 1',
    status: 200,
    rows: [{ time: 1n, s: 'a "b", c=d\\e\nf', e: '' }],
  },
  {
    name: 'unicode in names, tags and strings',
    body: 'tö5,ключ=значение 名前="値 ✓" 1',
    table: 'tö5',
    status: 200,
    rows: [{ time: 1n, ключ: 'значение', 名前: '値 ✓' }],
  },
  // Escapes in names and tags
  {
    name: 'escaped comma and space in the measurement, tags and field keys',
    body: 't06\\,x\\ y,k\\=1=v\\,2\\ 3 f\\ g=1 1',
    table: 't06,x y',
    status: 200,
    rows: [{ time: 1n, 'k=1': 'v,2 3', 'f g': 1 }],
  },
  // Timestamps and precision
  {
    name: 'negative timestamps',
    body: 't07 f=1 -1000000000000000000',
    status: 200,
    rows: [{ time: -1_000_000_000_000_000_000n, f: 1 }],
  },
  {
    name: 'precision=s scales seconds to nanoseconds',
    query: 'precision=s',
    body: 't08 f=1 1700000000',
    status: 200,
    rows: [{ time: 1_700_000_000_000_000_000n, f: 1 }],
  },
  {
    name: 'precision=ms',
    query: 'precision=ms',
    body: 't09 f=1 1700000000123',
    status: 200,
    rows: [{ time: 1_700_000_000_123_000_000n, f: 1 }],
  },
  {
    name: 'precision=us',
    query: 'precision=us',
    body: 't10 f=1 1700000000123456',
    status: 200,
    rows: [{ time: 1_700_000_000_123_456_000n, f: 1 }],
  },
  {
    name: 'precision=ns',
    query: 'precision=ns',
    body: 't11 f=1 1700000000123456789',
    status: 200,
    rows: [{ time: 1_700_000_000_123_456_789n, f: 1 }],
  },
  {
    name: 'precision in upper case',
    query: 'precision=MS',
    body: 't12 f=1 1',
    status: 200,
    rows: [{ time: 1_000_000n, f: 1 }],
  },
  {
    name: 'an unknown precision is rejected',
    query: 'precision=d',
    body: 't13 f=1 1',
    status: 400,
    code: '040001',
    message: /precision 'd'/,
  },
  // InfluxDB's spellings (its clients send precision=n by default), on every write route.
  {
    name: 'precision=n is nanoseconds',
    query: 'precision=n',
    body: 't29 f=1 1700000000123456789',
    status: 200,
    rows: [{ time: 1_700_000_000_123_456_789n, f: 1 }],
  },
  {
    name: 'precision=u is microseconds',
    query: 'precision=u',
    body: 't30 f=1 1700000000123456',
    status: 200,
    rows: [{ time: 1_700_000_000_123_456_000n, f: 1 }],
  },
  {
    name: 'precision=µ is microseconds',
    query: 'precision=%C2%B5',
    body: 't31 f=1 1700000000123456',
    status: 200,
    rows: [{ time: 1_700_000_000_123_456_000n, f: 1 }],
  },
  {
    name: 'precision=m is minutes',
    query: 'precision=m',
    body: 't32 f=1 28333333',
    status: 200,
    rows: [{ time: 1_699_999_980_000_000_000n, f: 1 }],
  },
  {
    name: 'precision=h is hours',
    query: 'precision=h',
    body: 't33 f=1 472222',
    status: 200,
    rows: [{ time: 1_699_999_200_000_000_000n, f: 1 }],
  },
  {
    name: 'precision=H in upper case',
    query: 'precision=H',
    body: 't34 f=1 1',
    status: 200,
    rows: [{ time: 3_600_000_000_000n, f: 1 }],
  },
  {
    name: 'a timestamp that overflows in the database precision',
    query: 'precision=s',
    body: 't14 f=1 9223372036854775807',
    status: 422,
    code: '020012',
  },
  // Comments, blank lines, CRLF, series and merging
  {
    name: 'comments, blank lines and CRLF',
    body: '# a comment\r\n\r\nt15,h=a f=1 1\r\n   \n  # indented comment\nt15,h=b f=2 2\r\n',
    table: 't15',
    status: 200,
    rows: [
      { time: 1n, h: 'a', f: 1 },
      { time: 2n, h: 'b', f: 2 },
    ],
  },
  {
    name: 'same series and time merge field by field, last write wins',
    body: 't16,h=a f=1,g=1 1\nt16,h=a f=2 1\nt16,h=a g=3 1\nt16,h=a f=0 0',
    status: 200,
    rows: [
      { time: 0n, h: 'a', f: 0 },
      { time: 1n, h: 'a', f: 2, g: 3 },
    ],
  },
  {
    name: 'tag order does not make another series',
    body: 't17,a=1,b=2 f=1 1\nt17,b=2,a=1 f=2 1',
    status: 200,
    rows: [{ time: 1n, a: '1', b: '2', f: 2 }],
  },
  { name: 'an empty body stores nothing', body: '', table: 't18', status: 200, rows: [] },
  // Errors: nothing of a failing request is stored
  {
    name: 'a malformed line rejects the whole request',
    body: 't19 f=1 1\nt19 f=2 2\nt19 f=abc 3',
    status: 400,
    code: '040004',
    message: /line 3, column 7/,
    rows: [],
  },
  { name: 'a line without fields', body: 't20,h=a 1', status: 400, code: '040004', message: /line 1/, rows: [] },
  {
    name: 'a type conflict within the request',
    body: 't21 f=1i 1\nt21 f=1 2',
    status: 422,
    code: '020010',
    message: /column 'f' of table 't21'.*BIGINT.*DOUBLE/,
    rows: [],
  },
  {
    name: 'a name used as tag and field within the request',
    body: 't22,x=1 f=1 1\nt22 x=1 2',
    status: 422,
    code: '020010',
    message: /'x'/,
    rows: [],
  },
  {
    name: 'an unknown database',
    query: 'db=nope',
    body: 't23 f=1 1',
    status: 422,
    code: '030017',
    message: /Database not found: "nope"/,
  },
  {
    name: 'an unknown tenant',
    query: 'tenant=nope',
    body: 't24 f=1 1',
    status: 422,
    code: '030010',
    message: /The tenant nope not found/,
  },
  {
    name: 'a repeated query parameter',
    query: 'db=public&db=public',
    body: 't25 f=1 1',
    status: 400,
    code: '040001',
    message: /'db' is given 2 times/,
  },
  {
    name: 'a NUL character inside a string is kept',
    body: 't26 s="\u0000" 1',
    status: 200,
    rows: [{ time: 1n, s: '\u0000' }],
  },
  // VNODE_DURATION (default a year) decides, not the week storage cuts: 30 days before the end is refused.
  {
    name: 'a time whose year-long VNODE_DURATION bucket would end past the largest timestamp',
    body: 't28 f=1 1\nt28 f=2 9220780036854775807',
    status: 422,
    code: '020012',
    message: /create bucket unknown error db:public 9220780036854775807/,
    rows: [],
  },
  {
    name: 'a time whose partition would end past the largest timestamp',
    body: 't27 f=1 1\nt27 f=2 9223372036854775807',
    status: 422,
    code: '020012',
    message: /create bucket unknown error db:public 9223372036854775807/,
    rows: [],
  },
];

/** Cases that need state written by an earlier request of the run. */
const sequences: Array<{ name: string; bodies: Array<[string, number, string?]>; table: string; rows: StoredRow[] }> = [
  {
    name: 'a type conflict with the stored schema rejects the request and creates nothing',
    bodies: [
      ['s01 f=1i 1', 200],
      ['s01 f=1 2\ns01 g=1 3\ns01x f=1 4', 422, '020010'],
    ],
    table: 's01',
    rows: [{ time: 1n, f: 1n }],
  },
  {
    name: 'a stored tag written as a field is a conflict',
    bodies: [
      ['s02,x=a f=1 1', 200],
      ['s02 x=1 2', 422, '020010'],
    ],
    table: 's02',
    rows: [{ time: 1n, x: 'a', f: 1 }],
  },
];

let server: TestServer;
let stored: ReadBack;
const responses = new Map<string, HttpResponse>();
const seqResponses = new Map<string, HttpResponse[]>();
let startNs = 0n;
let endNs = 0n;
let missingTsResponse: HttpResponse;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  for (const c of cases) responses.set(c.name, await writeLp(server.url, c.body, c.query ?? ''));
  for (const s of sequences) {
    const rs: HttpResponse[] = [];
    for (const [body] of s.bodies) rs.push(await writeLp(server.url, body));
    seqResponses.set(s.name, rs);
  }
  startNs = BigInt(Date.now()) * 1_000_000n;
  missingTsResponse = await writeLp(server.url, 'nots,h=a f=1\nnots,h=b f=2');
  endNs = BigInt(Date.now()) * 1_000_000n;
  expect(await server.stop()).toBe(0);
  stored = await readBack(server.dataDir);
});

afterAll(async () => {
  await stored?.close();
  server?.cleanup();
});

describe('POST /api/v1/write', () => {
  for (const c of cases) {
    it(`${c.status === 200 ? 'stores' : 'rejects'}: ${c.name}`, async () => {
      const r = responses.get(c.name)!;
      expect({
        status: r.status,
        code: r.headers['x-sundial-error-code'],
        message: r.headers['x-sundial-error'],
      }).toMatchObject({ status: c.status, code: c.code });
      expect(r.body.length, 'write responses have an empty body').toBe(0);
      expect(r.headers['content-length']).toBe('0');
      if (c.message) expect(String(r.headers['x-sundial-error'])).toMatch(c.message);
      if (c.rows !== undefined) {
        const table = c.table ?? c.body.split(/[ ,]/)[0]!;
        const have = stored.storage.catalog.database('cnosdb', 'public')!.tables.has(table);
        if (c.rows.length === 0) expect(have, `table ${table} must not exist`).toBe(false);
        else expect(await stored.rows(table)).toEqual(c.rows);
      }
    });
  }

  for (const s of sequences) {
    it(s.name, async () => {
      const rs = seqResponses.get(s.name)!;
      expect(rs.map((r) => [r.status, r.headers['x-sundial-error-code']])).toEqual(
        s.bodies.map(([, st, code]) => [st, code]),
      );
      expect(await stored.rows(s.table)).toEqual(s.rows);
      expect(stored.storage.catalog.database('cnosdb', 'public')!.tables.has('s01x')).toBe(false);
      const t = stored.storage.catalog.database('cnosdb', 'public')!.tables.get('s01');
      if (s.table === 's01') expect(t!.fields.map((f) => f.name)).toEqual(['f']);
    });
  }

  it('gives a point without a timestamp the server time', async () => {
    expect(missingTsResponse.status).toBe(200);
    const rows = await stored.rows('nots');
    expect(rows.map((r) => r.h)).toEqual(['a', 'b']);
    for (const r of rows) {
      expect(r.time >= startNs - NOW_SLACK_NS && r.time <= endNs + NOW_SLACK_NS).toBe(true);
    }
    expect(rows[0]!.time).toBe(rows[1]!.time);
  });
});

describe('POST /api/v1/write limits', () => {
  let small: TestServer;
  beforeAll(async () => {
    small = await startServer({ inProcess: true, args: ['--write-body-bytes', '1000'] });
  });
  afterAll(async () => {
    await small.stop();
    small.cleanup();
  });

  it('answers 413 for a body over the limit', async () => {
    const r = await writeLp(small.url, 'm f=1 1\n'.repeat(200));
    expect(r.status).toBe(413);
    expect(r.headers['x-sundial-error-code']).toBe('040014');
    expect(r.body.length).toBe(0);
  });

  it('accepts a body at the limit', async () => {
    const line = 'm f=1 1\n';
    const r = await writeLp(small.url, line.repeat(Math.floor(1000 / line.length)));
    expect(r.status).toBe(200);
  });

  it('still answers after a rejected request on the same server', async () => {
    expect((await http(small.url, '/api/v1/ping', { auth: null })).status).toBe(200);
  });
});

describe('POST /api/v1/write admission', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--memtable-bytes', '65536'] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('answers 429 with Retry-After once the memtable is full, and stores nothing of that request', async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof writeLp>> | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const body = Array.from({ length: 100 }, (_, k) => `full,s=s${i}_${k} v=${k}i ${i}`).join('\n');
      const r = await writeLp(server.url, body);
      statuses.push(r.status);
      if (r.status !== 200) refused = r;
    }
    expect(refused, `statuses: ${statuses.join(',')}`).toBeDefined();
    expect([
      refused!.status,
      refused!.headers['x-sundial-error-code'],
      refused!.headers['retry-after'],
      refused!.body.length,
    ]).toEqual([429, '030024', '1', 0]);
    const acknowledged = statuses.filter((s) => s === 200).length;
    expect(await server.stop()).toBe(0);
    const stored = await readBack(server.dataDir);
    try {
      expect((await stored.rows('full')).length).toBe(acknowledged * 100);
    } finally {
      await stored.close();
    }
  });
});
