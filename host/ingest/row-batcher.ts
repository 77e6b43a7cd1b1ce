// Rows -> encoded write batches for the formats parsed in TypeScript. A thin layer over
// WriteBatchBuilder that starts a new batch every `maxRowsPerBatch` rows, so that one 160 MiB
// request does not become one giant batch (each batch is encoded in one buffer, and the builder
// keeps its rows as JS objects until then). The storage checks the schema across all batches of
// a request, so splitting changes nothing about what is accepted. Runtime-agnostic.

import { WriteBatchBuilder, type FieldInput } from '../core/write-batch-builder.js';

const DEFAULT_MAX_ROWS_PER_BATCH = 100_000;

export type { FieldInput };

export class RowBatcher {
  readonly #maxRows: number;
  #builder = new WriteBatchBuilder();
  readonly #done: Uint8Array[] = [];
  #rows = 0;

  constructor(maxRowsPerBatch = DEFAULT_MAX_ROWS_PER_BATCH) {
    this.#maxRows = Math.max(1, maxRowsPerBatch);
  }

  /** Rows added so far. */
  get rowCount(): number {
    return this.#rows;
  }

  /**
   * Adds one row; `ts` is already in the database precision. Throws UserError as
   * WriteBatchBuilder.addRow does (a type conflict within the request, a reserved name, a row
   * without fields), leaving the batcher unchanged. `tagsKey` as for WriteBatchBuilder.addRow.
   */
  add(table: string, tags: ReadonlyArray<readonly [string, string]>, ts: bigint, fields: readonly FieldInput[], tagsKey?: string): void {
    this.#builder.addRow(table, tags, ts, fields, tagsKey);
    this.#rows++;
    if (this.#builder.rowCount >= this.#maxRows) {
      this.#done.push(this.#builder.finish());
      this.#builder = new WriteBatchBuilder();
    }
  }

  /** The encoded batches, in row order. The batcher must not be used afterwards. */
  finish(): Uint8Array[] {
    if (this.#builder.rowCount > 0) this.#done.push(this.#builder.finish());
    return this.#done;
  }
}
