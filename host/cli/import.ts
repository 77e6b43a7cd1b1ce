// `sundial import FILE...|-`: line protocol, CSV, NDJSON, OpenTSDB text or Parquet into a server,
// each input streamed (gzip and zstd by their magic bytes) and cut into batches that are sent
// `--concurrency` at a time (import-send.ts); refused lines are reported with their input line and
// the server's reason, and `--resume` skips what an interrupted run had acknowledged
// (import-state.ts). Line protocol and OpenTSDB go to the server as they are; the other formats are
// converted on the client (import-convert.ts). Summary on stderr; exit 3 when lines were rejected.
// Parquet's module (hyparquet) loads only for a Parquet file.

import { appendFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXIT_FAILURE, EXIT_REJECTED } from '../node/exit-codes.js';
import { CONNECTION_OPTIONS, connectionOf, routeUrl, type Connection } from './connection.js';
import type { TableShape } from './import-convert.js';
import { csvBatches } from './import-csv.js';
import { baseName, inputChunks } from './import-input.js';
import { lineBatches, type Batch, type Rejection } from './import-lines.js';
import { ndjsonBatches } from './import-ndjson.js';
import { FatalImportError, Sender } from './import-send.js';
import { ImportState } from './import-state.js';
import { isColumnType, PRECISION_NS, type ColumnType } from './lp-text.js';
import { count, durationText, Progress } from './progress.js';
import { CommandError, UsageError } from './usage.js';

export const IMPORT_FORMATS = ['lp', 'csv', 'ndjson', 'opentsdb', 'parquet'] as const;
type ImportFormat = (typeof IMPORT_FORMATS)[number];

const EXTENSIONS: Record<string, ImportFormat> = {
  lp: 'lp',
  line: 'lp',
  influx: 'lp',
  txt: 'lp',
  csv: 'csv',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
  json: 'ndjson',
  tsdb: 'opentsdb',
  opentsdb: 'opentsdb',
  parquet: 'parquet',
  pq: 'parquet',
};

/** Request bodies stay well under the server's 160 MiB write limit, and a batch's memory small. */
const MAX_BATCH_BYTES = 8 << 20;
/** Rejected lines printed on stderr; all of them go to --errors. */
const SHOWN_REJECTIONS = 10;

function formatOf(path: string, given: string | undefined): ImportFormat {
  if (given !== undefined) {
    if (!(IMPORT_FORMATS as readonly string[]).includes(given))
      throw new UsageError(`unknown format '${given}' (want ${IMPORT_FORMATS.join(', ')}); see sundial import --help`);
    return given as ImportFormat;
  }
  if (path === '-') return 'lp';
  const name = baseName(path);
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  const f = EXTENSIONS[ext];
  if (f === undefined)
    throw new UsageError(
      `cannot tell the format of ${path} from its name; give --format (${IMPORT_FORMATS.join(', ')})`,
    );
  return f;
}

