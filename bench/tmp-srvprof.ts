import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createInterface } from 'node:readline';
async function startServer(_o: unknown) {
  const dataDir = mkdtempSync('/tmp/ingest-srvprof-');
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/ingest-prof-srv', ...(process.env.XF ? [process.env.XF] : []), 'dist/host/cli/main.js', '--port', '0', '--data-dir', dataDir, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let url = '';
  await new Promise<void>((resolve) => createInterface({ input: child.stdout! }).on('line', (l) => { const j = JSON.parse(l); if (j.msg === 'listening') url = j.url; if (j.msg === 'ready') resolve(); }));
  const exited = new Promise((r) => child.once('exit', r));
  return { url, stop: async () => { child.kill('SIGTERM'); await exited; }, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
}
import { Agent, request } from 'node:http';
import { openTsdbWorkload, bulkWorkload, otlpWorkload, promWorkload, ndjsonWorkload } from './ingest-bodies.js';
const which = process.argv[2]!;
const w = which === 'tsdb' ? openTsdbWorkload(100, 360) : which === 'bulk' ? bulkWorkload(200000) : which === 'nd' ? ndjsonWorkload(200000) : which === 'otlp' ? otlpWorkload(50000) : promWorkload(100, 200);
rmSync('/tmp/ingest-prof-srv', { recursive: true, force: true });
const server = await startServer({ env: { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/ingest-prof-srv' } });
const agent = new Agent({ keepAlive: true, maxSockets: 2 });
const AUTH = 'Basic ' + Buffer.from('root:').toString('base64');
let next = 0; let bad = 0;
const t0 = performance.now();
await Promise.all([0, 1].map(async () => { while (next < w.bodies.length) { const b = w.bodies[next++]!; const st = await new Promise<number>((res, rej) => { const r = request(new URL(w.path, server.url), { method: 'POST', agent, headers: { ...w.headers, authorization: AUTH, 'content-length': String(b.length) } }, (x) => { x.resume(); x.on('end', () => res(x.statusCode!)); }); r.on('error', rej); r.end(b); }); if (st !== 200) bad++; } }));
const s = (performance.now() - t0) / 1000;
console.log(`${w.name}: ${Math.round(w.rows / s)} rows/s, ${bad} failed`);
agent.destroy();
await server.stop(); server.cleanup();
