// Parquet for `sundial import`, through parquet-wasm (arrow-rs compiled to Wasm; it read the
// bench's file 2 to 4 times faster than hyparquet: bench/parquet-libs.ts): the file streamed as
// Arrow record batches of 64 Ki rows, each converted to line protocol. Parquet carries the column
// types, so only the time and tag columns need flags; "line" N in a report is row N of the file.

import { openAsBlob } from 'node:fs';
import { tableFromIPC, type RecordBatch } from 'apache-arrow';
import * as parquet from 'parquet-wasm';
import { getter, kindOf, type Getter } from './arrow-values.js';
import type { Batch } from './import-lines.js';
import { fieldOfValue, LineBuilder, LpBatcher, type TableShape } from './import-convert.js';
import { timeNs, type ColumnType } from './lp-text.js';
import { UsageError } from './usage.js';

const ARROW_BATCH_ROWS = 65536;

interface Plan {
  time: { at: number; factor: bigint };
  tags: Array<{ name: string; at: number }>;
  fields: Array<{ name: string; at: number; type: ColumnType }>;
}

function planOf(batch: RecordBatch, shape: TableShape, source: string): Plan {
  const names = batch.schema.fields.map((f) => f.name);
  const timeAt = names.indexOf(shape.timeColumn);
  if (timeAt < 0)
    throw new UsageError(
      `${source} has no column '${shape.timeColumn}' (its columns: ${names.join(', ')}); name the time column with --time-column`,
    );
  const timeKind = kindOf(batch.schema.fields[timeAt]!.type);
  let time: Plan['time'];
  if (timeKind !== undefined && 'time' in timeKind) time = { at: timeAt, factor: timeKind.time };
  else if (timeKind?.column === 'bigint') time = { at: timeAt, factor: shape.timeFactor };
  else if (timeKind?.column === 'string') time = { at: timeAt, factor: shape.timeFactor };
  else
    throw new UsageError(
      `${source}: time column '${shape.timeColumn}' is ${batch.schema.fields[timeAt]!.type}, not a timestamp, an integer or a date-time string`,
    );
  for (const t of shape.tags)
    if (!names.includes(t))
      throw new UsageError(`${source} has no tag column '${t}' (its columns: ${names.join(', ')})`);
  const tags: Plan['tags'] = [];
  const fields: Plan['fields'] = [];
  for (const [at, f] of batch.schema.fields.entries()) {
    if (at === timeAt) continue;
    if (shape.tags.has(f.name)) {
      tags.push({ name: f.name, at });
      continue;
    }
    const kind = kindOf(f.type);
    const given = shape.types.get(f.name);
    if (given !== undefined) {
      fields.push({ name: f.name, at, type: given });
      continue;
    }
    if (kind === undefined || 'time' in kind)
      throw new UsageError(
        `${source}: column '${f.name}' is ${f.type}, which line protocol cannot hold; give it a type with --types`,
      );
    fields.push({ name: f.name, at, type: kind.column });
  }
  return { time, tags, fields };
}

export async function* parquetBatches(
  path: string,
  shape: TableShape,
  o: { batchLines: number; maxBytes: number; onProgress: (fraction: number) => void },
): AsyncGenerator<Batch> {
  if (path === '-')
    throw new UsageError('Parquet cannot be read from stdin (its index is at the end of the file); give a file');
  let file: parquet.ParquetFile;
  try {
    file = await parquet.ParquetFile.fromFile(await openAsBlob(path));
  } catch (e) {
    throw new UsageError(`cannot read ${path} as Parquet: ${(e as Error).message ?? String(e)}`);
  }
  const batcher = new LpBatcher(o.batchLines, o.maxBytes);
  const builder = new LineBuilder(shape);
  let plan: Plan | undefined;
  let row = 0;
  const total = file.metadata().fileMetadata().numRows();
  const stream = await file.stream({ batchSize: ARROW_BATCH_ROWS });
  for await (const wasmBatch of stream as unknown as AsyncIterable<parquet.RecordBatch>) {
    const table = tableFromIPC(wasmBatch.intoIPCStream());
    for (const batch of table.batches) {
      plan ??= planOf(batch, shape, path);
      const time: Getter = getter(batch.getChildAt(plan.time.at)!);
      const tags = plan.tags.map((t) => ({ name: t.name, get: getter(batch.getChildAt(t.at)!) }));
      const fields = plan.fields.map((f) => ({ name: f.name, type: f.type, get: getter(batch.getChildAt(f.at)!) }));
      for (let i = 0; i < batch.numRows; i++) {
        row++;
        const b = convertRow(i, row);
        if (b !== undefined) yield b;
      }
      o.onProgress(total > 0 ? row / total : 0);

      function convertRow(i: number, line: number): Batch | undefined {
        const t = time(i);
        const text = (): string => `row ${line}`;
        let ns: bigint;
        if (t === null) {
          batcher.reject(line, `no time value in '${shape.timeColumn}'`, text());
          return undefined;
        } else if (typeof t === 'bigint') ns = t * plan!.time.factor;
        else if (typeof t === 'number') ns = BigInt(t) * plan!.time.factor;
        else {
          const parsed = timeNs(String(t), plan!.time.factor);
          if (parsed instanceof Error) {
            batcher.reject(line, parsed.message, text());
            return undefined;
          }
          ns = parsed;
        }
        const tagValues: Array<[string, string]> = [];
        for (const tag of tags) {
          const v = tag.get(i);
          if (v !== null) tagValues.push([tag.name, String(v)]);
        }
        const fieldValues: Array<[string, string]> = [];
        for (const f of fields) {
          const v = f.get(i);
          if (v === null) continue;
          const s = fieldOfValue(f.type, v);
          if (s instanceof Error) {
            batcher.reject(line, `column '${f.name}': ${s.message}`, text());
            return undefined;
          }
          fieldValues.push([f.name, s]);
        }
        const lp = builder.line(tagValues, fieldValues, ns);
        if (lp instanceof Error) {
          batcher.reject(line, lp.message, text());
          return undefined;
        }
        return batcher.add(line, lp);
      }
    }
  }
  const last = batcher.flush();
  if (last !== undefined) yield last;
}
