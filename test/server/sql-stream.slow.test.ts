// A 10-million-row result streamed with chunked=true: the server's resident memory stays flat
// while the client reads (the result is formatted batch by batch, as fast as the socket drains,
// never held whole). The rows come from a join ON true of 10,000 by 1,000 rows (the cross join
// CnosDB's dialect accepts: it refuses `FROM a, b`), so the data takes a second to write.

import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
import { startServer, type ProcessServer } from '../support/server.js';

const MIB = 1024 * 1024;

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]) * 1024;
}

describe('a 10-million-row chunked query', () => {
  let s: ProcessServer;
  beforeAll(async () => {
    s = await startServer();
    const a = Array.from({ length: 10_000 }, (_, i) => `a,h=h${i % 10} v=${i}i ${i}`).join('\n');
    const b = Array.from({ length: 1_000 }, (_, i) => `b w=${i}i ${i}`).join('\n');
    expect((await writeLp(s.url, a)).status).toBe(200);
    expect((await writeLp(s.url, b)).status).toBe(200);
  });
  afterAll(async () => {
    await s.stop();
    s.cleanup();
  });

  it('streams every row in constant server memory', async () => {
    const url = new URL('/api/v1/sql?chunked=true', s.url);
    const auth = 'Basic ' + Buffer.from('root:').toString('base64');
    const samples: number[] = [];
    let rows = -1; // the header line
    let bytes = 0;
    let tail = '';
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { authorization: auth } }, (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['transfer-encoding']).toBe('chunked');
        let sinceSample = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          sinceSample += chunk.length;
          for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
          tail = chunk.subarray(Math.max(0, chunk.length - 200)).toString();
          if (sinceSample > 16 * MIB) {
            sinceSample = 0;
            samples.push(rssBytes(s.pid));
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end('SELECT a.h, a.v, b.w FROM a JOIN b ON true');
    });
    expect(rows).toBe(10_000_000);
    expect(tail.endsWith('\n')).toBe(true);
    expect(tail).not.toContain('error_code');
    expect(bytes).toBeGreaterThan(100 * MIB);
    // The result is over 100 MiB; the server holds a bounded window of it.
    const warm = samples.slice(2);
    expect(warm.length).toBeGreaterThan(4);
    const growth = Math.max(...warm) - warm[0]!;
    expect(growth, `RSS samples (MiB): ${samples.map((x) => (x / MIB).toFixed(0)).join(' ')}`).toBeLessThan(48 * MIB);
  });
});
