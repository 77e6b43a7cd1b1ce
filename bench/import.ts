// npm run bench:import — `sundial import` of the TSBS cpu data set (100 hosts x 1 day, 864,000
// rows, 10 tags and 10 BIGINT fields: bench:ingest's file) as line protocol, CSV and Parquet, each
// into a fresh server, against bench:ingest's own loader on the same file (the target: the
// import at >= 90% of its rows/s) and the peers' import tools in the same run: `influx -import`
// (Debian influxdb-client) into InfluxDB 1.6, and the same CSV POSTed to VictoriaMetrics'
// /api/v1/import/csv; and COPY INTO from the Parquet and CSV files (server-side reading, one
// statement). Rows/s is over the whole run of each tool, start-up included (what a user waits
// for); client and server CPU seconds beside it.
//
// Options: --hosts 100 --duration 1d --peers influxdb,vm (or none) --runs 1
//          --ndjson (also: NDJSON through sundial import, against the same NDJSON POSTed to the
//          server's NDJSON route in 5000-line bodies: the measurement behind converting on the client)
// Needs `npm run build` first (npm run bench:import does it).

import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  makeData,
  makeVector,
  RecordBatch,
  Schema,
  Field,
  Int64,
  Utf8,
  TimestampNanosecond,
  Struct,
  vectorFromArray,
} from 'apache-arrow';
import { parquetStream } from '../host/cli/export-writers.js';
import { SHARED_DIR } from '../test/support/shared-dir.js';
import { cpuSeconds, peakRssMiB } from './support/proc.js';
import { withFreshServer } from './support/sundial.js';
import { cpuLpFile, loaderArgs } from './support/tsbs-data.js';

const SHARED = join(SHARED_DIR, 'bench') + '/';
/** The CSV copy of the data (its header names the fields for COPY INTO's table). */
let csvPath = '';
const WORK = '/tmp/sundial-bench';
const RUN = join(WORK, `import-run-${process.pid}`);
const MAIN = new URL('../dist/host/cli/main.js', import.meta.url).pathname;

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '100' },
    duration: { type: 'string', default: '1d' },
    peers: { type: 'string', default: 'influxdb,vm' },
    runs: { type: 'string', default: '1' },
    ndjson: { type: 'boolean', default: false },
  },
});

const TAGS = [
  'hostname',
  'region',
  'datacenter',
  'rack',
  'os',
  'arch',
  'team',
  'service',
  'service_version',
  'service_environment',
];

interface Result {
  name: string;
  rows: number;
  seconds: number;
  clientCpu: number;
  serverCpu: number;
  peakRssMiB: number;
  failed: number;
}

// ---- data: bench:ingest's line-protocol file, and the same rows as CSV, NDJSON and Parquet ----

interface Parsed {
  tags: string[];
  fieldNames: string[];
  fields: string[];
  time: string;
}

/** A line of the generated file: `cpu,<10 tags> <10 integer fields> <ns>` (no escapes in it). */
function parseLine(line: string): Parsed {
  const [head, fieldText, time] = line.split(' ') as [string, string, string];
  const tags = head
    .split(',')
    .slice(1)
    .map((kv) => kv.slice(kv.indexOf('=') + 1));
  const pairs = fieldText.split(',');
  return {
    tags,
    fieldNames: pairs.map((p) => p.slice(0, p.indexOf('='))),
    fields: pairs.map((p) => p.slice(p.indexOf('=') + 1, -1)),
    time,
  };
}

