// The storage engine's front: the catalog (and its DDL), every database's store (WAL, memtables,
// segment files), durable writes and deletes, scans, and the background work that keeps memory
// and disk in shape: flush by size and age, compaction, retention. The only writer of catalog state.
//
// Data directory layout:
//   catalog.json            tenants, databases, tables, users (meta/catalog-store.ts)
//   db/<id>/                one database (database.ts): manifest.json, seg/, wal/
//   LOCK                    the opener's pid (fs/dir-lock.ts), taken by node/ before this opens
//
// DDL against the WAL (FORMAT.md §6): every DDL saves the catalog before it resolves; writes are
// logged with the table and column ids they resolved to, and deletes as WAL records, so replay
// after a crash applies old records to the right columns, never to dropped or renamed ones. A DDL
// whose save fails is reverted (#changeSchema); a write's new tables and columns are taken back
// when its record fails (provisional-schema.ts): what failed is in neither memory nor catalog.json.

import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { bug, CorruptionError, UserError } from '../core/errors.js';
import { NO_METRICS, type Metrics } from '../core/metrics.js';
import type { StoredFileProblem } from '../core/check.js';
import type {
  DeleteRequest,
  LastRequest,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
  LastValue,
} from '../core/scan.js';
import {
  bounds,
  type Bounds,
  lastValues,
  listSeries,
  type ReadView,
  scanTable,
  scanTableStats,
  type SeriesInfo,
  seriesByPostings,
  seriesWithTags,
  tableRuns,
} from './read/index.js';
import type { SeriesRows } from './series/index.js';
import type { DatabaseOptions, NewTable, TableChange } from '../core/schema.js';
import { readWriteBatch, ValueType, type WriteBatch } from '../core/write-batch.js';
import {
  BlockCache,
  type CachedBlock,
  type ColumnCodecs,
  loadManifest,
  partitionOverflows,
  retentionCutoff,
  MemorySegmentStore,
  nodeSegmentStore,
  type SegmentSlot,
  type SegmentStore,
  vnodeUnits,
} from './segment/index.js';
import {
  alterDatabaseDef,
  alterTableDef,
  type Catalog,
  CatalogStore,
  checkDatabaseLimits,
  type ColumnDef,
  completeDrop,
  createDatabaseDef,
  createTableDef,
  type DatabaseDef,
  dropAfterMs,
  dropDatabaseDef,
  type DropKind,
  dropTableDef,
  dropTenantDef,
  dueDrops,
  findPendingDrop,
  isLive,
  type PendingDrop,
  recordResource,
  recoverDrop,
  requireTable,
  resourceName,
  scheduleDrop,
  stampsOf,
  type TableDef,
  CatalogConflict,
  lacksSchema,
  type SharedCatalogFile,
} from '../meta/index.js';
import { type CatalogShape, catalogShape, shapeChanges } from './catalog-shape.js';
import { catalogFile, memoryCatalogFile } from './catalog-file.js';
import { type Checkpoint, takeCheckpoint } from './checkpoint.js';
import { compact, type CompactionThreadOptions, Compactor, planCompaction } from './compaction/index.js';
import { type DatabaseEnv, DatabaseStore } from './database.js';
import { exportChunks, type ExportRange } from './export.js';
import { type Forget, ProvisionalSchema } from './provisional-schema.js';
import { databaseNotFound } from '../core/meta-errors.js';
import {
  DIR_MODE,
  type FaultCounts,
  FILE_MODE,
  isNoSpace,
  NO_SPACE_MESSAGE,
  NO_SPACE_RETRY_S,
  Quarantine,
} from './fs/index.js';
import { MemoryWalFiles, nodeWalFiles, WalFailure, type WalFiles } from './wal/index.js';
import { ObjectSegmentStore, type ObjectStoreOptions } from './objstore/index.js';
import { deleteOrphanStream, JetStreamLink, JetStreamWal, refuseFileWal } from './jetstream/index.js';

export interface StorageOptions {
  dataDir: string;
  logger: Logger;
  /** Hash of root's password when the catalog is first created. */
  rootPasswordHash: string;
  /** SCRAM-SHA-256 verifier of the same password (meta/scram.ts; '' or absent: none). */
  rootScramVerifier?: string;
  /** Memory of all memtables (active and being flushed) before writes get 429. */
  memtableBytes: number;
  walSegmentBytes: number;
  walSync: boolean;
  /** A database's active memtable is flushed once it holds this much (or when all memtables reach memtableBytes). */
  flushBytes?: number;
  /** ... or once its oldest row is this old. */
  flushAgeMs?: number;
  /** Files of one level merged at once. */
  compactionFanIn?: number;
  /**
   * Write compaction files on a thread of their own (compactor.ts), which instantiates the core's
   * compiled module `wasm` (Core.module); `script` is the worker's module (tests running the
   * TypeScript sources point it at dist/). Default: on this thread.
   */
  compactionThread?: CompactionThreadOptions;
  /**
   * Where segment files and manifests live (segment-store.ts); default the file system under
   * dataDir. The compaction thread opens files through the file system, so it needs the default.
   */
  segmentStore?: SegmentStore;
  /** Decoded blocks kept in memory. */
  blockCacheBytes?: number;
  /** Decoded index blocks and postings of v4 segment files kept in memory (storage.index_cache_bytes). */
  indexCacheBytes?: number;
  /**
   * How reads with tag hints find their series: `auto` (default) through the postings of v4
   * segment files once they hold POSTINGS_MIN_SERIES series of the table, else from the table's
   * series list; `postings` always; `scan` never (the reference path, kept for tests).
   */
  seriesIndex?: 'auto' | 'postings' | 'scan';
  /** How often the background work runs; 0 = only when `maintain` is called (tests). */
  maintenanceIntervalMs?: number;
  /** The column codecs (`storageCodecs` in codecs.ts): whoever reads a directory must use the ones that wrote it. */
  codecs: ColumnCodecs;
  /** The clock, in milliseconds since the epoch (tests substitute their own). */
  nowMs?: () => number;
  /**
   * Reads leave out segment files known to be damaged (and say so through their `skipped`
   * callback) instead of failing when they need them (storage.skip_damaged_segments).
   */
  skipDamagedSegments?: boolean;
  /** Told of WAL group commits, flushes, compactions and skipped files (/metrics); default none. */
  metrics?: Metrics;
  /**
   * Keep segment files in an S3 bucket, the local disk caching them (storage.object_store,
   * objstore/object-segment-store.ts); takes the place of `segmentStore`, and compactions run on
   * the storage's thread (the compaction thread reads files from the file system).
   */
  objectStore?: Omit<ObjectStoreOptions, 'dataDir' | 'logger' | 'metrics'>;
  /**
   * Keep the WALs in NATS JetStream (`server.cluster.nats_urls`; jetstream/): a stream per
   * database with `vnodes` subjects. Off: a WAL of segment files per database in the data directory.
   */
  jetStream?: { urls: readonly string[]; replicas: number; vnodes: number; prefix?: string; timeoutMs?: number };
  /**
   * Keeps the catalog, the WALs and the segment files in memory (library mode's in-memory store):
   * nothing is read from or written to `dataDir`, which only names the store in messages, and
   * nothing survives `close`. The format and the write path stay the ones on disk.
   */
  memory?: boolean;
  /**
   * The catalog shared by the nodes of a cluster (server.cluster, node/etcd-catalog.ts) in place
   * of catalog.json: DDL and DCL are compare-and-puts on it, retried after adopting what another
   * node changed, and other nodes' changes are adopted as they come (docs/cluster.md).
   */
  sharedCatalog?: SharedCatalogFile;
}

