// `sundial export`: a table (optionally a time range) or a query's answer to a file or stdout, as
// CSV, NDJSON, line protocol or Parquet, streamed from one `POST /api/v1/sql?chunked=true` (the
// server sends batches as its plan produces them, in constant memory). CSV and NDJSON are the
// server's bytes as they come; line protocol and Parquet are built here from its Arrow IPC answer
// (export-writers.ts). A failure after the first byte (the server's error line, or an Arrow stream
// cut short) exits 1 and removes the partial file, so that a file left behind is whole.

import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { parseArgs } from 'node:util';
import type { RecordBatch } from 'apache-arrow';
import { EXIT_FAILURE } from '../node/exit-codes.js';
import {
  CONNECTION_OPTIONS,
  connectionOf,
  errorOf,
  NetworkError,
  postStream,
  routeUrl,
  type Connection,
} from './connection.js';
import { count, durationText, Progress } from './progress.js';
import { CommandError, UsageError } from './usage.js';

export const EXPORT_FORMATS = ['csv', 'ndjson', 'lp', 'parquet'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];
const EXTENSIONS: Record<string, ExportFormat> = {
  csv: 'csv',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  lp: 'lp',
  parquet: 'parquet',
};
const ACCEPT: Record<ExportFormat, string> = {
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
  lp: 'application/vnd.apache.arrow.stream',
  parquet: 'application/vnd.apache.arrow.stream',
};
const ERROR_LINE = /^\{"error_code":"\d+"/;

function quoteIdent(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"';
}

function quoteLiteral(s: string): string {
  return "'" + s.replaceAll("'", "''") + "'";
}

class ExportFailure extends Error {}

export async function exportCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      table: { type: 'string' },
      query: { type: 'string', short: 'q' },
      start: { type: 'string' },
      end: { type: 'string' },
      format: { type: 'string', short: 'F' },
      output: { type: 'string', short: 'o' },
      'tag-columns': { type: 'string' },
      'time-column': { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 1)
    throw new UsageError(`export takes one table, got ${positionals.length}; see sundial export --help`);
  // With --query, --table only names the lines of line protocol.
  const table = values.query === undefined ? (values.table ?? positionals[0]) : positionals[0];
  if ((table === undefined) === (values.query === undefined))
    throw new UsageError('give a table (sundial export TABLE) or --query, one of the two; see sundial export --help');
  if (values.query !== undefined && (values.start !== undefined || values.end !== undefined))
    throw new UsageError('--start and --end go with a table; put the range in the --query');
  const output = values.output === undefined || values.output === '-' ? undefined : values.output;
  let format: ExportFormat;
  if (values.format !== undefined) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(values.format))
      throw new UsageError(
        `unknown format '${values.format}' (want ${EXPORT_FORMATS.join(', ')}); see sundial export --help`,
      );
    format = values.format as ExportFormat;
  } else {
    const ext = output?.replace(/^.*\./, '').toLowerCase();
    format = (ext !== undefined && EXTENSIONS[ext]) || 'csv';
  }
  if (format === 'lp' && values.query !== undefined && values.table === undefined)
    throw new UsageError('line protocol of a --query needs --table, the table name to write in each line');
  const conn = connectionOf(values, env, 1);
  let sql: string;
  if (values.query !== undefined) sql = values.query;
  else {
    const where: string[] = [];
    if (values.start !== undefined) where.push(`time >= ${quoteLiteral(values.start)}`);
    if (values.end !== undefined) where.push(`time < ${quoteLiteral(values.end)}`);
    sql = `SELECT * FROM ${quoteIdent(table!)}${where.length > 0 ? ' WHERE ' + where.join(' AND ') : ''}`;
  }

  const progress = new Progress(process.stderr, output ?? 'stdout');
  const start = performance.now();
  // A connection cut between two Arrow messages can leave apache-arrow's reader waiting on a
  // stream that will never say more, and Node then exits 0 with the loop empty (one run in
  // three of the test's cut-off Parquet and line-protocol exports): that is a failure too.
  const drained = (): void => {
    progress.clear();
    if (output !== undefined) rmSync(output, { force: true });
    process.stderr.write("sundial: the server's answer broke off: the connection closed before its end\n");
    process.exitCode = EXIT_FAILURE;
  };
  process.once('beforeExit', drained);
  let out: WriteStream | NodeJS.WriteStream;
  try {
    let tags: Set<string>;
    if (format === 'lp') {
      tags = new Set(
        (values['tag-columns'] ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      );
      if (values['tag-columns'] === undefined && values.query === undefined) tags = await tagsOf(conn, table!);
    }
    const res = await query(conn, sql, ACCEPT[format]);
    out = output === undefined ? process.stdout : createWriteStream(output);
    const w = writer(out);
    const stats = { rows: 0, bytes: 0, skipped: 0 };
    try {
      if (format === 'csv' || format === 'ndjson') await passThrough(res, w, format === 'csv', stats, progress);
      else {
        // Loaded here: the Arrow and Parquet modules cost CSV and NDJSON exports their start-up.
        const { lpOfBatch, parquetStream } = await import('./export-writers.js');
        const batches = arrowBatches(res);
        if (format === 'lp') {
          for await (const batch of batches) {
            const lp = lpOfBatch(batch, values.table ?? table!, tags!, values['time-column'] ?? 'time');
            stats.rows += lp.rows;
            stats.skipped += lp.skipped;
            await w.write(lp.text);
            stats.bytes += Buffer.byteLength(lp.text);
            progress.update(stats.rows, stats.bytes);
          }
        } else {
          const counted = (async function* () {
            for await (const b of batches) {
              stats.rows += b.numRows;
              progress.update(stats.rows, stats.bytes);
              yield b;
            }
          })();
          for await (const bytes of await parquetStream(counted)) {
            await w.write(bytes);
            stats.bytes += bytes.length;
          }
        }
      }
      await w.end();
    } catch (e) {
      out.destroy?.();
      if (output !== undefined) rmSync(output, { force: true });
      throw e;
    }
    progress.clear();
    const s = (performance.now() - start) / 1000;
    const skipped =
      stats.skipped > 0
        ? `; ${count(stats.skipped)} rows without a field value or time left out (line protocol cannot hold them)`
        : '';
    process.stderr.write(
      `${output ?? 'stdout'}: ${count(stats.rows)} rows, ${count(stats.bytes)} bytes in ${durationText(s)} (${count(Math.round(stats.rows / Math.max(s, 0.001)))} rows/s)${skipped}\n`,
    );
  } catch (e) {
    progress.clear();
    if (e instanceof ExportFailure || e instanceof NetworkError) throw new CommandError(e.message, EXIT_FAILURE);
    throw e;
  } finally {
    process.off('beforeExit', drained);
    conn.agent.destroy();
  }
}