async function* lines(file: string): AsyncGenerator<string> {
  for await (const l of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (l !== '') yield l;
}

/** Writes `path` once (to a temporary name first, so an interrupted run leaves no half file). */
async function derived(path: string, write: (tmp: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path;
  const tmp = `${path}.tmp-${process.pid}`;
  await write(tmp);
  renameSync(tmp, path);
  return path;
}

async function writeText(
  tmp: string,
  src: string,
  head: (p: Parsed) => string,
  row: (p: Parsed) => string,
): Promise<void> {
  const out = createWriteStream(tmp);
  let first = true;
  for await (const l of lines(src)) {
    const p = parseLine(l);
    let s = '';
    if (first) s += head(p);
    first = false;
    s += row(p);
    if (!out.write(s)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

const csvFile = (lp: string): Promise<string> =>
  derived(lp.replace(/\.lp$/, '.csv'), (tmp) =>
    writeText(
      tmp,
      lp,
      (p) => ['time', ...TAGS, ...p.fieldNames].join(',') + '\n',
      (p) => [p.time, ...p.tags, ...p.fields].join(',') + '\n',
    ),
  );

/** The nanoseconds of a time as RFC 3339 text, as Sundial's CSV answers it (what COPY INTO casts). */
function rfc3339(ns: string): string {
  const t = BigInt(ns);
  const s = t / 1_000_000_000n;
  const frac = (t % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(s) * 1000).toISOString().slice(0, 19)}.${frac}`;
}

/** The CSV with RFC 3339 times: COPY INTO casts a time text as a date-time, not as a number. */
const copyCsvFile = (lp: string): Promise<string> =>
  derived(lp.replace(/\.lp$/, '.rfc3339.csv'), (tmp) =>
    writeText(
      tmp,
      lp,
      (p) => ['time', ...TAGS, ...p.fieldNames].join(',') + '\n',
      (p) => [rfc3339(p.time), ...p.tags, ...p.fields].join(',') + '\n',
    ),
  );

const ndjsonFile = (lp: string): Promise<string> =>
  derived(lp.replace(/\.lp$/, '.ndjson'), (tmp) =>
    writeText(
      tmp,
      lp,
      () => '',
      (p) =>
        '{"time":' +
        p.time +
        TAGS.map((t, i) => `,"${t}":"${p.tags[i]}"`).join('') +
        p.fieldNames.map((f, i) => `,"${f}":${p.fields[i]}`).join('') +
        '}\n',
    ),
  );

async function* arrowBatches(lp: string): AsyncGenerator<RecordBatch> {
  const N = 65536;
  let rows: Parsed[] = [];
  const flush = (): RecordBatch => {
    const fieldNames = rows[0]!.fieldNames;
    const schema = new Schema([
      new Field('time', new TimestampNanosecond(), false),
      ...TAGS.map((t) => new Field(t, new Utf8(), false)),
      ...fieldNames.map((f) => new Field(f, new Int64(), false)),
    ]);
    const children = [
      makeData({
        type: new TimestampNanosecond(),
        length: rows.length,
        data: BigInt64Array.from(rows, (r) => BigInt(r.time)),
      }),
      ...TAGS.map(
        (_, i) =>
          vectorFromArray(
            rows.map((r) => r.tags[i]!),
            new Utf8(),
          ).data[0]!,
      ),
      ...fieldNames.map((_, i) => makeVector(BigInt64Array.from(rows, (r) => BigInt(r.fields[i]!))).data[0]!),
    ];
    const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, children }));
    rows = [];
    return batch;
  };
  for await (const l of lines(lp)) {
    rows.push(parseLine(l));
    if (rows.length === N) yield flush();
  }
  if (rows.length > 0) yield flush();
}

const parquetFile = (lp: string): Promise<string> =>
  derived(lp.replace(/\.lp$/, '.parquet'), async (tmp) => {
    const out = createWriteStream(tmp);
    for await (const bytes of await parquetStream(arrowBatches(lp)))
      if (!out.write(bytes)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
  });

/** influx -import's input: its DML header, then the line protocol. */
const influxFile = (lp: string): Promise<string> =>
  derived(lp.replace(/\.lp$/, '.influx-import'), async (tmp) => {
    const out = createWriteStream(tmp);
    out.write('# DML\n# CONTEXT-DATABASE: bench\n');
    for await (const chunk of createReadStream(lp))
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(() => r()));
  });

// ---- measuring ----

/** Runs a command to its end; wall seconds and its CPU seconds (sampled from /proc until it exits). */
function runTool(
  cmd: string,
  args: string[],
): Promise<{ seconds: number; cpu: number; status: number | null; out: string }> {
  const start = performance.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  let cpu = 0;
  const sample = setInterval(() => {
    try {
      cpu = cpuSeconds(child.pid!);
    } catch {
      // exited between samples
    }
  }, 50);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearInterval(sample);
      resolve({ seconds: (performance.now() - start) / 1000, cpu, status, out });
    }),
  );
}

async function sundialRun(name: string, args: string[], rows: number): Promise<Result> {
  return withFreshServer(join(RUN, 'sundial-data'), {}, async (server) => {
    const cpu0 = cpuSeconds(server.pid);
    let r: Awaited<ReturnType<typeof runTool>>;
    if (args[0] === 'loader') {
      const json = join(RUN, 'load.json');
      const url = `${server.url}/api/v1/write?db=public`;
      r = await runTool(process.execPath, loaderArgs(args[1]!, url, { auth: 'root:', json }));
      const res = JSON.parse(readFileSync(json, 'utf8')) as {
        rows: number;
        elapsedSeconds: number;
        failedRows?: number;
      };
      // The loader reads and cuts the whole file before its clock starts: its own time is the rate.
      return {
        name,
        rows: res.rows,
        seconds: res.elapsedSeconds,
        clientCpu: r.cpu,
        serverCpu: cpuSeconds(server.pid) - cpu0,
        peakRssMiB: peakRssMiB(server.pid),
        failed: res.failedRows ?? 0,
      };
    }
    r = await runTool(process.execPath, [MAIN, 'import', '--url', server.url, ...args]);
    if (r.status !== 0) console.error(`${name}: exit ${r.status}: ${r.out}`);
    const written = Number((/([\d,]+) rows written/.exec(r.out)?.[1] ?? '0').replaceAll(',', ''));
    return {
      name,
      rows: written,
      seconds: r.seconds,
      clientCpu: r.cpu,
      serverCpu: cpuSeconds(server.pid) - cpu0,
      peakRssMiB: peakRssMiB(server.pid),
      failed: rows - written,
    };
  });
}

/** NDJSON POSTed to the server's NDJSON route in 5000-line bodies over 2 connections (cut before the clock starts). */
async function ndjsonRoute(file: string, rows: number): Promise<Result> {
  return withFreshServer(join(RUN, 'sundial-data'), {}, async (server) => {
    const all = readFileSync(file);
    const bodies: Buffer[] = [];
    for (let at = 0, n = 0, start = 0; at < all.length; ) {
      const nl = all.indexOf(0x0a, at);
      at = nl < 0 ? all.length : nl + 1;
      if (++n === 5000 || at === all.length) {
        bodies.push(all.subarray(start, at));
        start = at;
        n = 0;
      }
    }
    const agent = new Agent({ keepAlive: true, maxSockets: 2 });
    const url = new URL(
      `/api/v1/es/_bulk?db=public&table=cpu&log_type=ndjson&time_column=time&tag_columns=${TAGS.join(',')}`,
      server.url,
    );
    const cpu0 = cpuSeconds(server.pid);
    const start = performance.now();
    let failed = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(
            url,
            {
              method: 'POST',
              agent,
              headers: {
                authorization: 'Basic cm9vdDo=',
                'content-type': 'application/x-ndjson',
                'content-length': String(body.length),
              },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            },
          );
          req.on('error', reject);
          req.end(body);
        });
        if (status !== 200) failed += 5000;
      }
    };
    await Promise.all([worker(), worker()]);
    agent.destroy();
    const seconds = (performance.now() - start) / 1000;
    return {
      name: 'Sundial, NDJSON POSTed to /api/v1/es/_bulk?log_type=ndjson',
      rows: rows - failed,
      seconds,
      clientCpu: NaN,
      serverCpu: cpuSeconds(server.pid) - cpu0,
      peakRssMiB: peakRssMiB(server.pid),
      failed,
    };
  });
}

/**
 * COPY INTO cpu FROM the CSV or Parquet file, one statement into a fresh server whose
 * storage.external_dir is the bench's directory: the server reads the whole file (the memory
 * limit raised for it) and stores it in one write. Timed from the statement to its answer.
 */
async function copyRun(name: string, file: string, type: 'CSV' | 'PARQUET', rows: number): Promise<Result> {
  const args = ['--external-dir', WORK, '--query-memory-bytes', String(8 * 2 ** 30)];
  return withFreshServer(join(RUN, 'sundial-data'), { args }, async (server) => {
    const fields = csvFieldNames(csvPath);
    const sql = async (statement: string): Promise<string> => {
      const r = await fetch(`${server.url}/api/v1/sql?db=public`, {
        method: 'POST',
        headers: { authorization: 'Basic cm9vdDo=', accept: 'application/csv' },
        body: statement,
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`${name}: ${r.status} ${text}`);
      return text;
    };
    await sql(`CREATE TABLE cpu (${fields.map((f) => `${f} BIGINT`).join(', ')}, TAGS(${TAGS.join(', ')}))`);
    const columns = ['time', ...TAGS, ...fields].join(', ');
    const cpu0 = cpuSeconds(server.pid);
    const start = performance.now();
    const answer = await sql(
      `COPY INTO cpu (${columns}) FROM '${file.slice(file.lastIndexOf('/') + 1)}' FILE_FORMAT = (TYPE = '${type}')`,
    );
    const seconds = (performance.now() - start) / 1000;
    const written = Number(/\d+/.exec(answer.split('\n')[1] ?? '')?.[0] ?? 0);
    return {
      name,
      rows: written,
      seconds,
      clientCpu: NaN,
      serverCpu: cpuSeconds(server.pid) - cpu0,
      peakRssMiB: peakRssMiB(server.pid),
      failed: rows - written,
    };
  });
}

function peer(
  which: 'influxdb' | 'vm',
  run: () => Promise<Omit<Result, 'serverCpu' | 'peakRssMiB'>>,
): Promise<Result | undefined> {
  const binary = which === 'influxdb' ? '/usr/bin/influxd' : '/usr/bin/victoria-metrics';
  if (!existsSync(binary)) {
    console.error(`${which}: ${binary} not installed; see ../shared/bench/PEERS.md`);
    return Promise.resolve(undefined);
  }
  execFileSync(join(SHARED, 'start-peers.sh'), ['--fresh', which], { stdio: 'inherit' });
  const pid = Number(readFileSync(`/tmp/peers/run/${which}.pid`, 'utf8'));
  const cpu0 = cpuSeconds(pid);
  return run()
    .then((r) => ({ ...r, serverCpu: cpuSeconds(pid) - cpu0, peakRssMiB: peakRssMiB(pid) }))
    .finally(() => execFileSync(join(SHARED, 'stop-peers.sh'), [which], { stdio: 'inherit' }));
}

async function influxImport(file: string, rows: number): Promise<Result | undefined> {
  if (!existsSync('/usr/bin/influx')) {
    console.error('influx -import: /usr/bin/influx not installed (apt-get install influxdb-client)');
    return undefined;
  }
  return peer('influxdb', async () => {
    const r = await runTool('/usr/bin/influx', [
      '-host',
      '127.0.0.1',
      '-port',
      '8086',
      '-import',
      '-path',
      file,
      '-precision',
      'ns',
    ]);
    const failed = Number(/(\d+) points were not inserted/.exec(r.out)?.[1] ?? (r.status === 0 ? 0 : rows));
    if (r.status !== 0) console.error(`influx -import: exit ${r.status}: ${r.out.slice(-500)}`);
    return {
      name: 'InfluxDB 1.6, influx -import (line protocol)',
      rows: rows - failed,
      seconds: r.seconds,
      clientCpu: r.cpu,
      failed,
    };
  });
}

async function vmImport(csv: string, rows: number): Promise<Result | undefined> {
  const format = [
    '1:time:unix_ns',
    ...TAGS.map((t, i) => `${i + 2}:label:${t}`),
    ...csvFieldNames(csv).map((f, i) => `${i + 12}:metric:${f}`),
  ].join(',');
  return peer('vm', async () => {
    const headerBytes = csvHeaderBytes(csv);
    const start = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `http://127.0.0.1:8428/api/v1/import/csv?format=${encodeURIComponent(format)}`,
        { method: 'POST', headers: { 'content-length': String(statSync(csv).size - headerBytes) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      const body = createReadStream(csv);
      let header = true;
      // VictoriaMetrics' CSV import takes no header row: it is cut from the stream.
      body.on('data', (chunk) => {
        let c = chunk as Buffer;
        if (header) {
          c = c.subarray(c.indexOf(0x0a) + 1);
          header = false;
        }
        if (!req.write(c)) {
          body.pause();
          req.once('drain', () => body.resume());
        }
      });
      body.on('end', () => req.end());
    });
    const seconds = (performance.now() - start) / 1000;
    return {
      name: 'VictoriaMetrics, /api/v1/import/csv (CSV)',
      rows: status === 204 ? rows : 0,
      seconds,
      clientCpu: NaN,
      failed: status === 204 ? 0 : rows,
    };
  });
}

function csvHead(csv: string): string {
  const fd = openSync(csv, 'r');
  const buf = Buffer.alloc(4096);
  const n = readSync(fd, buf, 0, buf.length, 0);
  closeSync(fd);
  return buf.subarray(0, n).toString('utf8').split('\n')[0]!;
}

function csvHeaderBytes(csv: string): number {
  return Buffer.byteLength(csvHead(csv)) + 1;
}

function csvFieldNames(csv: string): string[] {
  return csvHead(csv)
    .split(',')
    .slice(1 + TAGS.length);
}

async function main(): Promise<void> {
  mkdirSync(RUN, { recursive: true });
  try {
    const lp = cpuLpFile(WORK, opts.hosts!, opts.duration!, 'int');
    console.log('preparing CSV, Parquet and influx -import copies of', lp, '(once)');
    const [csv, parquet, influx] = [await csvFile(lp), await parquetFile(lp), await influxFile(lp)];
    const ndjson = opts.ndjson ? await ndjsonFile(lp) : undefined;
    csvPath = csv;
    const copyCsv = await copyCsvFile(lp);
    const rows = Number(execFileSync('wc', ['-l', lp], { encoding: 'utf8' }).trim().split(' ')[0]);
    const tagFlags = ['--table', 'cpu', '--tag-columns', TAGS.join(',')];
    const results: Result[] = [];
    for (let run = 1; run <= Number(opts.runs); run++) {
      results.push(await sundialRun("bench:ingest's loader (load-lp.mjs), line protocol", ['loader', lp], rows));
      results.push(await sundialRun('sundial import, line protocol', [lp], rows));
      results.push(await sundialRun('sundial import, CSV', [...tagFlags, csv], rows));
      results.push(await sundialRun('sundial import, Parquet', [...tagFlags, parquet], rows));
      results.push(await copyRun('COPY INTO from Parquet', parquet, 'PARQUET', rows));
      results.push(await copyRun('COPY INTO from CSV (RFC 3339 times)', copyCsv, 'CSV', rows));
      if (ndjson !== undefined) {
        results.push(await sundialRun('sundial import, NDJSON (converted on the client)', [...tagFlags, ndjson], rows));
        results.push(await ndjsonRoute(ndjson, rows));
      }
      for (const p of opts.peers === 'none' ? [] : opts.peers!.split(',')) {
        const r =
          p === 'influxdb' ? await influxImport(influx, rows) : p === 'vm' ? await vmImport(csv, rows) : undefined;
        if (r !== undefined) results.push(r);
      }
    }
    const n = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en') : '');
    const size = (f: string): string => `${(statSync(f).size / 2 ** 20).toFixed(0)} MiB`;
    console.log(
      `\nImport of ${rows.toLocaleString('en')} rows (line protocol ${size(lp)}, CSV ${size(csv)}, Parquet ${size(parquet)}), each into a fresh server, same run:\n`,
    );
    console.log(
      '| tool, format | rows/s | seconds | client CPU s | server CPU s | server peak RSS MiB | rows not stored |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const r of results)
      console.log(
        `| ${r.name} | ${n(r.rows / r.seconds)} | ${r.seconds.toFixed(1)} | ${r.clientCpu.toFixed(1).replace('NaN', '')} | ${r.serverCpu.toFixed(1)} | ${r.peakRssMiB.toFixed(0)} | ${n(r.failed)} |`,
      );
    const rate = (prefix: string): number => {
      const rs = results.filter((r) => r.name.startsWith(prefix));
      return rs.reduce((t, r) => t + r.rows / r.seconds, 0) / Math.max(1, rs.length);
    };
    const loader = rate("bench:ingest's loader");
    const lpImport = rate('sundial import, line protocol');
    console.log(
      `\nsundial import of line protocol: ${((lpImport / loader) * 100).toFixed(0)}% of the loader's rows/s (target: >= 90%)`,
    );
    const peers = Math.max(rate('InfluxDB'), rate('VictoriaMetrics'));
    for (const f of [
      'sundial import, line protocol',
      'sundial import, CSV',
      'sundial import, Parquet',
      'COPY INTO from Parquet',
      'COPY INTO from CSV',
    ]) {
      const own = rate(f);
      console.log(
        `${f}: ${n(own)} rows/s, ${peers > 0 ? `${(own / peers).toFixed(2)}x the faster peer's import (target: > 1)` : 'no peer run'}`,
      );
    }
  } finally {
    rmSync(RUN, { recursive: true, force: true });
  }
}

await main();
