// Parquet for `sundial import`, through hyparquet (the one Parquet library, which COPY INTO and
// external tables read with too: bench/RESULTS.md, "Parquet libraries"): the file read in slices
// of 64 Ki rows (its memory bounded by the slice, not the file), each column as hyparquet's array,
// written straight into the batch's bytes: integers as digits without a BigInt string, a repeated
// time's text reused, tag fragments cached as bytes. Parquet carries the column types, so only
// the time and tag columns need flags; "line" N in a report is row N of the file.

import {
  asyncBufferFromFile,
  type FileMetaData,
  parquetMetadataAsync,
  parquetRead,
  parquetSchema,
  type SchemaElement,
} from 'hyparquet';
import type { Batch } from './import-lines.js';
import { fieldOfValue, LineBuilder, LpBatcher, type TableShape } from './import-convert.js';
import { timeNs, type ColumnType } from './lp-text.js';
import { UsageError } from './usage.js';

const SLICE_ROWS = 65536;

/** Time values as raw counts of their unit (hyparquet's defaults would build Date objects). */
const PARSERS = {
  timestampFromMilliseconds: (v: bigint) => v,
  timestampFromMicroseconds: (v: bigint) => v,
  timestampFromNanoseconds: (v: bigint) => v,
};

type Kind = { column: ColumnType } | { time: bigint } | undefined;

/** What a Parquet column holds for line protocol: a field type, a time (ns per unit), or nothing importable. */
function kindOf(e: SchemaElement): Kind {
  const lt = e.logical_type;
  if (lt?.type === 'TIMESTAMP') return { time: lt.unit === 'MILLIS' ? 1_000_000n : lt.unit === 'MICROS' ? 1000n : 1n };
  if (e.converted_type === 'TIMESTAMP_MILLIS') return { time: 1_000_000n };
  if (e.converted_type === 'TIMESTAMP_MICROS') return { time: 1000n };
  if (e.converted_type === 'DATE' || lt?.type === 'DATE' || e.converted_type === 'DECIMAL' || lt?.type === 'DECIMAL')
    return undefined;
  switch (e.type) {
    case 'BOOLEAN':
      return { column: 'boolean' };
    case 'INT32':
      return { column: 'bigint' };
    case 'INT64':
      return {
        column: e.converted_type === 'UINT_64' || (lt?.type === 'INTEGER' && !lt.isSigned) ? 'unsigned' : 'bigint',
      };
    case 'INT96':
      return { time: 1n };
    case 'FLOAT':
    case 'DOUBLE':
      return { column: 'double' };
    case 'BYTE_ARRAY':
      return { column: 'string' };
    default:
      return undefined;
  }
}

function typeText(e: SchemaElement): string {
  return [e.type, e.converted_type, e.logical_type?.type].filter((x) => x !== undefined).join(' ');
}

interface Plan {
  time: { name: string; factor: bigint; text: boolean };
  tags: string[];
  fields: Array<{ name: string; type: ColumnType; first: Buffer; next: Buffer }>;
}

