// `sundial sql --data-dir DIR`: statements run in this process through library mode (library.ts)
// rather than over HTTP, printed by the same result writers the SQL route uses, so that an answer
// reads the same either way. A refusal reads as the server's would: status, code, message.

import type { Writable } from 'node:stream';
import { UserError } from '../core/errors.js';
import { createResultWriter } from '../engine/format/index.js';
import { MemoryPool } from '../engine/memory/index.js';
import type { RecordBatch } from '../engine/types/index.js';
import { SETTINGS } from './config.js';
import { open, type Sundial } from './library.js';
import { copyAnswer, SqlClientError, type SqlSession, type SqlTarget } from './sql-client.js';

const TABLE_MEMORY_BYTES = SETTINGS.find((s) => s.key === 'limits.query_memory_bytes')!.default;

export class LocalSqlTarget implements SqlTarget {
  readonly #db: Sundial;

  private constructor(db: Sundial) {
    this.#db = db;
  }

  /** Opens `dataDir` (its lock: not while a server has it); SqlClientError when it cannot. */
  static async open(dataDir: string): Promise<LocalSqlTarget> {
    try {
      return new LocalSqlTarget(await open({ dataDir }));
    } catch (e) {
      throw new SqlClientError((e as Error).message);
    }
  }

  async run(sql: string, session: SqlSession, out: Writable, signal?: AbortSignal): Promise<void> {
    try {
      const result = await this.#db.query(sql, {
        tenant: session.tenant,
        database: session.database,
        ...(signal === undefined ? {} : { signal }),
      });
      if (result.fields.length === 0) {
        for await (const _ of result); // a statement without a result set: nothing to print, as over HTTP
        return;
      }
      // The text table holds every row for its widths: charged to a pool as big as a query's
      // (limits.query_memory_bytes), as the route charges it to the query's, so that a huge
      // answer fails with 010011 rather than exhaust the process.
      const writer = createResultWriter(session.format, { fields: result.fields }, new MemoryPool(TABLE_MEMORY_BYTES));
      await copyAnswer(formatted(result, writer), out);
    } catch (e) {
      if (e instanceof UserError)
        throw new SqlClientError(e.code === '010014' ? 'canceled' : `${e.status} ${e.code} ${e.message}`);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.#db.close();
  }
}

async function* formatted(
  batches: AsyncIterable<RecordBatch>,
  writer: { write(b: RecordBatch): Uint8Array; end(): Uint8Array },
): AsyncGenerator<Uint8Array> {
  for await (const b of batches) yield writer.write(b);
  yield writer.end();
}
