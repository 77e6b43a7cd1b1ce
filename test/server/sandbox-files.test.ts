// Files dropped on the sandbox (host/sandbox/file-import.ts): line protocol, CSV and NDJSON, gzip
// or not, become the rows the server stores for the same data written as line protocol; bad
// files fail with the codes and, for line protocol, the messages the server's write route gives.

import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox, sandboxError } from '../../host/sandbox/sandbox.js';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const WASM = readFileSync(new URL('../../build/sundial.wasm', import.meta.url));
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const T = (i: number): bigint => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n;
const iso = (i: number): string => new Date(Number(T(i) / 1_000_000n)).toISOString();

/** Each file, and the line protocol the server is given for the same rows. */
const FILES: Array<{ name: string; body: string; lp: string; gzip?: boolean }> = [
  {
    name: 'cpu.lp',
    body: Array.from(
      { length: 30 },
      (_, i) => `cpu,host=h${i % 3} usage=${i / 4},n=${i}i,ok=${i % 2 === 0},msg="m ${i}" ${T(i)}`,
    ).join('\n'),
    lp: '',
  },
  {
    name: 'readings.csv.gz',
    gzip: true,
    body: [
      'time,site:tag,code:string,reading,count:bigint,big:unsigned,ok',
      ...Array.from(
        { length: 25 },
        (_, i) => `${iso(i)},s${i % 2},"c,${i}",${i * 1.5},${i - 10},${i * 1000},${i % 3 === 0 ? 'true' : 'false'}`,
      ),
    ].join('\r\n'),
    lp: Array.from(
      { length: 25 },
      (_, i) =>
        `readings,site=s${i % 2} code="c,${i}",reading=${i * 1.5},count=${i - 10}i,big=${i * 1000}u,ok=${i % 3 === 0} ${T(i)}`,
    ).join('\n'),
  },
  {
    name: 'events.ndjson',
    body: Array.from({ length: 20 }, (_, i) =>
      JSON.stringify({
        time: String(T(i)),
        service: `svc${i % 4}`,
        latency: i * 0.5,
        ok: i % 5 !== 0,
        http: { status: 200 + (i % 3) },
      }),
    ).join('\n'),
    lp: Array.from(
      { length: 20 },
      (_, i) => `events,service=svc${i % 4} latency=${i * 0.5},ok=${i % 5 !== 0},http.status=${200 + (i % 3)} ${T(i)}`,
    ).join('\n'),
  },
];
for (const f of FILES) if (f.lp === '') f.lp = f.body;

const sql = (s: TestServer, text: string): Promise<HttpResponse> =>
  http(s.url, '/api/v1/sql?db=public', { body: text, headers: { accept: 'application/json' } });

describe('files dropped on the sandbox', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ inProcess: true });
    for (const f of FILES) expect((await writeLp(s.url, f.lp)).status).toBe(200);
  });
  afterAll(async () => {
    await s?.stop();
    s?.cleanup();
  });

  for (const f of FILES) {
    it(`loads ${f.name} as the server stores the same rows`, async () => {
      const sandbox = await Sandbox.create(WASM);
      const bytes = f.gzip === true ? new Uint8Array(gzipSync(f.body)) : enc(f.body);
      const table = f.name.split('.')[0]!;
      expect(await sandbox.loadFile(f.name, bytes)).toMatchObject({ table });
      for (const q of [`SELECT * FROM ${table} ORDER BY time`, `DESCRIBE TABLE ${table}`]) {
        const server = JSON.parse((await sql(s, q)).text);
        expect(JSON.parse((await sandbox.sql(q)).json), q).toEqual(server);
      }
    });
  }

  it('refuses bad files with the server codes', async () => {
    const sandbox = await Sandbox.create(WASM);
    const bad = 'cpu,host=a usage= 1';
    const server = await writeLp(s.url, bad);
    const cases: Array<[string, Uint8Array, string, RegExp | string]> = [
      ['x.lp', enc(bad), String(server.headers['x-sundial-error-code']), String(server.headers['x-sundial-error'])],
      ['x.csv.gz', new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]), '040013', /^the gzip stream is corrupt/],
      [
        'x.csv',
        enc('time,v:float\n1,2'),
        '040016',
        "CSV: column v:float: unknown type 'float' (want tag, double, bigint, unsigned, boolean or string)",
      ],
      ['x.csv', enc('time,v:bigint\n1,2.5'), '040016', "CSV line 2, column v: '2.5' is not an integer"],
      ['x.ndjson', enc('{"time": 1, "v": 1}\n[1]'), '040016', 'NDJSON line 2: not a JSON object'],
      [
        'x.ndjson',
        enc('{"time": "yesterday", "v": 1}'),
        '040016',
        /^NDJSON line 1: 'yesterday' is not an RFC 3339 time/,
      ],
    ];
    for (const [name, bytes, code, message] of cases) {
      let failure: unknown;
      await sandbox.loadFile(name, bytes).catch((e: unknown) => (failure = e));
      const err = sandboxError(failure);
      expect(err.code, name).toBe(code);
      if (typeof message === 'string') expect(err.message, name).toBe(message);
      else expect(err.message, name).toMatch(message);
    }
  });
});