function planOf(metadata: FileMetaData, shape: TableShape, builder: LineBuilder, source: string): Plan {
  const columns = parquetSchema(metadata).children.map((c) => ({ e: c.element, flat: c.children.length === 0 }));
  const names = columns.map((c) => c.e.name);
  const timeColumn = columns.find((c) => c.e.name === shape.timeColumn);
  if (timeColumn === undefined)
    throw new UsageError(
      `${source} has no column '${shape.timeColumn}' (its columns: ${names.join(', ')}); name the time column with --time-column`,
    );
  const timeKind = timeColumn.flat ? kindOf(timeColumn.e) : undefined;
  let time: Plan['time'];
  if (timeKind !== undefined && 'time' in timeKind)
    time = { name: shape.timeColumn, factor: timeKind.time, text: false };
  else if (timeKind?.column === 'bigint') time = { name: shape.timeColumn, factor: shape.timeFactor, text: false };
  else if (timeKind?.column === 'string') time = { name: shape.timeColumn, factor: shape.timeFactor, text: true };
  else
    throw new UsageError(
      `${source}: time column '${shape.timeColumn}' is ${typeText(timeColumn.e)}, not a timestamp, an integer or a date-time string`,
    );
  for (const t of shape.tags)
    if (!names.includes(t))
      throw new UsageError(`${source} has no tag column '${t}' (its columns: ${names.join(', ')})`);
  const tags: string[] = [];
  const fields: Plan['fields'] = [];
  for (const { e, flat } of columns) {
    if (e.name === shape.timeColumn) continue;
    if (shape.tags.has(e.name)) {
      tags.push(e.name);
      continue;
    }
    const kind = flat ? kindOf(e) : undefined;
    const type = shape.types.get(e.name) ?? (kind !== undefined && 'column' in kind ? kind.column : undefined);
    if (type === undefined)
      throw new UsageError(
        `${source}: column '${e.name}' is ${flat ? typeText(e) : 'nested'}, which line protocol cannot hold; give it a type with --types`,
      );
    const key = builder.key(e.name);
    fields.push({ name: e.name, type, first: Buffer.from(`${key}=`), next: Buffer.from(`,${key}=`) });
  }
  return { time, tags, fields };
}

function rejectRow(batcher: LpBatcher, line: number, reason: string): void {
  batcher.cancel();
  batcher.reject(line, reason, `row ${line}`);
}