/** Told the names (relative to the data directory) of the damaged segment files a read left out. */
export type SkippedFiles = (files: readonly string[]) => void;

/** Compactions are retried after a failure no sooner than this, doubling up to 30 s. */
const COMPACTION_BACKOFF_MIN_MS = 1000;
const COMPACTION_BACKOFF_MAX_MS = 30_000;
/** compactAll gives up after this many failures in a row. */
const COMPACT_ALL_ATTEMPTS = 3;
/**
 * A DDL that keeps losing the race for the shared catalog gives up with 503 after this many tries
 * (each loser adopts the winner's change first, so it takes this many other changes in a row).
 */
const SHARED_CATALOG_ATTEMPTS = 20;

/** The storage's state as ping reports it: healthy, or degraded with the reasons. */
export interface StorageHealth {
  status: 'healthy' | 'degraded';
  reasons: string[];
}

export const STORAGE_DEFAULTS = {
  flushBytes: 32 * 1024 * 1024,
  flushAgeMs: 10 * 60_000,
  compactionFanIn: 4,
  blockCacheBytes: 64 * 1024 * 1024,
  indexCacheBytes: 64 * 1024 * 1024,
  maintenanceIntervalMs: 1000,
};

/**
 * With fewer series in a table's v4 files, `auto` reads with tag hints use the series list
 * (kept between queries, with an index of each hinted tag: series-list.ts); from here on the
 * postings, which keep nothing per series in the heap.
 */
const POSTINGS_MIN_SERIES = 4096;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

export class Storage {
  readonly #opts: StorageOptions;
  readonly #store: CatalogStore;
  readonly #dbs = new Map<number, DatabaseStore>();
  readonly #cache: BlockCache<CachedBlock>;
  readonly #indexCache: BlockCache<CachedBlock>;
  /** How reads with tag hints find their series (StorageOptions.seriesIndex; tests switch it between reads). */
  seriesIndex: 'auto' | 'postings' | 'scan';
  readonly #codecs: ColumnCodecs;
  readonly #nowMs: () => number;
  /** The highest catalog id as loaded from disk (wal-replay.ts). */
  readonly #watermark: number;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #maintaining: Promise<void> | undefined;
  #compaction: Promise<void> | undefined;
  #compactingDb: DatabaseStore | undefined;
  readonly #compactor: Compactor | undefined;
  readonly #quarantine: Quarantine;
  readonly #segmentStore: SegmentStore;
  readonly #walFiles: WalFiles;
  /** The last compaction's error while compactions fail, and when the next may start. */
  #compactionFailure: Error | undefined;
  #compactionFailures = 0;
  #compactionRetryAtMs = 0;
  #compactionBackoffMs = 0;
  readonly #objectStore: ObjectSegmentStore | undefined;
  /** The connection of the JetStream WALs, when they are on (StorageOptions.jetStream). */
  readonly #jetStream: JetStreamLink | undefined;
  /** Tables and columns made by writes whose WAL record is not durable yet (provisional-schema.ts). */
  readonly #provisional = new ProvisionalSchema();
  /** Set while a DDL changes and saves the catalog (#changeSchema); writes wait for it before touching the schema. */
  #schemaChange: Promise<void> | undefined;
  /** The adoption of other nodes' catalog changes in progress (a shared catalog: #pullRemote). */
  #pulling: Promise<void> = Promise.resolve();
  #pullAgain = false;

  private constructor(
    opts: StorageOptions,
    store: CatalogStore,
    objectStore: ObjectSegmentStore | undefined,
    jetStream?: JetStreamLink,
  ) {
    this.#objectStore = objectStore;
    this.#jetStream = jetStream;
    if (objectStore !== undefined) opts = { ...opts, segmentStore: objectStore, compactionThread: undefined };
    this.#opts = opts;
    this.#store = store;
    this.#cache = new BlockCache(opts.blockCacheBytes ?? STORAGE_DEFAULTS.blockCacheBytes);
    this.#indexCache = new BlockCache(opts.indexCacheBytes ?? STORAGE_DEFAULTS.indexCacheBytes);
    this.seriesIndex = opts.seriesIndex ?? 'auto';
    this.#codecs = opts.codecs;
    this.#nowMs = opts.nowMs ?? Date.now;
    this.#watermark = store.catalog.idWatermark;
    this.#quarantine = new Quarantine(opts.dataDir, opts.logger);
    const thread = opts.compactionThread;
    if (
      thread !== undefined &&
      (opts.memory === true || (opts.segmentStore !== undefined && opts.segmentStore !== nodeSegmentStore))
    ) {
      throw bug('the compaction thread reads segment files from the file system; it needs the Node segment store');
    }
    this.#segmentStore = opts.segmentStore ?? (opts.memory === true ? new MemorySegmentStore() : nodeSegmentStore);
    this.#walFiles = opts.memory === true ? new MemoryWalFiles() : nodeWalFiles;
    this.#compactor = thread === undefined ? undefined : new Compactor(thread.wasm, thread.script);
  }

  get catalog(): Catalog {
    return this.#store.catalog;
  }

  /** Whether this open made a new catalog (StorageOptions.rootPasswordHash applied) rather than loading one. */
  get catalogCreated(): boolean {
    return this.#store.created;
  }

  /**
   * Opens (or creates) the data directory and loads the catalog. Fast: call `recover` next to
   * replay the WALs (the server already answers 503 meanwhile).
   */
  static async open(opts: StorageOptions): Promise<Storage> {
    if (opts.sharedCatalog !== undefined && opts.memory !== true) {
      await mkdir(join(opts.dataDir, 'db'), { recursive: true, mode: DIR_MODE });
      await checkModes(opts.dataDir, opts.logger);
      await checkClusterDir(opts.dataDir, opts.sharedCatalog);
    }
    if (opts.memory === true || opts.sharedCatalog !== undefined) {
      const store = await CatalogStore.open(
        opts.sharedCatalog ?? memoryCatalogFile(opts.dataDir),
        { rootPasswordHash: opts.rootPasswordHash, rootScramVerifier: opts.rootScramVerifier ?? '' },
        opts.sharedCatalog !== undefined,
      );
      if (opts.memory === true) return new Storage(opts, store, undefined);
      return Storage.#withBackends(opts, store);
    }
    await mkdir(join(opts.dataDir, 'db'), { recursive: true, mode: DIR_MODE });
    const file = catalogFile(opts.dataDir);
    await file.cleanup();
    await checkModes(opts.dataDir, opts.logger);
    const store = await CatalogStore.open(file, {
      rootPasswordHash: opts.rootPasswordHash,
      rootScramVerifier: opts.rootScramVerifier ?? '',
    });
    return Storage.#withBackends(opts, store);
  }

