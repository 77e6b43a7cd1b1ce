// Rows -> encoded write batches for the formats parsed in TypeScript. A thin layer over
// WriteBatchBuilder that starts a new batch every `maxRowsPerBatch` rows or past `maxBatchBytes`
// (about), so that one 160 MiB request does not become one giant batch (each batch is encoded in
// one buffer, and the builder keeps its rows as JS objects until then); and before a row whose
// new field columns would overfill the batch: the batch is dense, so one document of 5,000 keys
// after 100,000 narrow ones made a 2.7 MB NDJSON body an 8 GiB batch (6 GB of memory and 27 s
// before it failed). The storage checks the schema across all batches of a request, so splitting
// changes nothing about what is accepted. Runtime-agnostic.

import { WriteBatchBuilder, type FieldInput } from '../core/write-batch-builder.js';

const DEFAULT_MAX_ROWS_PER_BATCH = 100_000;
/** As the Wasm scanners' batches (log-scan.ts, line-protocol.ts). */
const DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024;

export type { FieldInput };

export class RowBatcher {
  readonly #maxRows: number;
  readonly #maxBytes: number;
  readonly #seriesKeys: boolean;
  #builder: WriteBatchBuilder;
  readonly #done: Uint8Array[] = [];
  #rows = 0;

  /** `seriesKeys` as for WriteBatchBuilder (false: every row's series is new, as a span's). */
  constructor({
    maxRowsPerBatch = DEFAULT_MAX_ROWS_PER_BATCH,
    maxBatchBytes = DEFAULT_MAX_BATCH_BYTES,
    seriesKeys = true,
  }: { maxRowsPerBatch?: number; maxBatchBytes?: number; seriesKeys?: boolean } = {}) {
    this.#maxRows = Math.max(1, maxRowsPerBatch);
    this.#maxBytes = Math.max(1, maxBatchBytes);
    this.#seriesKeys = seriesKeys;
    this.#builder = new WriteBatchBuilder({ seriesKeys });
  }

  /** Rows added so far. */
  get rowCount(): number {
    return this.#rows;
  }

  /**
   * Adds one row; `ts` is already in the database precision. Throws UserError as
   * WriteBatchBuilder.addRow does (a type conflict within the batch, a reserved name, a row
   * without fields), adding nothing (the batch before it may have been finished). `tagsKey` as
   * for WriteBatchBuilder.addRow.
   */
  add(
    table: string,
    tags: ReadonlyArray<readonly [string, string]>,
    ts: bigint,
    fields: readonly FieldInput[],
    tagsKey?: string,
  ): void {
    if (this.#builder.wouldOverfill(table, fields, this.#maxBytes)) this.#cut();
    this.#builder.addRow(table, tags, ts, fields, tagsKey);
    this.#rows++;
    if (this.#builder.rowCount >= this.#maxRows || this.#builder.projectedBytes >= this.#maxBytes) this.#cut();
  }

  #cut(): void {
    this.#done.push(this.#builder.finish());
    this.#builder = new WriteBatchBuilder({ seriesKeys: this.#seriesKeys });
  }

  /** The encoded batches, in row order. The batcher must not be used afterwards. */
  finish(): Uint8Array[] {
    if (this.#builder.rowCount > 0) this.#done.push(this.#builder.finish());
    return this.#done;
  }
}
