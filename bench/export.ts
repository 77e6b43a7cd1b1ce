// node --import tsx bench/export.ts [--hosts 10,300] — GET /api/v1/export in constant server
// memory: for each size of the TSBS cpu set (host/sandbox/demo-data.ts, 8,640 rows a host), a
// fresh server is loaded and compacted, then the whole table is exported to a client that keeps
// nothing; printed: the export's size and time, and the server's RSS before and at most during
// it (sampled every 10 ms). Needs `npm run build`.

import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { demoLineProtocol } from '../host/sandbox/demo-data.js';
import { http } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';
import { rssMiB } from './support/proc.js';

const { values: opts } = parseArgs({ options: { hosts: { type: 'string', default: '10,300' } } });

for (const hosts of opts.hosts!.split(',').map(Number)) {
  const s = await startServer({ waitWarm: true });
  try {
    for (const piece of demoLineProtocol({ hosts }, 100_000)) {
      const r = await http(s.url, '/api/v1/write', { body: piece });
      if (r.status !== 200) throw new Error(`write: ${r.status} ${r.text}`);
    }
    await http(s.url, '/api/v1/sql', { body: 'COMPACT DATABASE public' });
    await new Promise((r) => setTimeout(r, 2000));
    const rss = (): number => rssMiB(s.pid);
    const idle = rss();
    let peak = idle;
    const timer = setInterval(() => (peak = Math.max(peak, rss())), 10);
    const started = performance.now();
    const bytes = await new Promise<number>((resolve, reject) => {
      request(`${s.url}/api/v1/export?table=cpu`, { headers: { authorization: 'Basic cm9vdDo=' } }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      }).end();
    });
    clearInterval(timer);
    console.log(
      `${hosts} hosts (${(hosts * 8640).toLocaleString()} rows): export ${(bytes / 1048576).toFixed(1)} MiB in ${(performance.now() - started).toFixed(0)} ms; server RSS ${idle.toFixed(0)} MiB before, at most ${peak.toFixed(0)} MiB during (+${(peak - idle).toFixed(0)})`,
    );
  } finally {
    await s.stop();
    s.cleanup();
  }
}
