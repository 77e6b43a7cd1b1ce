// Helpers operators share: collecting an input into one batch under the memory limit, cutting
// a big batch into output-sized ones, selecting rows by a boolean mask.

import {
  concatVectors,
  emptyBatch,
  type RecordBatch,
  type Schema,
  sliceBatch,
  takeVector,
  type Vector,
} from '../types/index.js';
import { batchBytes } from '../memory/index.js';
import { BATCH_ROWS, type ExecContext, type ExecNode } from './exec-plan.js';

/** Concatenates batches of one schema into one batch. */
export function concatBatches(schema: Schema, batches: readonly RecordBatch[]): RecordBatch {
  if (batches.length === 0) return emptyBatch(schema);
  if (batches.length === 1) return batches[0]!;
  let length = 0;
  for (const b of batches) length += b.length;
  const columns = schema.fields.map((f, i) =>
    concatVectors(
      f.type,
      batches.map((b) => b.columns[i]!),
    ),
  );
  return { schema, length, columns };
}

/**
 * Pulls every batch of `input`, reserving their bytes from the query's memory pool for `what`.
 * Returns the batches and the bytes reserved (the caller releases them when done).
 */
export async function collect(
  input: ExecNode,
  ctx: ExecContext,
  what: string,
): Promise<{ batches: RecordBatch[]; bytes: number }> {
  const batches: RecordBatch[] = [];
  let bytes = 0;
  try {
    for await (const b of input.execute(ctx)) {
      ctx.checkAbort();
      if (b.length === 0) continue;
      const n = batchBytes(b);
      ctx.memory.reserve(n, what);
      bytes += n;
      batches.push(b);
    }
  } catch (e) {
    ctx.memory.release(bytes);
    throw e;
  }
  return { batches, bytes };
}

/** Yields `batch` in slices of at most BATCH_ROWS rows. */
export function* slices(batch: RecordBatch, rows = BATCH_ROWS): Generator<RecordBatch> {
  for (let start = 0; start < batch.length; start += rows)
    yield sliceBatch(batch, start, Math.min(batch.length, start + rows));
}

/** The rows of a batch where `mask` is a valid TRUE; the batch itself when all are. */
export function filterBatch(batch: RecordBatch, mask: Vector): RecordBatch {
  const n = batch.length;
  const m = mask.values as Uint8Array | null;
  if (m === null) return { schema: batch.schema, length: 0, columns: batch.columns.map((c) => takeVector(c, [])) };
  const v = mask.validity;
  let count = 0;
  if (v === undefined) for (let i = 0; i < n; i++) count += m[i]!;
  else for (let i = 0; i < n; i++) count += m[i]! & v[i]!;
  if (count === n) return batch;
  const indices = new Int32Array(count);
  let k = 0;
  if (v === undefined) {
    for (let i = 0; i < n; i++) if (m[i] === 1) indices[k++] = i;
  } else {
    for (let i = 0; i < n; i++) if (m[i] === 1 && v[i] === 1) indices[k++] = i;
  }
  return { schema: batch.schema, length: count, columns: batch.columns.map((c) => takeVector(c, indices)) };
}

/** A batch with the given columns (the schema's lengths must agree). */
export function makeBatch(schema: Schema, columns: readonly Vector[], length: number): RecordBatch {
  return { schema, columns, length };
}