function positiveInt(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} wants a positive integer, got '${v}'`);
  return n;
}

function typesOf(spec: string | undefined): Map<string, ColumnType> {
  const types = new Map<string, ColumnType>();
  if (spec === undefined) return types;
  for (const part of spec.split(',')) {
    const at = part.lastIndexOf(':');
    const name = part.slice(0, at).trim();
    const type = part
      .slice(at + 1)
      .trim()
      .toLowerCase();
    if (at <= 0 || !isColumnType(type))
      throw new UsageError(
        `--types wants column:type pairs (types: double, bigint, unsigned, boolean, string), got '${part}'`,
      );
    types.set(name, type);
  }
  return types;
}

interface Totals {
  written: number;
  rejected: number;
}

export async function importCommand(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...CONNECTION_OPTIONS,
      format: { type: 'string', short: 'F' },
      precision: { type: 'string', short: 'p' },
      table: { type: 'string' },
      'time-column': { type: 'string' },
      'tag-columns': { type: 'string' },
      types: { type: 'string' },
      delimiter: { type: 'string' },
      'batch-size': { type: 'string' },
      concurrency: { type: 'string', short: 'c' },
      resume: { type: 'boolean' },
      state: { type: 'string' },
      errors: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length === 0)
    throw new UsageError('give the files to import (- for stdin); see sundial import --help');
  if (positionals.filter((p) => p === '-').length > 1) throw new UsageError('stdin (-) can be imported once');
  if (values.state !== undefined && positionals.length > 1)
    throw new UsageError('--state names the state of one input; give one file');
  const precision = (values.precision ?? 'ns').toLowerCase();
  if (!(precision in PRECISION_NS))
    throw new UsageError(`--precision wants ns, us, ms or s, got '${values.precision}'`);
  const delimiter = values.delimiter ?? ',';
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n')
    throw new UsageError(`--delimiter wants one character (not a quote or line feed), got '${delimiter}'`);
  const concurrency = positiveInt('concurrency', values.concurrency, 2);
  const batchLines = positiveInt('batch-size', values['batch-size'], 5000);
  const formats = positionals.map((p) => formatOf(p, values.format));
  const types = typesOf(values.types);
  const tags = new Set(
    (values['tag-columns'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  const conn = connectionOf(values, env, concurrency);
  if (values.errors !== undefined && values.resume !== true) writeFileSync(values.errors, '');

  const totals: Totals = { written: 0, rejected: 0 };
  try {
    for (const [i, path] of positionals.entries()) {
      const format = formats[i]!;
      const shape: TableShape = {
        table: values.table ?? baseName(path).replace(/\.[^.]*$/, ''),
        timeColumn: values['time-column'] ?? 'time',
        tags,
        types,
        timeFactor: PRECISION_NS[precision]!,
      };
      if (shape.table === '' && (format === 'csv' || format === 'ndjson' || format === 'parquet'))
        throw new UsageError(`name the table of ${path} with --table`);
      const optionsKey = JSON.stringify({
        format,
        batchLines,
        precision,
        delimiter,
        shape: { ...shape, tags: [...tags], types: [...types], timeFactor: undefined },
      });
      const statePath = values.state ?? (path === '-' ? undefined : `${path}.sundial-import`);
      if (values.resume === true && statePath === undefined)
        throw new UsageError('--resume of stdin needs --state FILE');
      const state = ImportState.open(statePath, path, optionsKey, values.resume === true);
      await importOne(
        conn,
        path,
        format,
        shape,
        {
          batchLines,
          concurrency,
          precision,
          precisionGiven: values.precision !== undefined,
          delimiter,
          errors: values.errors,
        },
        state,
        totals,
      );
    }
  } catch (e) {
    if (e instanceof FatalImportError) throw new CommandError(e.message, EXIT_FAILURE);
    if (e instanceof CommandError) throw e;
    if (e instanceof Error && (e as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(e.message);
    throw new CommandError((e as Error).message, EXIT_FAILURE);
  } finally {
    conn.agent.destroy();
  }
  if (totals.rejected > 0)
    throw new CommandError(
      `${count(totals.rejected)} lines rejected${values.errors === undefined ? '' : ` (listed in ${values.errors})`}`,
      EXIT_REJECTED,
    );
}

interface RunOptions {
  batchLines: number;
  concurrency: number;
  precision: string;
  precisionGiven: boolean;
  delimiter: string;
  errors: string | undefined;
}

async function importOne(
  conn: Connection,
  path: string,
  format: ImportFormat,
  shape: TableShape,
  o: RunOptions,
  state: ImportState,
  totals: Totals,
): Promise<void> {
  const name = path === '-' ? 'stdin' : path;
  const size = path === '-' ? undefined : statSync(path).size;
  const progress = new Progress(process.stderr, name);
  const start = performance.now();
  let bytes = 0;
  let written = 0;
  let skipped = 0;
  let shown = 0;

  const report = (rs: Rejection[]): void => {
    if (rs.length === 0) return;
    if (o.errors !== undefined)
      appendFileSync(
        o.errors,
        rs.map((r) => JSON.stringify({ file: name, line: r.line, error: r.reason, text: r.text }) + '\n').join(''),
      );
    for (const r of rs) {
      if (shown++ >= SHOWN_REJECTIONS) continue;
      progress.clear();
      process.stderr.write(`${name}:${r.line}: ${r.reason}\n`);
    }
  };
  let rejectedCount = 0;
  const path_ = format === 'opentsdb' ? '/api/v1/opentsdb/write' : '/api/v1/write';
  // OpenTSDB without --precision keeps OpenTSDB's rule (10 digits seconds, 13 milliseconds).
  const precision =
    format === 'lp' || (format === 'opentsdb' && o.precisionGiven)
      ? o.precision
      : format === 'opentsdb'
        ? undefined
        : 'ns';
  const url = routeUrl(conn, path_, precision === undefined ? {} : { precision });
  const sender = new Sender(conn, url, o.concurrency, (batch, r) => {
    written += r.written;
    rejectedCount += r.rejected.length;
    report(r.rejected);
    state.ack(batch.seq, r.written, r.rejected.length);
    progress.update(written + skipped, bytes, size);
  });

  const chunks = format === 'parquet' ? undefined : inputChunks(path, (n) => (bytes += n));
  const source: AsyncGenerator<Batch> =
    format === 'lp' || format === 'opentsdb'
      ? lineBatches(chunks!, o.batchLines, MAX_BATCH_BYTES)
      : format === 'csv'
        ? csvBatches(chunks!, shape, {
            delimiter: o.delimiter,
            batchLines: o.batchLines,
            maxBytes: MAX_BATCH_BYTES,
            source: name,
          })
        : format === 'ndjson'
          ? ndjsonBatches(chunks!, shape, { batchLines: o.batchLines, maxBytes: MAX_BATCH_BYTES })
          : (await import('./import-parquet.js')).parquetBatches(path, shape, {
              batchLines: o.batchLines,
              maxBytes: MAX_BATCH_BYTES,
              onProgress: (done) => (bytes = Math.round((size ?? 0) * done)),
            });

  for await (const batch of source) {
    if (state.done(batch.seq)) {
      skipped += batch.rows;
      continue;
    }
    await sender.submit(batch);
  }
  await sender.drain();
  state.remove();
  progress.clear();

  const s = (performance.now() - start) / 1000;
  const earlier =
    state.earlier.written > 0 || state.earlier.rejected > 0
      ? ` (and ${count(state.earlier.written)} rows, ${count(state.earlier.rejected)} rejected lines in the interrupted run)`
      : '';
  process.stderr.write(
    `${name}: ${count(written)} rows written, ${count(rejectedCount)} lines rejected in ${durationText(s)} (${count(Math.round(written / Math.max(s, 0.001)))} rows/s)${earlier}\n`,
  );
  if (rejectedCount > shown && shown >= SHOWN_REJECTIONS)
    process.stderr.write(
      `${name}: ${count(rejectedCount - SHOWN_REJECTIONS)} more rejected lines not shown${o.errors === undefined ? ' (list them with --errors FILE)' : ''}\n`,
    );
  totals.written += written;
  totals.rejected += rejectedCount;
}
