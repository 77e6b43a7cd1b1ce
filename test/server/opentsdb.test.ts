// POST /api/v1/opentsdb/write and /put against a real server: Telegraf's OpenTSDB lines and
// /api/put JSON as clients send them, every rejection with an empty body and the reason in
// headers; then the server is stopped and what it stored is read back from its data directory.

import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, type HttpResponse } from '../support/http.js';
import { readBack, type ReadBack } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

const S = 1_000_000_000n;

/** Lines exactly as Telegraf's outputs.opentsdb writes them over telnet (prefix "telegraf."). */
const TELEGRAF = [
  'put telegraf.cpu.usage_idle 1700000000 98.7012987012987 cpu=cpu-total host=server01',
  'put telegraf.cpu.usage_user 1700000000 0.8 cpu=cpu-total host=server01',
  'put telegraf.mem.used 1700000000 1048576 host=server01',
  'put telegraf.cpu.usage_idle 1700000010 97.5 cpu=cpu-total host=server01',
  '',
].join('\n');

interface Case {
  name: string;
  path: 'write' | 'put';
  body: string | Buffer;
  query?: string;
  headers?: Record<string, string>;
  status: number;
  code?: string;
  message?: string;
  /** A table the request must not have created. */
  absent?: string;
  reply?: string;
}

const cases: Case[] = [
  { name: 'Telegraf lines', path: 'write', body: TELEGRAF, status: 200 },
  {
    name: 'gzip-compressed lines with milliseconds',
    path: 'write',
    body: gzipSync('ms_table 1700000000123 5 k=v\n'),
    headers: { 'content-encoding': 'gzip' },
    status: 200,
  },
  { name: 'precision=us', path: 'write', query: 'precision=us', body: 'us_table 1700000000123456 1 k=v', status: 200 },
  { name: 'an empty body', path: 'write', body: '', status: 200 },
  {
    name: 'a bad line rejects the whole body',
    path: 'write',
    body: 'bad1 1 1 k=v\nbad1 2 x k=v',
    status: 400,
    code: '040010',
    message: "line 2: invalid value 'x', expected an integer or decimal number",
    absent: 'bad1',
  },
  {
    name: 'a point without tags',
    path: 'write',
    body: 'notag 1700000000 1 k=v\nnotag 1700000001 1.5',
    status: 400,
    code: '040010',
    message: 'line 2: expected at least one tag <tagk>=<tagv> after the value',
    absent: 'notag',
  },
  {
    name: 'a 14-digit timestamp without precision',
    path: 'write',
    body: 'bad2 17000000000000 1 k=v',
    status: 400,
    code: '040010',
    absent: 'bad2',
  },
  {
    name: 'an unknown precision',
    path: 'write',
    query: 'precision=d',
    body: 'bad3 1 1 k=v',
    status: 400,
    code: '040001',
    message: "invalid precision 'd': want ns (or n), us (or u), ms, s, m or h",
    absent: 'bad3',
  },
  {
    name: 'an unknown database',
    path: 'write',
    query: 'db=nope',
    body: 'bad4 1 1 k=v',
    status: 422,
    code: '030017',
    message: 'Meta: Database not found: "nope"',
  },
  {
    name: 'a type conflict with the stored schema',
    path: 'write',
    body: 'telegraf.mem.used 1700000020 1 host=server01 value2=x\ntelegraf.mem.used 1700000020 1 value=v',
    status: 422,
    code: '020010',
  },
  {
    name: 'JSON put, one object',
    path: 'put',
    body: '{"metric":"put.one","timestamp":1700000000,"value":1.5,"tags":{"host":"a"}}',
    status: 200,
  },
  {
    name: 'JSON put with ?details',
    path: 'put',
    query: 'details',
    body: JSON.stringify([
      { metric: 'put.many', timestamp: 1700000000000, value: 1, tags: { host: 'a' } },
      { metric: 'put.many', timestamp: 1700000001000, value: '2', tags: { host: 'b' } },
    ]),
    status: 200,
    reply: '{"success":2,"failed":0,"errors":[]}',
  },
  {
    name: 'JSON put with ?summary',
    path: 'put',
    query: 'summary=true',
    body: '[{"metric":"put.sum","timestamp":1,"value":1,"tags":{"k":"a"}}]',
    status: 200,
    reply: '{"success":1,"failed":0}',
  },
  {
    name: 'JSON put with a null value',
    path: 'put',
    body: '[{"metric":"bad5","timestamp":1,"value":1,"tags":{"k":"a"}},{"metric":"bad5","timestamp":1,"value":null,"tags":{"k":"a"}}]',
    status: 400,
    code: '040011',
    message: "data point 1: 'value' must be a number, found null",
    absent: 'bad5',
  },
  {
    name: 'JSON put without tags',
    path: 'put',
    body: '[{"metric":"notag2","timestamp":1,"value":1,"tags":{"k":"a"}},{"metric":"notag2","timestamp":1,"value":1,"tags":{}}]',
    status: 400,
    code: '040011',
    message: "data point 1: 'tags' must hold at least one tag",
    absent: 'notag2',
  },
  {
    name: 'JSON that is not an object',
    path: 'put',
    body: '"x"',
    status: 400,
    code: '040011',
    message: 'data point: expected an object, found string "x"',
  },
  { name: 'JSON that does not parse', path: 'put', body: '{"metric":', status: 400, code: '040011' },
  {
    name: 'an unknown Content-Encoding',
    path: 'put',
    body: '{}',
    headers: { 'content-encoding': 'lz4' },
    status: 400,
    code: '040005',
  },
];

