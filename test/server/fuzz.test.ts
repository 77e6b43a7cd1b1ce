// Random and mutated line-protocol bodies against a real server: never a crash or a hang, only
// 200, 400 or 422; the server keeps answering, and what it stored before is unchanged.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer, type ProcessServer } from '../support/server.js';
import { mulberry32 as rng } from '../support/rng.js';

const VALID = [
  'fz,host=a,region=eu-west usage=12.5,count=3i,ok=true,name="x y" 1700000000000000000',
  'fz,host=b usage=-1e3,count=-9223372036854775808i,big=18446744073709551615u 1700000000000000001',
  'fz\\ a,t\\,x=v\\=1 f\\ g="q\\"uote\\\\" -5',
  '# comment\n\nfz2 v=1',
  'fz2,host=ü v="ünïcødé ✓",n=0u',
];
const ALPHABET = ' ,=\\"\n\r#tTfF0123456789.-+eiuabcxyz\u00e9\u0000\t';

describe('line-protocol fuzz over HTTP', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer();
    expect((await writeLp(server.url, 'keep,k=1 v=42i 1')).status).toBe(200);
  });
  afterAll(async () => {
    if (server.child.exitCode === null) await server.stop();
    server.cleanup();
  });

  it('answers every random or mutated body with 200, 400 or 422', async () => {
    const random = rng(20261122);
    const statuses = new Map<number, number>();
    for (let n = 0; n < 400; n++) {
      let body: Buffer;
      const mode = n % 4;
      if (mode === 0) {
        // random bytes
        body = Buffer.from(Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256)));
      } else if (mode === 1) {
        // random characters from the line-protocol alphabet
        body = Buffer.from(
          Array.from(
            { length: Math.floor(random() * 200) },
            () => ALPHABET[Math.floor(random() * ALPHABET.length)],
          ).join(''),
        );
      } else {
        // mutations of valid bodies: flip, insert, delete, duplicate, truncate
        const b = [...Buffer.from(VALID.slice(0, 1 + Math.floor(random() * VALID.length)).join('\n'))];
        for (let m = 0; m < 1 + Math.floor(random() * 4); m++) {
          const at = Math.floor(random() * (b.length + 1));
          const op = Math.floor(random() * 5);
          if (op === 0 && at < b.length) b[at] = Math.floor(random() * 256);
          else if (op === 1) b.splice(at, 0, ALPHABET.charCodeAt(Math.floor(random() * ALPHABET.length)));
          else if (op === 2) b.splice(at, 1);
          else if (op === 3) b.splice(at, 0, ...b.slice(at, at + 10));
          else b.length = at;
        }
        body = Buffer.from(b);
      }
      const r = await writeLp(server.url, body);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect([200, 400, 422], `body ${JSON.stringify(body.toString('latin1'))}`).toContain(r.status);
      expect(r.body.length).toBe(0);
    }
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
  });

  it('left what was stored before intact', async () => {
    expect(await server.stop()).toBe(0);
    const stored = await readBack(server.dataDir);
    try {
      expect(await stored.rows('keep')).toEqual([{ time: 1n, k: '1', v: 42n }]);
    } finally {
      await stored.close();
    }
  });
});
