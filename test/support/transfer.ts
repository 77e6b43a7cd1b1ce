// Data sets for the `sundial import` / `export` tests: one set of rows written in every import
// format, and the CSV the server must answer for it (SELECT ... ORDER BY time), built here from
// the rows by the contract's rules (nine-digit times, DOUBLE with a decimal point, RFC 4180
// quoting) rather than taken from the server.

import { spawn, spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { compress } from 'zstd-napi';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

export const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
/** The environment without SUNDIAL_* settings, which would change what the command reads. */
export const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function sundial(args: string[], input?: string | Buffer): Run {
  const r = spawnSync(BIN, args, {
    encoding: 'utf8',
    env: ENV,
    input: input ?? '',
    timeout: 120_000,
    maxBuffer: 64 << 20,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same as `sundial` without blocking the test's event loop. */
export function sundialAsync(args: string[]): Promise<Run> & { pid: number | undefined; kill(): void } {
  const child = spawn(BIN, args, { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const p = new Promise<Run>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  ) as Promise<Run> & { pid: number | undefined; kill(): void };
  p.pid = child.pid;
  p.kill = () => child.kill('SIGKILL');
  return p;
}

export interface Row {
  time: bigint;
  host: string;
  region: string;
  v: number;
  n: bigint;
  ok: boolean;
  s: string;
}

export const T0 = 1_700_000_000_000_000_000n;

/** `count` rows: tags with a space and a comma, a string with quotes and commas, exact int64s. */
export function rows(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    time: T0 + BigInt(i) * 1_000_000_007n,
    host: `h${i % 7}`,
    region: `us west,${i % 3}`,
    v: i * 0.5 + 0.25,
    n: BigInt(i) * 1_000_000_000_003n - 5_000_000n,
    ok: i % 2 === 0,
    s: `say "hi", ${i}`,
  }));
}

export function timeText(ns: bigint): string {
  const s = ns / 1_000_000_000n;
  return new Date(Number(s) * 1000).toISOString().slice(0, 19) + '.' + String(ns % 1_000_000_000n).padStart(9, '0');
}

function doubleText(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The CSV of `SELECT time, host, region, v, n, ok, s ... ORDER BY time`. */
export function expectedCsv(rs: Row[]): string {
  return (
    'time,host,region,v,n,ok,s\n' +
    rs
      .map(
        (r) =>
          [
            timeText(r.time),
            r.host,
            csvField(r.region),
            doubleText(r.v),
            String(r.n),
            String(r.ok),
            csvField(r.s),
          ].join(',') + '\n',
      )
      .join('')
  );
}

export const SELECT = (table: string): string => `SELECT time, host, region, v, n, ok, s FROM "${table}" ORDER BY time`;

const lpTag = (s: string): string => s.replace(/[,= ]/g, '\\$&');

export function lpOf(table: string, rs: Row[]): string {
  return rs
    .map(
      (r) =>
        `${table},host=${lpTag(r.host)},region=${lpTag(r.region)} v=${r.v},n=${r.n}i,ok=${r.ok},s="${r.s.replace(/["\\]/g, '\\$&')}" ${r.time}\n`,
    )
    .join('');
}

export function csvOf(rs: Row[]): string {
  return (
    'time,host,region,v,n,ok,s\n' +
    rs
      .map(
        (r) =>
          [
            timeText(r.time) + 'Z',
            r.host,
            csvField(r.region),
            doubleText(r.v),
            String(r.n),
            String(r.ok),
            csvField(r.s),
          ].join(',') + '\n',
      )
      .join('')
  );
}

export function ndjsonOf(rs: Row[]): string {
  // n written as a bare JSON number: beyond 2^53 for most rows, so its digits must survive.
  return rs
    .map(
      (r) =>
        `{"time":"${timeText(r.time)}Z","host":${JSON.stringify(r.host)},"region":${JSON.stringify(r.region)},"v":${doubleText(r.v)},"n":${r.n},"ok":${r.ok},"s":${JSON.stringify(r.s)}}\n`,
    )
    .join('');
}

export function parquetOf(rs: Row[]): Buffer {
  const writer = new ByteWriter();
  const pq = new ParquetWriter({
    writer,
    schema: [
      { name: 'root', num_children: 7 },
      {
        name: 'time',
        type: 'INT64',
        repetition_type: 'REQUIRED',
        logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' },
      },
      { name: 'host', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'region', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
      { name: 'v', type: 'DOUBLE', repetition_type: 'REQUIRED' },
      { name: 'n', type: 'INT64', repetition_type: 'REQUIRED' },
      { name: 'ok', type: 'BOOLEAN', repetition_type: 'REQUIRED' },
      { name: 's', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
    ],
  });
  pq.write({
    columnData: [
      { name: 'time', data: BigInt64Array.from(rs.map((r) => r.time)) },
      { name: 'host', data: rs.map((r) => r.host) },
      { name: 'region', data: rs.map((r) => r.region) },
      { name: 'v', data: Float64Array.from(rs.map((r) => r.v)) },
      { name: 'n', data: BigInt64Array.from(rs.map((r) => r.n)) },
      { name: 'ok', data: rs.map((r) => r.ok) },
      { name: 's', data: rs.map((r) => r.s) },
    ],
    rowGroupSize: 1000,
  });
  pq.finish();
  return Buffer.from(writer.getBuffer());
}

export const COMPRESSIONS = {
  plain: { ext: '', pack: (b: Buffer): Buffer => b },
  gzip: { ext: '.gz', pack: (b: Buffer): Buffer => gzipSync(b) },
  zstd: { ext: '.zst', pack: (b: Buffer): Buffer => compress(b) },
} as const;