let server: TestServer;
let stored: ReadBack;
const responses = new Map<string, HttpResponse>();
let noAuth: HttpResponse;

beforeAll(async () => {
  server = await startServer({ inProcess: true });
  for (const c of cases) {
    const path = `/api/v1/opentsdb/${c.path}${c.query ? '?' + c.query : ''}`;
    responses.set(c.name, await http(server.url, path, { method: 'POST', body: c.body, headers: c.headers }));
  }
  noAuth = await http(server.url, '/api/v1/opentsdb/write', { method: 'POST', body: 'm 1 1 k=v', auth: null });
  expect(await server.stop()).toBe(0);
  stored = await readBack(server.dataDir);
});

afterAll(async () => {
  await stored?.close();
  server?.cleanup();
});

describe('POST /api/v1/opentsdb/write and /put', () => {
  for (const c of cases) {
    it(`${c.status === 200 ? 'accepts' : 'rejects'} ${c.name}`, () => {
      const r = responses.get(c.name)!;
      expect([r.status, r.headers['x-sundial-error-code']]).toEqual([c.status, c.code]);
      if (c.message !== undefined) expect(r.headers['x-sundial-error']).toBe(c.message);
      if (c.reply !== undefined) {
        expect(r.headers['content-type']).toMatch(/^application\/json/);
        expect(r.text).toBe(c.reply);
      } else {
        expect(r.body.length, 'empty body').toBe(0);
        expect(r.headers['content-length']).toBe('0');
      }
      if (c.absent !== undefined)
        expect(stored.storage.catalog.database('cnosdb', 'public')!.tables.has(c.absent)).toBe(false);
    });
  }

  it('answers 401 without credentials', () => {
    expect([noAuth.status, noAuth.headers['x-sundial-error-code'], noAuth.body.length]).toEqual([401, '010016', 0]);
  });

  it('stored the Telegraf lines: table per metric, tags, DOUBLE value, seconds', async () => {
    expect(await stored.rows('telegraf.cpu.usage_idle')).toEqual([
      { time: 1700000000n * S, cpu: 'cpu-total', host: 'server01', value: 98.7012987012987 },
      { time: 1700000010n * S, cpu: 'cpu-total', host: 'server01', value: 97.5 },
    ]);
    expect(await stored.rows('telegraf.mem.used')).toEqual([
      { time: 1700000000n * S, host: 'server01', value: 1048576 },
    ]);
    const t = stored.storage.catalog.database('cnosdb', 'public')!.tables.get('telegraf.cpu.usage_user')!;
    expect([t.tags.map((c) => c.name), t.fields.map((c) => [c.name, c.type])]).toEqual([
      ['cpu', 'host'],
      [['value', 1]],
    ]);
  });

  it('read milliseconds by digit count, and the precision given', async () => {
    expect(await stored.rows('ms_table')).toEqual([{ time: 1_700_000_000_123_000_000n, k: 'v', value: 5 }]);
    expect(await stored.rows('us_table')).toEqual([{ time: 1_700_000_000_123_456_000n, k: 'v', value: 1 }]);
  });

  it('stored the JSON data points', async () => {
    expect(await stored.rows('put.one')).toEqual([{ time: 1700000000n * S, host: 'a', value: 1.5 }]);
    expect(await stored.rows('put.many')).toEqual([
      { time: 1700000000n * S, host: 'a', value: 1 },
      { time: 1700000001n * S, host: 'b', value: 2 },
    ]);
  });

  it('stored nothing of the request with a type conflict', async () => {
    const t = stored.storage.catalog.database('cnosdb', 'public')!.tables.get('telegraf.mem.used')!;
    expect(t.tags.map((c) => c.name)).toEqual(['host']);
    expect(await stored.rows('telegraf.mem.used')).toHaveLength(1);
  });
});
