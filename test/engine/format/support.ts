// Builds record batches from rows of JS values and renders them with a result writer.

import { vectorFrom, type RecordBatch, type Scalar, type Schema } from '../../../host/engine/types/batch.js';
import { createResultWriter, type ResultFormat } from '../../../host/engine/format/index.js';
import type { DataType } from '../../../host/engine/types/data-types.js';
import { mulberry32 } from '../../support/rng.js';

/** A seeded PRNG (mulberry32, test/support/rng.ts). */
export const prng = mulberry32;

export function schemaOf(columns: ReadonlyArray<readonly [string, DataType]>): Schema {
  return { fields: columns.map(([name, type]) => ({ name, type, nullable: true })) };
}

/** A batch of `rows` (row-major JS values, null for NULL) under `schema`. */
export function batchOf(schema: Schema, rows: readonly Scalar[][]): RecordBatch {
  const columns = schema.fields.map((f, c) => {
    const values = rows.map((r) => r[c] ?? null);
    const anyNull = values.some((v) => v === null);
    return vectorFrom(f.type, values, anyNull ? Uint8Array.from(values, (v) => (v === null ? 0 : 1)) : undefined);
  });
  return { schema, columns, length: rows.length };
}

const decoder = new TextDecoder();

/** The whole body a writer produces for `batches` (each write's bytes, then end's). */
export function render(format: ResultFormat, schema: Schema, batches: readonly RecordBatch[]): string {
  const w = createResultWriter(format, schema);
  const parts: Uint8Array[] = batches.map((b) => w.write(b));
  parts.push(w.end());
  return parts.map((p) => decoder.decode(p)).join('');
}

/** One column, one value per row, rendered. */
export function renderColumn(format: ResultFormat, type: DataType, values: readonly Scalar[], name = 'v'): string {
  const schema = schemaOf([[name, type]]);
  return render(format, schema, [
    batchOf(
      schema,
      values.map((v) => [v]),
    ),
  ]);
}
