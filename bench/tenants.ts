// npm run bench:tenants — does one tenant at its limits cost another tenant latency? A fresh
// server (dist/, built by the script) with tenants `busy` (a `_limiter` of --rate writes and
// queries per second) and `calm` (no limits). For --seconds each, `calm` sends small line-protocol
// writes and `SELECT count(*)` queries one after the other: alone, then while --flood clients send
// `busy` writes and queries as fast as they can (most get 429). Prints calm's median and p90 in ms
// and what busy got.

import { parseArgs } from 'node:util';
import { http } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    flood: { type: 'string', default: '4' },
    rate: { type: 'string', default: '50' },
  },
});
const SECONDS = Number(opts.seconds);
const FLOOD = Number(opts.flood);
const RATE = Number(opts.rate);

const server = await startServer({ waitWarm: true });
try {
  const root = async (text: string, tenant = 'cnosdb'): Promise<void> => {
    const r = await http(server.url, `/api/v1/sql?tenant=${tenant}`, { method: 'POST', body: text });
    if (r.status !== 200) throw new Error(`${text}: ${r.status} ${r.text}`);
  };
  await root('CREATE TENANT busy');
  await root('CREATE TENANT calm');
  await root('CREATE DATABASE d', 'busy');
  await root('CREATE DATABASE d', 'calm');
  const bucket = {
    remote_bucket: { max: RATE, initial: RATE, refill: RATE / 10, interval: 100 },
    local_bucket: { max: RATE, initial: 0 },
  };
  await root(
    `ALTER TENANT busy SET _limiter = '${JSON.stringify({ request_config: { http_writes: bucket, http_queries: bucket } })}'`,
  );

  let n = 0;
  const write = (tenant: string) =>
    http(server.url, `/api/v1/write?tenant=${tenant}&db=d`, {
      method: 'POST',
      body: `m,host=h${n % 100} v=${n} ${1_700_000_000_000_000_000 + n++ * 1000}`,
    });
  const query = (tenant: string) =>
    http(server.url, `/api/v1/sql?tenant=${tenant}&db=d`, { method: 'POST', body: 'SELECT count(*) FROM m' });

  const calmStatuses = new Map<number, number>();
  const measure = async (): Promise<{ write: number[]; query: number[] }> => {
    const out = { write: [] as number[], query: [] as number[] };
    const end = performance.now() + SECONDS * 1000;
    while (performance.now() < end) {
      let t0 = performance.now();
      const w = await write('calm');
      out.write.push(performance.now() - t0);
      t0 = performance.now();
      const q = await query('calm');
      out.query.push(performance.now() - t0);
      for (const r of [w, q]) calmStatuses.set(r.status, (calmStatuses.get(r.status) ?? 0) + 1);
    }
    return out;
  };
  const pct = (ms: number[], p: number): string => [...ms].sort((a, b) => a - b)[Math.floor(ms.length * p)]!.toFixed(2);

  const alone = await measure();
  let flooding = true;
  const busy = new Map<number, number>();
  const flooders = Array.from({ length: FLOOD }, async (_, i) => {
    while (flooding) {
      const r = await (i % 2 === 0 ? write('busy') : query('busy'));
      busy.set(r.status, (busy.get(r.status) ?? 0) + 1);
    }
  });
  const flooded = await measure();
  flooding = false;
  await Promise.all(flooders);

  console.log(
    `calm's latency (ms), ${SECONDS} s each; busy limited to ${RATE} writes and ${RATE} queries per second, ${FLOOD} clients`,
  );
  console.log('| calm | requests | median | p90 |');
  console.log('|---|---|---|---|');
  for (const [name, m] of [
    ['alone', alone],
    ['busy flooding', flooded],
  ] as const) {
    console.log(`| write, ${name} | ${m.write.length} | ${pct(m.write, 0.5)} | ${pct(m.write, 0.9)} |`);
    console.log(`| query, ${name} | ${m.query.length} | ${pct(m.query, 0.5)} | ${pct(m.query, 0.9)} |`);
  }
  console.log(
    `busy got: ${[...busy]
      .sort()
      .map(([s, c]) => `${c} x ${s}`)
      .join(', ')}; calm got: ${[...calmStatuses]
      .sort()
      .map(([s, c]) => `${c} x ${s}`)
      .join(', ')}`,
  );
} finally {
  await server.stop();
  server.cleanup();
}