/** The tag columns of a table (DESCRIBE TABLE), for line protocol. */
async function tagsOf(conn: Connection, table: string): Promise<Set<string>> {
  const res = await query(conn, `DESCRIBE TABLE ${quoteIdent(table)}`, 'application/x-ndjson');
  let text = '';
  for await (const chunk of res) text += String(chunk);
  const tags = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const row = JSON.parse(line) as { column_name: string; column_type: string };
    if (row.column_type === 'TAG') tags.add(row.column_name);
  }
  return tags;
}

async function query(conn: Connection, sql: string, accept: string): Promise<IncomingMessage> {
  const res = await postStream(conn, routeUrl(conn, '/api/v1/sql', { chunked: 'true' }), sql, { accept });
  if (res.statusCode === 200) return res;
  const parts: Buffer[] = [];
  for await (const c of res) parts.push(c as Buffer);
  const { code, message } = errorOf({
    status: res.statusCode!,
    headers: res.headers,
    body: Buffer.concat(parts).toString('utf8'),
  });
  throw new ExportFailure(`${res.statusCode} ${code} ${message}`.replace('  ', ' '));
}

/** Writes with backpressure. */
function writer(out: NodeJS.WritableStream): { write(b: Uint8Array | string): Promise<void>; end(): Promise<void> } {
  let failed: Error | undefined;
  out.on('error', (e: Error) => (failed = e));
  return {
    async write(b) {
      if (failed !== undefined) throw new ExportFailure(`cannot write the output: ${failed.message}`);
      if (!out.write(b)) await new Promise<void>((resolve) => out.once('drain', resolve));
    },
    async end() {
      if (out === process.stdout) return;
      await new Promise<void>((resolve, reject) => {
        out.once('error', reject);
        out.end(resolve);
      });
    },
  };
}

/** CSV or NDJSON as the server sends them, holding back the last line to catch an error line. */
async function passThrough(
  res: IncomingMessage,
  w: ReturnType<typeof writer>,
  header: boolean,
  stats: { rows: number; bytes: number },
  progress: Progress,
): Promise<void> {
  let held = Buffer.alloc(0);
  let headerLeft = header;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    const buf = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    const cut = buf.lastIndexOf(0x0a, buf.length - 2) + 1; // keep the last whole line back
    const out = buf.subarray(0, cut);
    held = Buffer.from(buf.subarray(cut));
    if (out.length === 0) continue;
    let lines = 0;
    for (let at = out.indexOf(0x0a); at >= 0; at = out.indexOf(0x0a, at + 1)) lines++;
    if (headerLeft && lines > 0) {
      lines--;
      headerLeft = false;
    }
    stats.rows += lines;
    stats.bytes += out.length;
    await w.write(out);
    progress.update(stats.rows, stats.bytes);
  }
  const last = held.toString('utf8');
  if (ERROR_LINE.test(last)) {
    const e = JSON.parse(last.trim()) as { error_code: string; error_message: string };
    throw new ExportFailure(`the server failed after ${count(stats.rows)} rows: ${e.error_code} ${e.error_message}`);
  }
  if (held.length > 0) {
    if (!(headerLeft && header)) stats.rows++;
    stats.bytes += held.length;
    await w.write(held);
  }
}

/** The record batches of an Arrow IPC answer; a stream cut short (the server's failure) throws. */
async function* arrowBatches(res: IncomingMessage): AsyncGenerator<RecordBatch> {
  res.on('error', () => {}); // a cut is found below, by the reader or by res.complete
  const { RecordBatchReader } = await import('apache-arrow');
  let reader: Awaited<ReturnType<typeof RecordBatchReader.from>>;
  try {
    reader = await RecordBatchReader.from(res as AsyncIterable<Uint8Array>);
    await reader.open();
  } catch (e) {
    throw new ExportFailure(`cannot read the server's Arrow answer: ${(e as Error).message}`);
  }
  try {
    for await (const b of reader as AsyncIterable<RecordBatch>) yield b;
  } catch (e) {
    throw new ExportFailure(`the server's answer broke off: ${(e as Error).message}`);
  }
  // The reader may stop at the end-of-stream marker, or at a cut that fell between two
  // messages: only a response that arrived whole (its last chunk read) is complete. Waiting for
  // 'close' rather than finished(): a cut seen before this point made finished() resolve, some runs.
  res.resume();
  if (!res.closed) await new Promise((resolve) => res.once('close', resolve));
  if (!res.complete) throw new ExportFailure("the server's answer broke off: the connection closed before its end");
}
