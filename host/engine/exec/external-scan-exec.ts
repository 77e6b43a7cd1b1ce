// The rows of an external table: every file its location names (listed when the query runs, so
// files added later are read), one file at a time, each cast to the table's declared types and
// sent in batches of BATCH_ROWS. Only the file being read is held (charged to the query's pool).

import { UserError } from '../../core/errors.js';
import type { ExternalTableInfo } from '../catalog.js';
import { externalFormat, readExternalFile } from '../external/read-file.js';
import { Reservation } from '../memory/index.js';
import { castVector, checkCast, type RecordBatch, type Schema, sliceBatch } from '../types/index.js';
import { BATCH_ROWS, describeNode, type ExecContext, type ExecNode } from './exec-plan.js';

export class ExternalScanExec implements ExecNode {
  readonly name = 'ExternalScanExec';
  readonly schema: Schema;
  readonly children: readonly ExecNode[] = [];
  readonly #table: ExternalTableInfo;

  constructor(table: ExternalTableInfo, schema: Schema) {
    this.#table = table;
    this.schema = schema;
  }

  describe(): string {
    return describeNode(this.name, `location=${this.#table.location}, file_type=${this.#table.fileType}`);
  }

  async *execute(ctx: ExecContext): AsyncGenerator<RecordBatch> {
    const files = ctx.files;
    if (files === undefined)
      throw new UserError(
        'externalLocation',
        `object store error: external table ${this.#table.name} needs storage.external_dir, which is not set on this server`,
      );
    const t = this.#table;
    const fields = t.columns.map((c) => ({ name: c.name, type: c.type, nullable: true }));
    for (const file of await files.list(t.location, t.connection)) {
      ctx.checkAbort();
      const held = new Reservation(ctx.memory, `ExternalScanExec ${t.name}`);
      try {
        const read = await readExternalFile(files, file, externalFormat(t), fields, ctx.memory, held);
        // Readers give the declared types already; Parquet's own may differ (INT32 read as BIGINT...).
        const columns = read.columns.map((v, k) => {
          const want = fields[k]!.type;
          if (v.type.id === want.id) return v;
          checkCast(v.type, want);
          return castVector(v, want);
        });
        const batch: RecordBatch = { schema: this.schema, columns, length: read.length };
        for (let at = 0; at < batch.length; at += BATCH_ROWS) {
          yield batch.length <= BATCH_ROWS ? batch : sliceBatch(batch, at, Math.min(at + BATCH_ROWS, batch.length));
          await ctx.maybeYield();
        }
      } finally {
        held.release();
      }
    }
  }
}
