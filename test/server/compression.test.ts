import {
  brotliCompressSync,
  brotliDecompressSync,
  deflateRawSync,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateSync,
} from 'node:zlib';
import { compress as zstdCompress, decompress as zstdDecompress } from 'zstd-napi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer, type TestServer } from '../support/server.js';

const body = (table: string): string =>
  Array.from({ length: 100 }, (_, i) => `${table},h=h${i % 3} f=${i} ${i + 1}`).join('\n');

const encoders: Array<[string, string, (b: Buffer) => Buffer]> = [
  ['gzip', 'gzip', (b) => gzipSync(b)],
  ['x-gzip', 'x-gzip', (b) => gzipSync(b)],
  ['deflate (zlib-wrapped)', 'deflate', (b) => deflateSync(b)],
  ['deflate (raw)', 'deflate', (b) => deflateRawSync(b)],
  ['br', 'br', (b) => brotliCompressSync(b)],
  ['zstd', 'zstd', (b) => zstdCompress(b)],
  ['identity', 'identity', (b) => b],
  ['upper-case GZIP', 'GZIP', (b) => gzipSync(b)],
];

describe('request Content-Encoding', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, args: ['--write-body-bytes', String(4 * 1024 * 1024)] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  encoders.forEach(([name, header, encode], i) => {
    it(`decodes ${name}`, async () => {
      const r = await writeLp(server.url, encode(Buffer.from(body(`enc${i}`))), '', {
        headers: { 'content-encoding': header },
      });
      expect(r.status).toBe(200);
    });
  });

  const rejected: Array<[string, string, Buffer, number, string]> = [
    ['an unknown encoding', 'lz4', Buffer.from('m f=1 1'), 400, '040005'],
    [
      'a corrupt gzip stream',
      'gzip',
      Buffer.concat([gzipSync(Buffer.from(body('bad'))).subarray(0, 30), Buffer.from('garbage')]),
      400,
      '040013',
    ],
    ['a truncated gzip stream', 'gzip', gzipSync(Buffer.from(body('bad'))).subarray(0, 40), 400, '040013'],
    ['a corrupt zstd stream', 'zstd', Buffer.from('not zstd at all'), 400, '040013'],
    ['a corrupt br stream', 'br', Buffer.from([0xff, 0xff, 0xff, 0xff]), 400, '040013'],
    ['not deflate', 'deflate', Buffer.from('m f=1 1'), 400, '040013'],
  ];
  for (const [name, header, payload, status, code] of rejected) {
    it(`rejects ${name} with ${status} ${code}`, async () => {
      const r = await writeLp(server.url, payload, '', { headers: { 'content-encoding': header } });
      expect([r.status, r.headers['x-sundial-error-code']]).toEqual([status, code]);
      expect(r.body.length).toBe(0);
    });
  }

  const bombs: Array<[string, string, (b: Buffer) => Buffer]> = [
    ['zstd', 'zstd', (b) => zstdCompress(b, { compressionLevel: 19 })],
    ['gzip', 'gzip', (b) => gzipSync(b, { level: 9 })],
    ['br', 'br', (b) => brotliCompressSync(b)],
  ];
  for (const [name, header, encode] of bombs) {
    it(`answers 413 to a small ${name} bomb that expands past the limit`, async () => {
      const bomb = encode(Buffer.alloc(64 * 1024 * 1024, 'a'));
      expect(bomb.length).toBeLessThan(100 * 1024);
      const r = await writeLp(server.url, bomb, '', { headers: { 'content-encoding': header } });
      expect([r.status, r.headers['x-sundial-error-code']]).toEqual([413, '040014']);
    });
  }

  it('rejects a body that is not UTF-8', async () => {
    const r = await writeLp(server.url, Buffer.from([0x6d, 0x20, 0x66, 0x3d, 0x22, 0xc3, 0x28, 0x22, 0x20, 0x31]));
    expect([r.status, r.headers['x-sundial-error-code']]).toEqual([400, '040004']);
  });

  it('stored every decoded body completely', async () => {
    expect(await server.stop()).toBe(0);
    const stored = await readBack(server.dataDir);
    try {
      for (let i = 0; i < encoders.length; i++) expect((await stored.rows(`enc${i}`)).length).toBe(100);
      expect(stored.storage.catalog.database('cnosdb', 'public')!.tables.has('bad')).toBe(false);
    } finally {
      await stored.close();
    }
  });
});

describe('response Accept-Encoding', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  const decoders: Record<string, (b: Buffer) => Buffer> = {
    gzip: gunzipSync,
    deflate: inflateSync,
    br: brotliDecompressSync,
    zstd: (b) => zstdDecompress(b),
  };
  const negotiation: Array<[string, string | undefined]> = [
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
    ['br', 'br'],
    ['zstd', 'zstd'],
    ['gzip;q=0.5, br;q=0.9', 'br'],
    ['zstd;q=0, gzip', 'gzip'],
    ['identity', undefined],
    ['lz4', undefined],
    ['*;q=0, identity', undefined],
  ];
  for (const [accept, chosen] of negotiation) {
    it(`answers Accept-Encoding "${accept}" with ${chosen ?? 'no compression'}`, async () => {
      const r = await http(server.url, '/api/v1/ping', { auth: null, headers: { 'accept-encoding': accept } });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBe(chosen);
      const plain = chosen ? decoders[chosen]!(r.body) : r.body;
      expect(JSON.parse(plain.toString()).status).toBe('healthy');
    });
  }

  // Every result media type the SQL route serves is compressed on request, with Vary.
  for (const accept of [
    'text/csv',
    'application/csv',
    'text/tsv',
    'application/json',
    'application/nd-json',
    'application/x-ndjson',
    'application/ndjson',
    'text/table',
  ]) {
    it(`compresses a SQL result sent as ${accept}`, async () => {
      const r = await http(server.url, '/api/v1/sql?db=public', {
        method: 'POST',
        body: 'SELECT 1 AS one',
        headers: { accept, 'accept-encoding': 'gzip' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.headers['content-type']).toBe(accept);
      expect(r.headers['content-encoding']).toBe('gzip');
      expect(r.headers.vary).toMatch(/accept-encoding/i);
      expect(gunzipSync(r.body).toString()).toContain('1');
    });
  }
});
