// The storage engine's front: opens the catalog and every database's WAL (replaying it into the
// memtable), takes write batches durably, and serves scans. The only writer of catalog state.
//
// Data directory layout:
//   catalog.json            tenants, databases, tables, users (catalog-store.ts)
//   db/<id>/wal/*.wal       the WAL of database <id> (wal.ts)

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { UserError } from '../core/errors.js';
import { readWriteBatch, type WriteBatch } from '../core/write-batch.js';
import type { Catalog, DatabaseDef } from './catalog.js';
import { CatalogStore } from './catalog-store.js';
import { Memtable } from './memtable.js';
import type { ColumnData, FieldValues, SeriesData } from './series-data.js';
import { Wal } from './wal.js';
import { RecordType } from './wal-record.js';

export interface StorageOptions {
  dataDir: string;
  logger: Logger;
  /** Hash of root's password when the catalog is first created. */
  rootPasswordHash: string;
  memtableBytes: number;
  walSegmentBytes: number;
  walSync: boolean;
  /** The clock, in milliseconds since the epoch (tests substitute their own). */
  nowMs?: () => number;
}

/** The open state of one database. */
interface DatabaseState {
  def: DatabaseDef;
  wal: Wal;
  memtable: Memtable;
}

export interface ScanOptions {
  /** Inclusive bounds in the database precision. */
  minTs?: bigint;
  maxTs?: bigint;
}

export class Storage {
  readonly #opts: StorageOptions;
  readonly #store: CatalogStore;
  readonly #dbs = new Map<number, DatabaseState>();
  #closed = false;

  private constructor(opts: StorageOptions, store: CatalogStore) {
    this.#opts = opts;
    this.#store = store;
  }

  get catalog(): Catalog {
    return this.#store.catalog;
  }

  /**
   * Opens (or creates) the data directory and loads the catalog. Fast: call `recover` next to
   * replay the WALs (the server already answers 503 meanwhile).
   */
  static async open(opts: StorageOptions): Promise<Storage> {
    await mkdir(opts.dataDir, { recursive: true });
    await CatalogStore.cleanup(opts.dataDir);
    const store = await CatalogStore.open(opts.dataDir, { rootPasswordHash: opts.rootPasswordHash });
    return new Storage(opts, store);
  }

