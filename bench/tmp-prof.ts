import { openTsdbWorkload, bulkWorkload, otlpWorkload, promWorkload } from './ingest-bodies.js';
import { parseOpenTsdbText } from '../host/ingest/opentsdb-text.js';
import { parseBulk } from '../host/ingest/es-bulk.js';
import { decodeOtlpProtobuf, otlpTracesToBatches } from '../host/ingest/otlp-traces.js';
import { parsePromWrite } from '../host/ingest/prometheus-remote.js';
import { uncompressSync } from 'snappy';
const which = process.argv[2] ?? 'all';
function time(name: string, rows: number, f: () => void) {
  for (let r = 0; r < 4; r++) { const c0 = process.cpuUsage(); const t0 = performance.now(); f(); const s = (performance.now() - t0) / 1000; const c = process.cpuUsage(c0); const cs = (c.user + c.system) / 1e6; console.log(`${name}: ${Math.round(rows / s).toLocaleString('en')} rows/s wall, ${Math.round(rows / cs).toLocaleString('en')} rows per CPU s`); }
}
if (which === 'all' || which === 'tsdb') { const w = openTsdbWorkload(100, 300); time('opentsdb parse', w.rows, () => { for (const b of w.bodies) parseOpenTsdbText(b, { precision: undefined, dbUnit: 'ns' }); }); }
if (which === 'all' || which === 'bulk') { const w = bulkWorkload(50000); time('bulk parse', w.rows, () => { for (const b of w.bodies) parseBulk(b, { table: 't', timeColumn: '@timestamp', tagColumns: new Set(['host.name', 'service']), dbUnit: 'ns', nowMs: 0 }); }); }
if (which === 'all' || which === 'otlp') { const w = otlpWorkload(50000); time('otlp parse', w.rows, () => { for (const b of w.bodies) otlpTracesToBatches(decodeOtlpProtobuf(b), { table: 't', dbUnit: 'ns' }); }); }
if (which === 'all' || which === 'prom') { const w = promWorkload(100, 50); time('prom parse', w.rows, () => { for (const b of w.bodies) parsePromWrite(uncompressSync(b, { asBuffer: true }) as Buffer, 'ns'); }); }