  /** The Storage over `store`, with its object store and JetStream link when the options ask for them. */
  static async #withBackends(opts: StorageOptions, store: CatalogStore): Promise<Storage> {
    const objectStore =
      opts.objectStore === undefined
        ? undefined
        : await ObjectSegmentStore.open({
            ...opts.objectStore,
            dataDir: opts.dataDir,
            logger: opts.logger,
            metrics: opts.metrics ?? NO_METRICS,
          });
    const jetStream =
      opts.jetStream === undefined
        ? undefined
        : await JetStreamLink.connect({ ...opts.jetStream, logger: opts.logger }).catch((e: unknown) => {
            objectStore?.close();
            throw e;
          });
    return new Storage(opts, store, objectStore, jetStream);
  }

  /** Opens every database (replaying its WAL), removes what dropped databases left, starts the background work. */
  async recover(): Promise<void> {
    const live = new Set<string>();
    for (const def of this.catalog.allDatabases()) {
      live.add(String(def.id));
      await this.#openDatabase(def);
    }
    // A DROP DATABASE saves the catalog before deleting files; a crash in between leaves them.
    for (const name of this.#opts.memory === true ? [] : await readdir(join(this.#opts.dataDir, 'db'))) {
      if (live.has(name)) continue;
      // Its stream first: a stream is known to be ours only while the folder's token file is there.
      if (this.#jetStream !== undefined && /^\d+$/.test(name))
        await deleteOrphanStream(this.#jetStream, join(this.#opts.dataDir, 'db', name), Number(name));
      await rm(join(this.#opts.dataDir, 'db', name), { recursive: true, force: true });
      this.#opts.logger.info({ dir: name }, 'removed the files of a dropped database');
    }
    await this.#objectStore?.removeDroppedDatabases(live);
    // Tables and columns the replay made again (their save was lost in a crash). Not fatal: the
    // WAL still holds their records, and the next save (any DDL, any write that adds a column) retries.
    if (this.#store.dirty)
      await this.#store.save().catch((err: unknown) => this.#opts.logger.error({ err }, 'saving the catalog failed'));
    // From here on other nodes' changes are adopted; the watch starts where the catalog was read,
    // so that none made during the recovery is missed.
    if (this.#store.shared) this.#store.watch(() => this.#pullRemote());
    const every = this.#opts.maintenanceIntervalMs ?? STORAGE_DEFAULTS.maintenanceIntervalMs;
    if (every > 0) {
      this.#timer = setInterval(() => void this.maintain(), every);
      this.#timer.unref();
    }
  }

  async #openDatabase(def: DatabaseDef): Promise<DatabaseStore> {
    const link = this.#jetStream;
    const vnodes = this.#opts.jetStream?.vnodes ?? 1;
    const openLog: DatabaseEnv['openLog'] =
      link === undefined
        ? undefined
        : async (dir, afterLsn, replay) => {
            await refuseFileWal(this.#walFiles, join(dir, 'wal'), afterLsn, `${def.tenant}.${def.name}`);
            return JetStreamWal.open(
              { link, dbId: def.id, dir, dbName: `${def.tenant}.${def.name}`, vnodes, quarantine: this.#quarantine },
              afterLsn,
              replay,
            );
          };
    const state = await DatabaseStore.open(
      {
        dataDir: this.#opts.dataDir,
        logger: this.#opts.logger,
        codecs: this.#codecs,
        cache: this.#cache,
        indexCache: this.#indexCache,
        segmentStore: this.#segmentStore,
        walFiles: this.#walFiles,
        catalog: this.catalog,
        walSegmentBytes: this.#opts.walSegmentBytes,
        walSync: this.#opts.walSync,
        nowMs: this.#nowMs,
        flushBytes: this.#opts.flushBytes ?? STORAGE_DEFAULTS.flushBytes,
        quarantine: this.#quarantine,
        metrics: this.#opts.metrics ?? NO_METRICS,
        ...(openLog === undefined ? {} : { openLog }),
      },
      def,
      this.#watermark,
    );
    // A flush may make a compaction due: look at once rather than at the next tick.
    state.onFlushed = () => {
      if (!this.#closed && this.#compaction === undefined) this.#startCompaction(false);
    };
    this.#dbs.set(def.id, state);
    return state;
  }

  #state(db: DatabaseDef): DatabaseStore {
    const s = this.#dbs.get(db.id);
    if (s === undefined) throw databaseNotFound(db.name);
    return s;
  }

  /** The block cache's size and hit counts (tests, metrics). */
  get blockCache(): { bytes: number; hits: number; misses: number } {
    return { bytes: this.#cache.bytes, hits: this.#cache.hits, misses: this.#cache.misses };
  }

  /**
   * The series a read goes through, in series key order: those that can meet its tag hints,
   * found through the postings (series-postings.ts), or the table's whole series list (kept
   * between queries; the read path narrows it by the hints and the filter).
   */
  #seriesFor(
    state: DatabaseStore,
    view: ReadView,
    t: TableDef,
    request: LastRequest,
  ): readonly SeriesInfo[] | Promise<readonly SeriesInfo[]> {
    const hinted =
      request.seriesFilter !== undefined &&
      ((request.seriesTags?.length ?? 0) > 0 || (request.seriesTagTests?.length ?? 0) > 0);
    const mode = this.seriesIndex;
    if (hinted && mode !== 'scan') {
      let indexed = 0;
      for (const seg of view.segments) if (seg.version >= 4) indexed += seg.seriesCount(t.id);
      if (mode === 'postings' || indexed >= POSTINGS_MIN_SERIES)
        return seriesByPostings(view, t, request.seriesTags, request.seriesTagTests);
    }
    return state.seriesList.list(view, t);
  }

  /** A read begins: neither cache evicts what it uses for what it uses later (block-cache.ts). */
  #beginScan(): void {
    this.#cache.beginScan();
    this.#indexCache.beginScan();
  }

  /** The index cache's size and hit counts (tests, benchmarks). */
  get indexCache(): { bytes: number; hits: number; misses: number } {
    return { bytes: this.#indexCache.bytes, hits: this.#indexCache.hits, misses: this.#indexCache.misses };
  }

  /** Bytes held by all memtables (active and being flushed). */
  /** Every open database with its segment and memtable bytes (usage_schema's gauges). */
  usageOfDatabases(): Array<{ def: DatabaseDef; diskBytes: number; cacheBytes: number; segmentFiles: number }> {
    return [...this.#dbs.values()].map((s) => ({
      def: s.def,
      diskBytes: s.segmentBytes,
      cacheBytes: s.memtableBytes,
      segmentFiles: s.slots.length,
    }));
  }

  get memtableBytes(): number {
    let n = 0;
    for (const s of this.#dbs.values()) n += s.memtableBytes;
    return n;
  }

  /**
   * Throws 429 when the memtables are full (before a request's body is even read), and starts
   * flushing them, so that capacity returns even when `flushBytes` was never reached.
   */
  checkWriteCapacity(): void {
    let pending = 0;
    for (const s of this.#dbs.values()) pending += s.pendingBytes;
    if (this.memtableBytes + pending >= this.#opts.memtableBytes) {
      for (const s of this.#dbs.values()) s.rotate();
      throw new UserError('limitReached', `memtable full (${this.#opts.memtableBytes} bytes); retry later`, {
        retryAfterS: 1,
        reason: 'memtable',
      });
    }
  }

  /**
   * Stores the encoded write batches of one request atomically: schema check (and creation of
   * missing tables and columns), one WAL record, memtable. Resolves once the record is durable.
   * On any error nothing of the request is stored, and the tables and columns it created are
   * taken back (unless a write in flight uses them too: provisional-schema.ts).
   */
  async write(db: DatabaseDef, encoded: readonly Uint8Array[]): Promise<void> {
    if (this.#closed) throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
    const state = this.#state(db);
    this.checkWriteCapacity();
    const batches = encoded.map((b) => readWriteBatch(b));
    if (batches.every((b) => b.rowCount === 0)) return;
    this.#checkRetention(state, batches);
    const tables = batches.flatMap((b) => b.tables);
    // With a shared catalog, a write's new tables and columns are committed to it first, as a
    // DDL is (so that two nodes creating the same table agree on its ids); they stay when the
    // write then fails, as after a CREATE TABLE.
    if (this.#store.shared && lacksSchema(db, tables))
      await this.#changeSchema(() => this.catalog.applyBatchSchema(db, tables));
    while (this.#schemaChange !== undefined) await this.#schemaChange;
    const created = this.catalog.applyBatchSchema(db, tables);
    if (created.length > 0) this.#provisional.add(db, created);
    const claimed = this.#provisional.claim(db, tables);
    try {
      const stamps = batches.map((b) => stampsOf(db, b.tables));
      await state.write(batches, encoded, stamps);
    } catch (e) {
      await this.#takeBack(this.#provisional.settle(claimed, false));
      rethrowWalFailure(e);
    }
    if (claimed.length > 0) this.#provisional.settle(claimed, true);
    // Saved once the record is durable, so that a failed write's tables seldom reach the disk, and
    // before the answer, so that an acknowledged write's tables are in catalog.json (the record
    // carries the ids too, wal-replay.ts, so a failed save loses nothing).
    if (created.length > 0)
      await this.#store.save().catch((err: unknown) => this.#opts.logger.error({ err }, 'saving the catalog failed'));
  }

  /** Takes a failed write's tables and columns out of the catalog, and the catalog file, again. */
  async #takeBack(forget: readonly Forget[]): Promise<void> {
    if (forget.length === 0) return;
    // Not in the middle of a DDL, whose revert would bring them back.
    while (this.#schemaChange !== undefined) await this.#schemaChange;
    for (const f of forget) this.catalog.forgetCreated(f.db, f.tableId, f.columnIds);
    await this.#store.save().catch((err: unknown) => this.#opts.logger.error({ err }, 'saving the catalog failed'));
  }

  /**
   * The one path of a DDL's catalog change: one at a time, writes waiting, then `change` (which
   * validates before it changes anything) and a save; a save that fails (a full disk) puts the
   * catalog in memory back as it was (CatalogStore.revert), so that memory and disk agree, and
   * rethrows. `after` runs once the save is durable, before writes go on.
   */
  async #changeSchema<T>(change: () => T, after?: (out: T) => Promise<void> | void): Promise<T> {
    return this.#schemaLocked(async () => {
      for (let attempt = 1; ; attempt++) {
        const shape = this.#store.shared ? catalogShape(this.catalog) : undefined;
        const before = this.#store.text();
        const out = change();
        try {
          await this.#store.save();
        } catch (e) {
          if (!(e instanceof CatalogConflict)) {
            this.#store.revert(before);
            throw e;
          }
          // Another node changed the shared catalog first: take its change, then try again,
          // which ends as on one node (done, or the same error: "database already exists").
          // Back to what was saved first: the change's ids may be the winner's too (both took them
          // from the same counter), and must not stand for the winner's objects.
          this.#store.revert(before);
          await this.#adopt(this.#store.decode(e.text), shape!);
          if (attempt === SHARED_CATALOG_ATTEMPTS)
            throw new UserError(
              'unavailable',
              `the shared catalog changed ${attempt} times while this statement tried to change it; try again`,
              { retryAfterS: 1 },
            );
          continue;
        }
        await after?.(out);
        return out;
      }
    });
  }

  /** Runs `fn` with the schema to itself: one DDL or adoption at a time, writes waiting. */
  async #schemaLocked<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#schemaChange !== undefined) await this.#schemaChange;
    let release!: () => void;
    this.#schemaChange = new Promise((resolve) => (release = resolve));
    try {
      return await fn();
    } finally {
      this.#schemaChange = undefined;
      release();
    }
  }

  /**
   * Adopts what other nodes changed in the shared catalog (told by its watch): one pull at a time,
   * one more after it when told again meanwhile. A failure (etcd unreachable) is logged; the
   * watch tells again once etcd is back.
   */
  #pullRemote(): void {
    if (this.#closed) return;
    if (this.#pullAgain) return;
    this.#pullAgain = true;
    this.#pulling = this.#pulling.then(async () => {
      this.#pullAgain = false;
      if (this.#closed) return;
      await this.#schemaLocked(async () => {
        const snap = await this.#store.pull();
        if (snap !== undefined) await this.#adopt(snap, catalogShape(this.catalog));
      }).catch((err: unknown) => this.#opts.logger.warn({ err }, 'adopting the shared catalog failed'));
    });
  }

  /**
   * Makes the catalog `snap` (the shared one as another node left it; `before`: this node's
   * before, as saved) with the data side following, as the DDL does on the node that ran it:
   * stores opened for new databases first (so that no request finds a database without its store),
   * dropped tables' rows and dropped columns' values let go, dropped databases' files deleted.
   */
  async #adopt(snap: Catalog, before: CatalogShape): Promise<void> {
    const opened: string[] = [];
    for (const def of snap.allDatabases()) {
      if (this.#dbs.has(def.id)) continue;
      await this.#openDatabase(def);
      opened.push(`${def.tenant}.${def.name}`);
    }
    this.#store.adopt(snap);
    const live = new Set(this.catalog.allDatabases().map((d) => d.id));
    const changes = shapeChanges(before, this.catalog);
    for (const [dbId, tableId] of changes.droppedTables) this.#dbs.get(dbId)?.dropTable(tableId);
    for (const [dbId, tableId, columnId] of changes.droppedColumns) this.#dbs.get(dbId)?.dropColumn(tableId, columnId);
    const dropped: string[] = [];
    for (const [id, state] of [...this.#dbs]) {
      if (live.has(id)) continue;
      dropped.push(`${state.def.tenant}.${state.def.name}`);
      await this.#destroyDatabase(state.def);
    }
    if (opened.length + dropped.length + changes.droppedTables.length > 0)
      this.#opts.logger.info(
        { opened, dropped, droppedTables: changes.droppedTables.length },
        'followed catalog changes of another node',
      );
  }

  /** Counts of the storage faults found in this run (quarantine.ts). */
  get faults(): Readonly<FaultCounts> {
    return this.#quarantine.counts;
  }

  /**
   * Degraded while writes are refused (a WAL that failed: a full file system, an I/O error),
   * while flushes or compactions fail, or while a segment file is known to be damaged; with a
   * reason each, as ping reports them.
   */
  health(): StorageHealth {
    const reasons = new Set<string>();
    const noSpace = (e: unknown): boolean => {
      if (isNoSpace(e)) reasons.add(NO_SPACE_MESSAGE);
      return isNoSpace(e);
    };
    for (const s of this.#dbs.values()) {
      const name = `${s.def.tenant}.${s.def.name}`;
      const wal = s.wal.failure;
      if (wal !== undefined && !noSpace(wal))
        reasons.add(
          `the write-ahead log of database ${name} failed (${wal.code ?? 'error'}); writes to it are refused until it is writable again`,
        );
      if (s.flushFailure !== undefined && !noSpace(s.flushFailure))
        reasons.add(
          `flushing database ${name} fails (${(s.flushFailure as NodeJS.ErrnoException).code ?? 'see the server log'}); its data stays in memory and in the WAL`,
        );
      const damaged = s.slots.filter((slot) => slot.error !== undefined).length;
      if (damaged > 0)
        reasons.add(
          `${damaged} damaged segment file${damaged === 1 ? '' : 's'} in database ${name} (CHECK DATABASE ${s.def.name} lists them)`,
        );
    }
    if (this.#compactionFailure !== undefined) noSpace(this.#compactionFailure);
    const store = this.#objectStore?.failure;
    if (store !== undefined)
      reasons.add(
        `the object store fails (${store.message}); flushes wait for it, and reads of segment files not in the local cache fail with 503`,
      );
    return { status: reasons.size === 0 ? 'healthy' : 'degraded', reasons: [...reasons] };
  }

  /**
   * Refuses points older than the TTL (and than what retention already dropped), and points in a
   * partition that would end past the largest timestamp, with CnosDB's texts: its clients and
   * test cases match `create expired bucket` and `create bucket unknown error`.
   */
  #checkRetention(state: DatabaseStore, batches: readonly WriteBatch[]): void {
    const o = state.def.options;
    let cutoff = retentionCutoff(o, this.#nowMs());
    if (state.expiredBefore !== null && (cutoff === undefined || cutoff < state.expiredBefore))
      cutoff = state.expiredBefore;
    const units = vnodeUnits(o);
    for (const b of batches) {
      for (const t of b.tables) {
        for (const s of t.series) {
          if (cutoff !== undefined && s.minTs < cutoff) {
            throw new UserError(
              'pointExpired',
              `Coordinator: Meta: Operation not support: create expired bucket (a point of table '${t.name}' is older than the TTL of database ${state.def.name})`,
            );
          }
          if (partitionOverflows(s.maxTs, units)) {
            throw new UserError(
              'timestampOverflow',
              `Coordinator: Meta: Error: create bucket unknown error db:${state.def.name} ${s.maxTs} (its time partition would end past the largest timestamp)`,
            );
          }
        }
      }
    }
  }

  // ---- DDL: validate, change the catalog in memory, save it (durable on return), then the data.

  /** `system`: the server creates one of its own (usage_schema), whose name users may not take. */
  async createDatabase(tenant: string, name: string, options: DatabaseOptions, system = false): Promise<DatabaseDef> {
    this.#open();
    return this.#changeSchema(
      () => {
        if (this.catalog.database(tenant, name) === undefined) checkDatabaseLimits(this.catalog, tenant, options, true);
        return createDatabaseDef(this.catalog, tenant, name, options, system);
      },
      async (def) => void (await this.#openDatabase(def)),
    );
  }

  async alterDatabase(tenant: string, name: string, options: DatabaseOptions): Promise<void> {
    this.#open();
    await this.#changeSchema(() => {
      checkDatabaseLimits(this.catalog, tenant, options, false);
      alterDatabaseDef(this.catalog, tenant, name, options);
    });
  }

  /**
   * Drops the database and deletes its files; with `afterMs`, hides it and deletes it then
   * (meta/pending-drops.ts). A plain drop of a database whose drop is pending carries that out now.
   */
  async dropDatabase(tenant: string, name: string, afterMs?: number): Promise<void> {
    await this.#drop('database', [tenant, name], afterMs, () => dropDatabaseDef(this.catalog, tenant, name));
  }

  /** Drops a tenant with its databases (as dropDatabase); without `afterMs`, its `drop_after` option decides. */
  async dropTenant(name: string, afterMs?: number): Promise<void> {
    const option = this.catalog.tenants.get(name)?.dropAfter ?? null;
    const after = afterMs ?? (option === null ? undefined : dropAfterMs(option));
    await this.#drop('tenant', [name], after, () => dropTenantDef(this.catalog, name));
  }

  async dropTable(db: DatabaseDef, table: string, afterMs?: number): Promise<void> {
    const state = this.#state(db);
    let dropped: number | undefined;
    await this.#drop('table', [db.tenant, db.name, table], afterMs, () => {
      dropped = dropTableDef(this.catalog, db, table).id;
      return [];
    });
    // Its rows leave memory only once the drop is saved (a failed save keeps the table).
    if (dropped !== undefined) state.dropTable(dropped);
  }

  /**
   * The one path of every drop: scheduled (`afterMs`), immediate (`now` removes the live object
   * from the catalog and returns the databases whose files go), or the completion of a pending
   * drop when no live object has the name. The catalog is saved before any file is deleted.
   */
  async #drop(
    kind: DropKind,
    names: string[],
    afterMs: number | undefined,
    now: () => DatabaseDef | DatabaseDef[],
  ): Promise<void> {
    this.#open();
    const nowMs = this.#nowMs();
    const c = this.catalog;
    const { gone, destroy } = await this.#changeSchema(() => {
      if (afterMs !== undefined) return { gone: scheduleDrop(c, kind, names, nowMs + afterMs, nowMs), destroy: [] };
      if (isLive(c, kind, names) || findPendingDrop(c, kind, names) === undefined) {
        const out = now();
        recordResource(c, kind, names, 'Successed', nowMs);
        return { gone: undefined, destroy: Array.isArray(out) ? out : [out] };
      }
      return { gone: completeDrop(c, findPendingDrop(c, kind, names)!, nowMs), destroy: [] };
    });
    if (gone !== undefined) await this.#carryOut(gone);
    for (const def of destroy) await this.#destroyDatabase(def);
  }

  /** Deletes the data of a completed pending drop (its catalog change is saved). */
  async #carryOut(p: PendingDrop): Promise<void> {
    if (p.kind === 'table') this.#dbs.get(p.database!.id)?.dropTable(p.table!.id);
    for (const def of p.databases) await this.#destroyDatabase(def);
  }

  /** RECOVER TENANT | DATABASE | TABLE: a pending drop's object back under its name, durable on return. */
  async recoverDropped(kind: DropKind, names: string[]): Promise<void> {
    this.#open();
    await this.#changeSchema(() => recoverDrop(this.catalog, kind, names, this.#nowMs()));
  }

  /** Carries out the pending drops that are due (from maintain()). */
  async #dropDue(nowMs: number): Promise<void> {
    if (dueDrops(this.catalog, nowMs).length === 0) return;
    // Found again inside the change: with a shared catalog, a change that lost the race runs again
    // on the winner's catalog, where another node may have carried these drops out already.
    const due = await this.#changeSchema(() => {
      const found = dueDrops(this.catalog, nowMs);
      for (const p of found) completeDrop(this.catalog, p, nowMs);
      return found;
    });
    for (const p of due) {
      this.#opts.logger.info({ drop: p.kind, name: resourceName(p.names) }, 'carried out a scheduled drop');
      await this.#carryOut(p);
    }
  }

  async #destroyDatabase(def: DatabaseDef): Promise<void> {
    const state = this.#dbs.get(def.id);
    this.#dbs.delete(def.id);
    if (state === undefined) return;
    state.closing = true; // a compaction of it stops at its next series
    while (this.#compaction !== undefined && this.#compactingDb === state) await this.#compaction;
    await state.destroy();
  }

  /**
   * Applies a change to tenants, users, members or roles (meta/catalog-dcl.ts: it validates first and
   * changes nothing when it throws) and saves the catalog: durable when this resolves.
   */
  async changeCatalog<T>(change: (catalog: Catalog) => T): Promise<T> {
    this.#open();
    return this.#changeSchema(() => change(this.catalog));
  }

  async createTable(db: DatabaseDef, def: NewTable): Promise<TableDef> {
    this.#open();
    this.#state(db);
    return this.#changeSchema(() => createTableDef(this.catalog, db, def));
  }

  async alterTable(db: DatabaseDef, table: string, change: TableChange): Promise<void> {
    this.#open();
    const state = this.#state(db);
    // A dropped column's values leave memory only once the change is saved.
    await this.#changeSchema(
      () => alterTableDef(this.catalog, db, table, change),
      ({ table: t, column }) => {
        if (change.kind === 'dropColumn') state.dropColumn(t.id, column.id);
      },
    );
  }

  /** Deletes rows (DELETE FROM): durable on return; hidden at once, removed by compaction. */
  async delete(db: DatabaseDef, table: string, request: DeleteRequest): Promise<void> {
    this.#open();
    const state = this.#state(db);
    const t = requireTable(db, table);
    const minTs = request.minTime ?? I64_MIN;
    const maxTs = request.maxTime ?? I64_MAX;
    if (minTs > maxTs) return;
    let series: string[] | null = null;
    if (request.seriesFilter !== undefined) {
      const { view, release } = state.view();
      const inFlight = state.inFlightMemtable();
      if (inFlight !== undefined) view.memtables = [...view.memtables, { memtable: inFlight, cleanLsn: Infinity }];
      try {
        series = (await listSeries(view, t, bounds(view), request.seriesFilter)).map((s) => s.key);
      } finally {
        release();
      }
      if (series.length === 0) return;
    }
    await state.delete(t.id, series, minTs, maxTs).catch(rethrowWalFailure);
  }

  /**
   * Before a DDL, DCL or DELETE: refused while shutting down, and while a WAL has found the disk
   * full (a statement known to fail is not begun; one that finds it full itself is reverted by
   * #changeSchema).
   */
  #open(): void {
    if (this.#closed) throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
    for (const s of this.#dbs.values()) {
      if (s.wal.failure !== undefined && isNoSpace(s.wal.failure))
        throw new UserError('noSpace', NO_SPACE_MESSAGE, { retryAfterS: NO_SPACE_RETRY_S });
    }
  }

  // ---- Reads.

  /** The chunks of every series of a table that pass the request, series after series (sorted by series key), each in time order. */
  async *scan(
    db: DatabaseDef,
    table: string,
    request: ScanRequest,
    skipped?: SkippedFiles,
  ): AsyncGenerator<SeriesChunk> {
    const t = db.tables.get(table);
    if (t === undefined) return;
    const state = this.#state(db);
    const { view, release } = this.#readView(state, request.minTime, request.maxTime, skipped);
    this.#beginScan();
    try {
      yield* scanTable(view, t, request, await this.#seriesFor(state, view, t, request));
    } catch (e) {
      throw this.#damaged(state, e);
    } finally {
      release();
    }
  }

  /**
   * Every row of a table within [minTime, maxTime] (inclusive, database precision), merged, as
   * runs of one series each in internal key order (read-path.ts tableRuns): what an export
   * writes into segment files. The view is held until the generator ends or is returned.
   */
  async *tableRuns(
    db: DatabaseDef,
    table: TableDef,
    minTime: bigint | undefined,
    maxTime: bigint | undefined,
  ): AsyncGenerator<{ key: string; rows: SeriesRows }> {
    const state = this.#state(db);
    const { view, release } = this.#readView(state, minTime, maxTime, undefined);
    this.#beginScan();
    try {
      yield* tableRuns(view, table, minTime, maxTime);
    } catch (e) {
      throw this.#damaged(state, e);
    } finally {
      release();
    }
  }

  /** One table's rows in [lo, hi] (database precision) as an export stream's chunks (export.ts). */
  exportTable(
    db: DatabaseDef,
    table: TableDef,
    range: ExportRange,
    lo: bigint | undefined,
    hi: bigint | undefined,
  ): AsyncGenerator<Uint8Array> {
    return exportChunks(db, table, range, this.tableRuns(db, table, lo, hi), this.#codecs);
  }

  /**
   * A read's view of a database: an unreadable segment in the read's time range fails it, or,
   * with skipDamagedSegments, every damaged segment is left out (and reported to `skipped`).
   */
  #readView(
    state: DatabaseStore,
    minTime: bigint | undefined,
    maxTime: bigint | undefined,
    skipped: SkippedFiles | undefined,
  ): ReturnType<DatabaseStore['view']> {
    const skip = this.#opts.skipDamagedSegments === true;
    const v = state.view(skip);
    try {
      checkBroken(v.broken, bounds(v.view, minTime, maxTime));
    } catch (e) {
      v.release();
      throw e;
    }
    if (v.skipped.length > 0) {
      const names = v.skipped.map((s) => s.reader?.name ?? (s.error as CorruptionError).source);
      this.#opts.logger.warn(
        { db: state.def.name, files: names },
        'a read skipped damaged segment files (storage.skip_damaged_segments)',
      );
      this.#opts.metrics?.damagedSegmentsSkipped(names.length);
      skipped?.(names);
    }
    return v;
  }

  /** A read's error: a CorruptionError marks its segment damaged (database.ts markDamaged). */
  #damaged(state: DatabaseStore, e: unknown): unknown {
    if (e instanceof CorruptionError) state.markDamaged(e);
    return e;
  }

  /**
   * Like `scan`, but whole stored blocks (or pages of them) that need no merging come as their
   * statistics (count/min/max/sum from the footer index or page blocks, nothing decoded), in batches.
   */
  async *scanStats(
    db: DatabaseDef,
    table: string,
    request: StatsRequest,
    skipped?: SkippedFiles,
  ): AsyncGenerator<StatsOrChunk[]> {
    const t = db.tables.get(table);
    if (t === undefined) return;
    const state = this.#state(db);
    const { view, release } = this.#readView(state, request.minTime, request.maxTime, skipped);
    this.#beginScan();
    try {
      yield* scanTableStats(view, t, request, await this.#seriesFor(state, view, t, request));
    } catch (e) {
      throw this.#damaged(state, e);
    } finally {
      release();
    }
  }

  /**
   * Per series, the newest present value of each requested field (series sorted by key; series
   * without any of them are left out). Served from the last-point cache when it knows them.
   */
  async lastPoints(
    db: DatabaseDef,
    table: string,
    request: LastRequest,
    skipped?: SkippedFiles,
  ): Promise<SeriesLast[]> {
    const t = db.tables.get(table);
    if (t === undefined) return [];
    const state = this.#state(db);
    // Arrays built by push here and below, not by map and filter: their results are packed in
    // V8's interpreter and holey in its compiled code, and code compiled for one kind is thrown
    // away at the other. With lastRowsBatch (scan-exec.ts) passing such arrays in, `--trace-deopt`
    // showed both thrown away three or four times over the first 40 runs of TSBS "last point
    // per host".
    const fields: ColumnDef[] = [];
    for (const n of request.fields) {
      const c = t.fields.find((f) => f.name === n);
      if (c !== undefined) fields.push(c);
    }
    const { view, release } = this.#readView(state, undefined, undefined, skipped);
    this.#beginScan();
    const out: SeriesLast[] = [];
    try {
      const filter = request.seriesFilter;
      let listed = this.#seriesFor(state, view, t, request);
      if (listed instanceof Promise) listed = await listed;
      for (const s of filter === undefined ? listed : seriesWithTags(listed, request.seriesTags)) {
        if (filter !== undefined && !filter(s.names)) continue;
        let entry = state.last.get(t.id, s.key);
        const missing: number[] = [];
        for (const c of fields) if (entry === undefined || !entry.has(c.id)) missing.push(c.id);
        if (missing.length > 0) {
          const epoch = state.last.epoch;
          const got = await lastValues(view, t, s, missing);
          if (state.last.epoch === epoch) {
            if (entry === undefined) state.last.set(t.id, s.key, (entry = new Map()));
            for (const [id, v] of got) entry.set(id, v);
          } else {
            entry = new Map([...(entry ?? []), ...got]);
          }
        }
        const values = new Map<string, LastValue>();
        for (const c of fields) {
          const v = entry!.get(c.id);
          if (v === null || v === undefined) continue;
          values.set(c.name, {
            time: v[0],
            value: c.type === ValueType.Boolean ? v[1] === 1 : (v[1] as LastValue['value']),
          });
        }
        if (values.size > 0) out.push({ tags: s.names, fields: values });
      }
    } catch (e) {
      throw this.#damaged(state, e);
    } finally {
      release();
    }
    return out;
  }

  /** Tag sets of the series of a table, sorted by series key, without reading data. */
  async series(db: DatabaseDef, table: string): Promise<Iterable<ReadonlyMap<string, string>>> {
    const t = db.tables.get(table);
    if (t === undefined) return [];
    const { view, release } = this.#state(db).view();
    this.#beginScan();
    try {
      return (await listSeries(view, t, bounds(view))).map((s) => s.names);
    } finally {
      release();
    }
  }

  // ---- Background work.

  /**
   * One round of background work: flush memtables that are old enough (or whose flush failed),
   * apply retention, start a compaction if one is due and none runs. The timer calls it; tests
   * call it with their clock.
   */
  maintain(): Promise<void> {
    this.#maintaining ??= (async () => {
      try {
        const now = this.#nowMs();
        await this.#dropDue(now).catch((err: unknown) => this.#opts.logger.error({ err }, 'a scheduled drop failed'));
        for (const s of this.#dbs.values()) {
          if (this.#closed) return;
          // Retention first, so that a flush it starts skips expired rows.
          await s
            .expire(now)
            .catch((err: unknown) => this.#opts.logger.error({ db: s.def.name, err }, 'retention failed'));
          s.rotateIfOld(now, this.#opts.flushAgeMs ?? STORAGE_DEFAULTS.flushAgeMs);
          s.resumeFlushes();
          // A failed WAL is probed here too, so that ping turns healthy again without a write.
          if (s.wal.failure !== undefined) await s.wal.probe();
        }
        await this.#objectStore?.maintain();
        if (this.#compaction === undefined && !this.#closed) this.#startCompaction(false);
      } finally {
        this.#maintaining = undefined;
      }
    })();
    return this.#maintaining;
  }

  /** Starts a compaction of one database (`only`) or of the first that has one due. */
  #startCompaction(full: boolean, only?: DatabaseStore): boolean {
    // After a failure (a full disk), background compactions pause; asked-for ones (full) go on.
    if (!full && performance.now() < this.#compactionRetryAtMs) return false;
    const fanIn = this.#opts.compactionFanIn ?? STORAGE_DEFAULTS.compactionFanIn;
    for (const s of this.#dbs.values()) {
      if (s.closing || (only !== undefined && s !== only)) continue;
      const inputs = planCompaction(s, fanIn, full);
      if (inputs === undefined) continue;
      this.#compactingDb = s;
      const started = performance.now();
      const seconds = (): number => (performance.now() - started) / 1000;
      this.#compaction = compact(s, inputs, this.#compactor)
        .then(
          () => {
            this.#opts.metrics?.compacted(seconds(), true);
            this.#compactionFailure = undefined;
            this.#compactionBackoffMs = 0;
          },
          (err: unknown) => {
            this.#opts.metrics?.compacted(seconds(), false);
            this.#compactionBackoffMs = Math.min(
              COMPACTION_BACKOFF_MAX_MS,
              Math.max(COMPACTION_BACKOFF_MIN_MS, this.#compactionBackoffMs * 2),
            );
            this.#compactionRetryAtMs = performance.now() + this.#compactionBackoffMs;
            this.#compactionFailure = err as Error;
            this.#compactionFailures++;
            this.#opts.logger.error({ db: s.def.name, err, retryInMs: this.#compactionBackoffMs }, 'compaction failed');
          },
        )
        .finally(() => {
          this.#compaction = undefined;
          this.#compactingDb = undefined;
        });
      return true;
    }
    return false;
  }

  /** Flushes every memtable (of one database, or all) into segment files; resolves when done. */
  async flushAll(db?: DatabaseDef): Promise<void> {
    for (const s of this.#dbs.values()) if (db === undefined || s.def.id === db.id) await s.flushAll();
  }

  /** Compacts every partition down to one file; resolves when done (tests, benchmarks). */
  async compactAll(): Promise<void> {
    let failures = this.#compactionFailures;
    let streak = 0;
    for (;;) {
      while (this.#compaction !== undefined) await this.#compaction;
      // Failures (logged) are retried at once (a compaction thread that did not start falls back
      // to this one), but not forever: on a full disk the same merge keeps failing.
      streak = this.#compactionFailures === failures ? 0 : streak + 1;
      failures = this.#compactionFailures;
      if (streak >= COMPACT_ALL_ATTEMPTS || !this.#startCompaction(true)) return;
    }
  }

  /**
   * COMPACT DATABASE: flushes the database's memtables, then compacts each of its partitions
   * down to one file, waiting for a compaction in progress first (one runs at a time). At most as
   * many rounds as there are files when it starts (a merge takes at least one file away), so that
   * ingest flushing meanwhile cannot keep it going; what is left goes to the background.
   */
  async compactDatabase(db: DatabaseDef): Promise<void> {
    const state = this.#state(db);
    await state.flushAll();
    const failures = this.#compactionFailures;
    const failed = (): void => {
      // A full disk is the statement's answer (507); other failures are logged and retried.
      if (this.#compactionFailures !== failures && isNoSpace(this.#compactionFailure)) throw this.#compactionFailure!;
    };
    for (let rounds = state.slots.length; rounds > 0; rounds--) {
      while (this.#compaction !== undefined) await this.#compaction;
      if (this.#closed || state.closing || !this.#startCompaction(true, state)) return failed();
    }
    while (this.#compaction !== undefined) await this.#compaction;
    failed();
  }

  /**
   * CHECK DATABASE: every segment file of the database against its checksums (trailer, index,
   * every block), the catalog and the manifest as saved (they must read back), and every WAL
   * segment (header, record checksums, LSN order). A row per problem;
   * with `repair`, damaged segment files go to the quarantine folder (their rows are no longer
   * served) and damaged WAL segments are retired by a flush of the database (their records are
   * in memory: replayed at start, or written in this run).
   */
  async checkDatabase(db: DatabaseDef, repair: boolean): Promise<StoredFileProblem[]> {
    this.#open();
    const state = this.#state(db);
    const q = this.#quarantine;
    const out: StoredFileProblem[] = [];
    for (const slot of [...state.slots]) {
      const file = q.name(state.segmentPath(slot.record.fileId));
      let found: Array<{ offset: number | null; problem: string; error: Error }>;
      if (slot.reader === undefined) {
        const e = slot.error!;
        found = [
          {
            offset: e instanceof CorruptionError ? e.offset : null,
            problem: e instanceof CorruptionError ? e.check : e.message,
            error: e,
          },
        ];
      } else {
        slot.reader.acquire();
        try {
          found = (await slot.reader.verify()).map((e) => ({ offset: e.offset, problem: e.check, error: e }));
        } finally {
          slot.reader.release();
        }
        if (found.length > 0) state.markDamaged(found[0]!.error as CorruptionError);
      }
      if (found.length === 0) continue;
      let action = '';
      if (repair && state.slots.includes(slot)) {
        try {
          action = `moved to ${await state.quarantineSegment(slot)}; its ${slot.record.rows} rows are no longer served`;
        } catch (e) {
          action = `not repaired: ${(e as Error).message}`;
        }
      }
      for (const f of found) out.push({ file, offset: f.offset, problem: f.problem, action });
    }
    // The catalog and the manifest have no checksum: they must read back as a start reads them.
    // The server's memory holds them whole, so REPAIR writes them out again from there.
    const catalogDamage = await this.#store.verifySaved();
    if (catalogDamage !== undefined) {
      let action = '';
      if (repair)
        action = await this.#store.rewrite().then(
          () => "rewrote it from the server's memory",
          (e: Error) => `not repaired: ${e.message}`,
        );
      out.push({ file: 'catalog.json', offset: catalogDamage.offset, problem: catalogDamage.check, action });
    }
    const manifestDamage = await loadManifest(state.segmentStore, state.dir).then(
      () => undefined,
      (e: unknown) => {
        if (e instanceof CorruptionError) return e;
        throw e;
      },
    );
    if (manifestDamage !== undefined) {
      let action = '';
      if (repair)
        action = await state.commit({}).then(
          () => "rewrote it from the server's memory",
          (e: Error) => `not repaired: ${e.message}`,
        );
      out.push({
        file: q.name(join(state.dir, 'manifest.json')),
        offset: manifestDamage.offset,
        problem: manifestDamage.check,
        action,
      });
    }
    const wal = await state.wal.verify();
    let walAction = '';
    if (repair && wal.length > 0) {
      try {
        await state.flushAll();
        const left = new Set((await state.wal.verify()).map((p) => p.file));
        walAction = 'flushed the database, which retired the damaged WAL segment';
        for (const p of wal) if (left.has(p.file)) p.problem += ' (still there after a flush)';
      } catch (e) {
        walAction = `not repaired: ${(e as Error).message}`;
      }
    }
    for (const p of wal) out.push({ ...p, action: walAction });
    return out;
  }

  /**
   * A backup's checkpoint (checkpoint.ts): the catalog, manifests, segment files and WAL tails of
   * every database at this instant, held until the caller releases it. With the WAL in NATS
   * JetStream, whose records a copy of the data directory cannot hold, every database is flushed
   * first: the checkpoint then holds every write acknowledged before the call.
   */
  async checkpoint(): Promise<Checkpoint> {
    // Not #open: a full disk refuses writes, not copies of what is stored.
    if (this.#closed) throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
    if (this.#jetStream !== undefined) {
      await this.flushAll();
      if (this.#closed) throw new UserError('unavailable', 'server is shutting down', { retryAfterS: 1 });
    }
    return takeCheckpoint(
      this.#store.text(),
      [...this.#dbs.values()].filter((s) => !s.closing),
      this.#quarantine,
    );
  }

  /** Waits for background work in progress (tests). */
  async idle(): Promise<void> {
    while (this.#maintaining !== undefined || this.#compaction !== undefined) {
      await this.#maintaining;
      await this.#compaction;
    }
  }

  /** Stops background work, flushes and closes every WAL, saves the catalog. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    for (const s of this.#dbs.values()) s.closing = true;
    // An upload waiting for an unreachable store gives up: its memtable is in the WAL.
    this.#objectStore?.stopRetrying();
    // A compaction on its thread is abandoned rather than waited for (its file is removed at
    // the next start, as after a crash); one on this thread stops at its next series.
    await this.#compactor?.close();
    await this.idle();
    for (const s of this.#dbs.values()) await s.close();
    this.#objectStore?.close();
    await this.#jetStream?.close();
    await this.#pulling;
    await this.#store.save();
  }
}

/**
 * A cluster node's directory must hold only what its cluster's catalog names: recover deletes the
 * database directories the catalog does not know (as dropped while the node was away), so a single
 * node's directory (catalog.json), or any databases when the cluster has no catalog yet (a new
 * name, an emptied etcd), would lose them. Refused instead, naming both.
 */
async function checkClusterDir(dataDir: string, shared: SharedCatalogFile): Promise<void> {
  if ((await catalogFile(dataDir).read()) !== undefined)
    throw new Error(
      `the data directory ${dataDir} holds a single node's catalog (catalog.json), and its databases are not in the cluster's catalog (${shared.name}): a cluster node needs a directory of its own`,
    );
  const dbs = await readdir(join(dataDir, 'db'));
  if (dbs.length > 0 && (await shared.read()) === undefined)
    throw new Error(
      `the data directory ${dataDir} holds ${dbs.length} database(s) (db/), but the cluster's catalog (${shared.name}) is empty: a start would delete them; start this node with the cluster it belongs to (server.cluster.name), or on a directory of its own`,
    );
}

/**
 * Files and directories are created owner-only (fs-util.ts). One made by an older version, or by
 * the operator, may be more open: the data directory is left as it is (an operator may share it
 * with a backup agent on purpose) with a warning, while catalog.json, which holds password hashes
 * and which every save replaces by a new owner-only file anyway, is made owner-only at once.
 */
async function checkModes(dataDir: string, logger: Logger): Promise<void> {
  const dirMode = (await stat(dataDir)).mode & 0o777;
  if ((dirMode & 0o077) !== 0) {
    logger.warn(
      { dataDir, mode: dirMode.toString(8) },
      'the data directory is accessible to other users; chmod 700 it unless that is meant',
    );
  }
  const catalog = join(dataDir, 'catalog.json');
  const mode = await stat(catalog).then(
    (s) => s.mode & 0o777,
    () => undefined,
  );
  if (mode !== undefined && (mode & 0o077) !== 0) {
    await chmod(catalog, FILE_MODE);
    logger.info(
      { file: catalog, was: mode.toString(8) },
      'made catalog.json readable by its owner only (it holds password hashes)',
    );
  }
}

/** A WAL failure as the client sees it: 507 for a full file system, else a 500 that says the write was not stored. */
function rethrowWalFailure(e: unknown): never {
  if (!(e instanceof WalFailure)) throw e;
  if (isNoSpace(e)) throw new UserError('noSpace', NO_SPACE_MESSAGE, { retryAfterS: NO_SPACE_RETRY_S, cause: e });
  if (e.unavailable) throw new UserError('unavailable', e.message, { retryAfterS: 1, cause: e });
  throw new UserError(
    'internal',
    `the write-ahead log could not be written (${e.code ?? 'I/O error'}); nothing of the request was stored`,
    { cause: e },
  );
}

function checkBroken(broken: readonly SegmentSlot[], b: Bounds): void {
  for (const s of broken) {
    if ((b.lo === undefined || s.record.maxTs >= b.lo) && (b.hi === undefined || s.record.minTs <= b.hi))
      throw s.error!;
  }
}