export async function* parquetBatches(
  path: string,
  shape: TableShape,
  o: { batchLines: number; maxBytes: number; onProgress: (fraction: number) => void },
): AsyncGenerator<Batch> {
  if (path === '-')
    throw new UsageError('Parquet cannot be read from stdin (its index is at the end of the file); give a file');
  const file = await asyncBufferFromFile(path);
  let metadata: FileMetaData;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (e) {
    throw new UsageError(`cannot read ${path} as Parquet: ${(e as Error).message ?? String(e)}`);
  }
  const batcher = new LpBatcher(o.batchLines, o.maxBytes);
  const builder = new LineBuilder(shape);
  const plan = planOf(metadata, shape, builder, path);
  const wanted = [plan.time.name, ...plan.tags, ...plan.fields.map((f) => f.name)];
  /** `,tag=value` as bytes by column and value (tag values repeat). */
  const fragments = plan.tags.map(() => new Map<unknown, Buffer | Error>());
  const prefix = Buffer.from(builder.prefix);
  const total = Number(metadata.num_rows);
  let lastTime: unknown;
  let lastTimeText = '';

  for (let sliceStart = 0; sliceStart < total; sliceStart += SLICE_ROWS) {
    const sliceEnd = Math.min(total, sliceStart + SLICE_ROWS);
    const n = sliceEnd - sliceStart;
    const data = new Map<string, ArrayLike<unknown>>();
    try {
      await parquetRead({
        file,
        metadata,
        columns: wanted,
        rowStart: sliceStart,
        rowEnd: sliceEnd,
        parsers: PARSERS,
        utf8: true,
        onChunk: (chunk) => {
          const values = chunk.columnData as ArrayLike<unknown>;
          // A chunk covering the slice exactly is used as it is; others (pages) are copied in.
          if (chunk.rowStart === sliceStart && chunk.rowEnd === sliceEnd) {
            data.set(chunk.columnName, values);
            return;
          }
          let out = data.get(chunk.columnName) as unknown[] | undefined;
          if (out === undefined) data.set(chunk.columnName, (out = new Array<unknown>(n).fill(null)));
          const from = Math.max(chunk.rowStart, sliceStart);
          const to = Math.min(chunk.rowEnd, sliceEnd);
          for (let r = from; r < to; r++) out[r - sliceStart] = values[r - chunk.rowStart];
        },
      });
    } catch (e) {
      throw new UsageError(`cannot read ${path} as Parquet: ${(e as Error).message ?? String(e)}`);
    }
    const column = (name: string): ArrayLike<unknown> => data.get(name) ?? new Array<unknown>(n).fill(null);
    const times = column(plan.time.name);
    const tagValues = plan.tags.map(column);
    const fieldValues = plan.fields.map((f) => column(f.name));

    for (let i = 0; i < n; i++) {
      const line = sliceStart + i + 1;
      // Time: a repeated value (rows of one instant) reuses its text.
      const t = times[i];
      if (t === null || t === undefined) {
        rejectRow(batcher, line, `no time value in '${shape.timeColumn}'`);
        continue;
      }
      if (t !== lastTime) {
        let ns: bigint | Error;
        if (typeof t === 'bigint') ns = t * plan.time.factor;
        else if (typeof t === 'number') ns = BigInt(t) * plan.time.factor;
        else ns = timeNs(String(t), plan.time.factor);
        if (ns instanceof Error) {
          rejectRow(batcher, line, ns.message);
          continue;
        }
        lastTime = t;
        lastTimeText = ns.toString();
      }
      batcher.begin();
      batcher.bytes(prefix, 0, prefix.length);
      let tagError: Error | undefined;
      for (let k = 0; k < tagValues.length; k++) {
        const v = tagValues[k]![i];
        if (v === null || v === undefined) continue;
        const cache = fragments[k]!;
        let f = cache.get(v);
        if (f === undefined) {
          const s = builder.tag(plan.tags[k]!, String(v));
          f = s instanceof Error ? s : Buffer.from(s);
          if (cache.size < 10_000) cache.set(v, f);
        }
        if (f instanceof Error) {
          // Reported after a bad field, as the line builder did.
          tagError = f;
          break;
        }
        batcher.bytes(f, 0, f.length);
      }
      batcher.byte(32);
      let any = false;
      let newlines = 0;
      let bad: Error | undefined;
      for (let k = 0; k < fieldValues.length; k++) {
        const v = fieldValues[k]![i];
        if (v === null || v === undefined) continue;
        const f = plan.fields[k]!;
        const sep = any ? f.next : f.first;
        batcher.bytes(sep, 0, sep.length);
        any = true;
        // The common values as digits; the rest (and every error) through fieldOfValue.
        if (f.type === 'bigint' || f.type === 'unsigned') {
          const suffix = f.type === 'bigint' ? 105 : 117;
          // Number() of a bigint beyond 2^53 rounds to an unsafe integer: those take the text path.
          const x = typeof v === 'bigint' ? Number(v) : v;
          if (typeof x === 'number' && Number.isSafeInteger(x) && (x >= 0 || f.type === 'bigint')) {
            batcher.int(x);
            batcher.byte(suffix);
            continue;
          }
        } else if (f.type === 'double' && typeof v === 'number' && Number.isFinite(v)) {
          batcher.text(String(v));
          continue;
        }
        const s = fieldOfValue(f.type, v);
        if (s instanceof Error) {
          bad = new Error(`column '${f.name}': ${s.message}`);
          break;
        }
        if (f.type === 'string') for (let at = s.indexOf('\n'); at >= 0; at = s.indexOf('\n', at + 1)) newlines++;
        batcher.text(s);
      }
      if (bad !== undefined || tagError !== undefined) {
        rejectRow(batcher, line, (bad ?? tagError)!.message);
        continue;
      }
      if (!any) {
        rejectRow(batcher, line, 'no field values (every field column is empty)');
        continue;
      }
      batcher.byte(32);
      batcher.text(lastTimeText);
      const b = batcher.end(line, newlines);
      if (b !== undefined) yield b;
    }
    o.onProgress(total > 0 ? sliceEnd / total : 0);
  }
  const last = batcher.flush();
  if (last !== undefined) yield last;
}