  /** Replays every database's WAL into its memtable. */
  async recover(): Promise<void> {
    for (const db of this.catalog.databases()) await this.#openDatabase(db);
    if (this.#store.dirty) await this.#store.save();
  }

  async #openDatabase(def: DatabaseDef): Promise<DatabaseState> {
    const memtable = new Memtable();
    const dir = join(this.#opts.dataDir, 'db', String(def.id), 'wal');
    let records = 0;
    let rows = 0;
    const wal = await Wal.open(
      { dir, segmentBytes: this.#opts.walSegmentBytes, sync: this.#opts.walSync, logger: this.#opts.logger },
      0,
      (lsn, type, payload) => {
        if (type !== RecordType.Write) {
          this.#opts.logger.warn({ db: def.name, lsn, type }, 'WAL: skipping a record of unknown type');
          return;
        }
        for (const batch of splitBatches(payload, `WAL record ${lsn} of database ${def.name}`)) {
          try {
            this.catalog.applyBatchSchema(def, batch.tables);
          } catch (e) {
            // Only possible if the schema changed after the write (e.g. a column dropped and
            // re-added with another type): that data was deleted with the old column.
            this.#opts.logger.warn({ db: def.name, lsn, err: e }, 'WAL: skipping a batch that conflicts with the current schema');
            continue;
          }
          memtable.apply(batch);
          rows += batch.rowCount;
        }
        records++;
      },
    );
    if (records > 0) this.#opts.logger.info({ db: def.name, records, rows }, 'WAL replayed');
    const state = { def, wal, memtable };
    this.#dbs.set(def.id, state);
    return state;
  }

  #state(db: DatabaseDef): DatabaseState {
    const s = this.#dbs.get(db.id);
    if (s === undefined) throw new UserError('databaseNotFound', `Database not found: "${db.name}"`);
    return s;
  }

  /** Bytes held by all memtables. */
  get memtableBytes(): number {
    let n = 0;
    for (const s of this.#dbs.values()) n += s.memtable.bytes;
    return n;
  }

  /** Throws 429 when the memtables are full (before a request's body is even read). */
  checkWriteCapacity(): void {
    if (this.memtableBytes >= this.#opts.memtableBytes) {
      throw new UserError('limitReached', `memtable full (${this.#opts.memtableBytes} bytes); retry later`, { retryAfterS: 1 });
    }
  }

  /**
   * Stores the encoded write batches of one request atomically: schema check (and creation of
   * missing tables and columns), one WAL record, memtable. Resolves once the record is durable.
   * On any error nothing of the request is stored.
   */
  async write(db: DatabaseDef, encoded: readonly Uint8Array[]): Promise<void> {
    if (this.#closed) throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
    const state = this.#state(db);
    this.checkWriteCapacity();
    const batches = encoded.map((b) => readWriteBatch(b));
    if (batches.every((b) => b.rowCount === 0)) return;
    this.#checkRetention(db, batches);
    if (this.catalog.applyBatchSchema(db, batches.flatMap((b) => b.tables))) {
      // The schema is also recoverable from the WAL, so this save need not block the write.
      this.#store.save().catch((err: unknown) => this.#opts.logger.error({ err }, 'saving the catalog failed'));
    }
    const { durable } = state.wal.append(RecordType.Write, encoded);
    for (const b of batches) state.memtable.apply(b);
    await durable;
  }

  #checkRetention(db: DatabaseDef, batches: readonly WriteBatch[]): void {
    const ttl = db.options.ttlMs;
    if (ttl === null) return;
    const unit = db.options.precision === 'MS' ? 1n : db.options.precision === 'US' ? 1000n : 1_000_000n;
    const cutoff = BigInt((this.#opts.nowMs ?? Date.now)() - ttl) * unit;
    for (const b of batches) {
      for (const t of b.tables) {
        for (const s of t.series) {
          if (s.minTs < cutoff) {
            throw new UserError('pointExpired', `a point of table '${t.name}' is older than the database TTL: create expired bucket`);
          }
        }
      }
    }
  }

  /** Every series of a table with rows sorted by time, restricted to [minTs, maxTs]. */
  scan(db: DatabaseDef, table: string, options: ScanOptions = {}): SeriesData[] {
    const t = this.#state(db).memtable.tables.get(table);
    if (t === undefined) return [];
    const out: SeriesData[] = [];
    for (const s of t.series.values()) {
      const snap = s.snapshot();
      out.push(sliceByTime(snap, options.minTs, options.maxTs));
    }
    return out.filter((s) => s.length > 0);
  }

  /** Flushes and closes every WAL and saves the catalog. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const s of this.#dbs.values()) await s.wal.close();
    await this.#store.save();
  }
}

/** Splits a WAL write payload into its batches (each declares its own length). */
function splitBatches(payload: Uint8Array, source: string): WriteBatch[] {
  const out: WriteBatch[] = [];
  let pos = 0;
  while (pos < payload.length) {
    const dv = new DataView(payload.buffer, payload.byteOffset + pos);
    const len = payload.length - pos >= 8 ? dv.getUint32(4, true) : 0;
    if (len < 16 || pos + len > payload.length) {
      out.push(readWriteBatch(payload.subarray(pos), source)); // throws the precise CorruptionError
      break;
    }
    out.push(readWriteBatch(payload.subarray(pos, pos + len), source));
    pos += len;
  }
  return out;
}

/** Restricts a sorted series to rows with minTs <= ts <= maxTs (shares the arrays). */
function sliceByTime(s: SeriesData, minTs?: bigint, maxTs?: bigint): SeriesData {
  if (minTs === undefined && maxTs === undefined) return s;
  let lo = 0;
  let hi = s.length;
  if (minTs !== undefined) lo = lowerBound(s.ts, s.length, minTs);
  if (maxTs !== undefined) hi = lowerBound(s.ts, s.length, maxTs + 1n);
  if (lo === 0 && hi === s.length) return s;
  const columns = new Map<string, ColumnData>();
  for (const [name, c] of s.columns) {
    const values: FieldValues = Array.isArray(c.values) ? c.values.slice(lo, hi) : c.values.subarray(lo, hi);
    columns.set(name, { type: c.type, values, validity: c.validity?.subarray(lo, hi) });
  }
  return { key: s.key, tags: s.tags, length: Math.max(0, hi - lo), ts: s.ts.subarray(lo, hi), columns };
}

function lowerBound(ts: BigInt64Array, n: number, v: bigint): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
