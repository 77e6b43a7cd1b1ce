// The storage state of one database: its WAL, the active memtable, frozen memtables waiting for
// their flush, the segment files its manifest lists, the tombstones of deletes and the
// retention bound. Opening it recovers: manifest, orphan cleanup, segment footers, WAL replay
// from the manifest's flushed LSN (FORMAT.md §6).
//
// Directory: db/<id>/manifest.json, db/<id>/seg/<fileId>.seg, db/<id>/wal/*.wal.
//
// Changes of the file set (flush, compaction, retention) run one at a time under `commit`: the
// new manifest is saved first, then the in-memory state switches in one synchronous step, so a
// reader's view (`view`) is always a consistent set of sources.
//
// Writes and deletes reach the memtable only once their WAL record is durable (the WAL calls
// back in LSN order), so a write answered with an error is in no query, no segment file and no
// replay.

import { join } from 'node:path';
import type { Logger } from 'pino';
import { CorruptionError, bug, UserError } from '../core/errors.js';
import type { WriteBatch } from '../core/write-batch.js';
import type { Metrics } from '../core/metrics.js';
import {
  type BlockCache,
  type CachedBlock,
  type Change,
  cleanupManifest,
  type ColumnCodecs,
  loadManifest,
  type ManifestState,
  partitionStart,
  partitionUnits,
  retentionCutoff,
  saveManifest,
  segmentDisplayName,
  segmentFileName,
  SegmentReader,
  type SegmentRecord,
  type SegmentSet,
  type SegmentSlot,
  type SegmentStore,
  StaleChange,
  type Tombstone,
} from './segment/index.js';
import { type Catalog, type DatabaseDef, stampsOf } from '../meta/index.js';
import type { Quarantine } from './fs/index.js';
import { flushMemtable } from './compaction/index.js';
import { LastPointCache, type ReadView, SeriesListCache } from './read/index.js';
import { Memtable, type TableStamp } from './memtable/index.js';
import {
  decodeDelete,
  decodeStampedWrite,
  encodeDelete,
  encodeStampedWrite,
  reconcileStamps,
  RecordType,
  type ReplayFn,
  splitBatches,
  Wal,
  type WalFiles,
  type WriteLog,
} from './wal/index.js';
import { splitByVnode } from './jetstream/index.js';

export interface DatabaseEnv {
  dataDir: string;
  logger: Logger;
  codecs: ColumnCodecs;
  cache: BlockCache<CachedBlock>;
  /** Decoded index blocks of v4 segment files (storage.index_cache_bytes). */
  indexCache: BlockCache<CachedBlock>;
  /** Where segment files and the manifest live (the WAL is a file of its own: wal.ts). */
  segmentStore: SegmentStore;
  /** Where the WAL's segment files live. */
  walFiles: WalFiles;
  catalog: Catalog;
  walSegmentBytes: number;
  walSync: boolean;
  nowMs: () => number;
  /** Rotate the active memtable (and flush it) once it holds this many bytes. */
  flushBytes: number;
  /** The quarantine folder and the fault counters (quarantine.ts). */
  quarantine: Quarantine;
  /** Told of WAL group commits and flushes (/metrics). */
  metrics: Metrics;
  /**
   * Opens the database's log elsewhere than in WAL files under `dir` (the JetStream WAL), replaying
   * the records after `afterLsn`; default: `Wal.open`.
   */
  openLog?: (dir: string, afterLsn: number, replay: ReplayFn) => Promise<WriteLog>;
}

/** Background work retried after a failure no sooner than this, doubling up to FAILURE_BACKOFF_MAX_MS. */
const FAILURE_BACKOFF_MIN_MS = 1000;
const FAILURE_BACKOFF_MAX_MS = 30_000;

export class DatabaseStore implements SegmentSet {
  readonly def: DatabaseDef;
  readonly dir: string;
  readonly segDir: string;
  readonly env: DatabaseEnv;
  wal!: WriteLog;
  active = new Memtable();
  /** Oldest first; flushed in this order. */
  frozen: Memtable[] = [];
  /** Sorted by minLsn: the order in which their data was written. */
  slots: SegmentSlot[] = [];
  tombstones: Tombstone[] = [];
  flushedLsn = 0;
  nextFileId = 1;
  expiredBefore: bigint | null = null;
  readonly last = new LastPointCache();
  /** Each table's sorted series list, kept while the sources do not change (series-list.ts). */
  readonly seriesList = new SeriesListCache();
  /** Set by close: background work stops at its next step. */
  closing = false;
  compacting = false;
  #lock: Promise<void> = Promise.resolve();
  #flushLoop: Promise<void> | undefined;
  /** Called when a flush finished or failed (the storage front schedules more work). */
  onFlushed: (() => void) | undefined;
  /** The last flush's error while flushes fail (retried with a growing pause: `resumeFlushes`). */
  flushFailure: Error | undefined;
  #flushRetryAtMs = 0;
  #flushBackoffMs = 0;
  /** Writes whose WAL record is not durable yet (a DELETE lists their series too: `inFlightMemtable`). */
  readonly #inFlight = new Set<{ batches: readonly WriteBatch[]; stamps: ReadonlyArray<readonly TableStamp[]> }>();
  #pendingBytes = 0;

  private constructor(env: DatabaseEnv, def: DatabaseDef) {
    this.env = env;
    this.def = def;
    this.dir = join(env.dataDir, 'db', String(def.id));
    this.segDir = join(this.dir, 'seg');
  }

  get log(): Logger {
    return this.env.logger;
  }

  get codecs(): ColumnCodecs {
    return this.env.codecs;
  }

  get segmentStore(): SegmentStore {
    return this.env.segmentStore;
  }

  get catalogVersion(): number {
    return this.env.catalog.version;
  }

  /** Memory held by the active and frozen memtables. */
  get memtableBytes(): number {
    let n = this.active.bytes;
    for (const m of this.frozen) n += m.bytes;
    return n;
  }

  /**
   * Encoded bytes of the writes whose WAL record is not durable yet: they reach the memtables
   * within a group commit, so the memtable limit counts them already (Storage.checkWriteCapacity).
   */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** Bytes of the segment files listed in the manifest (usage_schema's vnode_disk_storage). */
  get segmentBytes(): number {
    let n = 0;
    for (const s of this.slots) n += s.record.bytes;
    return n;
  }

  /**
   * Opens the database and replays its WAL. `watermark` is the highest id of the catalog as it
   * was loaded from disk (see wal-replay.ts).
   */
  static async open(env: DatabaseEnv, def: DatabaseDef, watermark: number): Promise<DatabaseStore> {
    const db = new DatabaseStore(env, def);
    await env.segmentStore.makeDir(db.segDir);
    await cleanupManifest(env.segmentStore, db.dir);
    const m = await loadManifest(env.segmentStore, db.dir);
    db.flushedLsn = m.flushedLsn;
    db.nextFileId = m.nextFileId;
    db.expiredBefore = m.expiredBefore;
    db.tombstones = m.tombstones;
    await db.#openSegments(m);

    let records = 0;
    let rows = 0;
    const source = (lsn: number): string => `WAL record ${lsn} of database ${def.name}`;
    const replay: ReplayFn = (lsn, type, payload) => {
      records++;
      if (type === RecordType.StampedWrite) {
        const { stamps, batches } = decodeStampedWrite(payload, source(lsn));
        batches.forEach((b, i) => {
          const effective = reconcileStamps(env.catalog, def, b.tables, stamps[i]!, watermark, env.logger, lsn);
          db.active.apply(b, effective, lsn, env.nowMs());
          rows += b.rowCount;
        });
      } else if (type === RecordType.Write) {
        // Written before records carried ids: applied by name (version 1 data directories).
        for (const b of splitBatches(payload, source(lsn))) {
          try {
            env.catalog.applyBatchSchema(def, b.tables);
          } catch (err) {
            env.logger.warn({ db: def.name, lsn, err }, 'WAL: skipping a batch that conflicts with the current schema');
            continue;
          }
          db.active.apply(b, stampsOf(def, b.tables), lsn, env.nowMs());
          rows += b.rowCount;
        }
      } else if (type === RecordType.Delete) {
        const d = decodeDelete(payload, source(lsn));
        db.#applyDelete(lsn, d.tableId, d.series, d.minTs, d.maxTs);
      } else {
        env.logger.warn({ db: def.name, lsn, type }, 'WAL: skipping a record of unknown type');
      }
      // Keep memory bounded during a long replay: freeze, and flush once open.
      if (db.active.bytes >= env.flushBytes) db.#freeze();
    };
    db.wal =
      env.openLog === undefined
        ? await Wal.open(
            {
              dir: join(db.dir, 'wal'),
              files: env.walFiles,
              segmentBytes: env.walSegmentBytes,
              sync: env.walSync,
              logger: env.logger,
              quarantine: env.quarantine,
              metrics: env.metrics,
            },
            m.flushedLsn,
            replay,
          )
        : await env.openLog(db.dir, m.flushedLsn, replay);
    if (records > 0) env.logger.info({ db: def.name, records, rows }, 'WAL replayed');
    if (db.wal.report.damaged) {
      // The damaged segments go once what was replayed from them is in segment files (the WAL
      // appends to a new segment), so that the next start does not report them again.
      db.#freeze();
      if (db.frozen.length === 0) await db.wal.removeSegmentsBefore(db.flushedLsn);
    }
    if (db.frozen.length > 0) db.#startFlushLoop();
    return db;
  }

  async #openSegments(m: ManifestState): Promise<void> {
    const listed = new Set(m.segments.map((s) => segmentFileName(s.fileId)));
    // Files a crashed flush or compaction left behind: never listed, never read.
    for (const name of await this.segmentStore.list(this.segDir)) {
      if (listed.has(name)) continue;
      await this.segmentStore.remove(join(this.segDir, name));
      this.log.info({ db: this.def.name, file: name }, 'removed an unlisted segment file');
    }
    for (const record of [...m.segments].sort((a, b) => a.minLsn - b.minLsn)) {
      const path = join(this.segDir, segmentFileName(record.fileId));
      try {
        const reader = await SegmentReader.open(
          this.segmentStore,
          path,
          record.fileId,
          this.env.codecs,
          this.env.cache,
          undefined,
          this.env.indexCache,
        );
        this.slots.push({ record, reader });
      } catch (e) {
        // An object store that cannot answer (503) has not damaged the file: the start fails instead.
        if (e instanceof UserError) throw e;
        const error =
          e instanceof CorruptionError
            ? e
            : new CorruptionError(segmentDisplayName(path), 0, `cannot open: ${(e as Error).message}`, { cause: e });
        this.log.error(
          { db: this.def.name, err: error },
          'segment file unreadable; queries over its time range fail until it is repaired',
        );
        this.env.quarantine.counts.damagedSegmentFiles++;
        this.slots.push({ record, reader: undefined, error });
      }
    }
  }

  /**
   * Appends a request's batches: one WAL record, then, once it is durable, the memtable (in LSN
   * order with every other write and delete). Resolves after both; rejects with the WAL's
   * failure, having applied nothing.
   */
  write(
    batches: readonly WriteBatch[],
    encoded: readonly Uint8Array[],
    stamps: ReadonlyArray<readonly TableStamp[]>,
  ): Promise<void> {
    const entry = { batches, stamps };
    let bytes = 0;
    for (const e of encoded) bytes += e.length;
    this.#inFlight.add(entry);
    this.#pendingBytes += bytes;
    let applied = false;
    const durable = this.wal.append(
      RecordType.StampedWrite,
      encodeStampedWrite(stamps, encoded),
      (lsn) => {
        this.#inFlight.delete(entry);
        this.#pendingBytes -= bytes;
        applied = true;
        const now = this.env.nowMs();
        for (let i = 0; i < batches.length; i++) {
          this.active.apply(batches[i]!, stamps[i]!, lsn, now);
          this.last.onWrite(batches[i]!, stamps[i]!);
        }
        if (this.active.bytes >= this.env.flushBytes) this.rotate();
      },
      (vnodes) =>
        splitByVnode(batches, encoded, stamps, vnodes).map((p) => ({
          vnode: p.vnode,
          parts: encodeStampedWrite(p.stamps, p.encoded),
        })),
    );
    return durable.catch((e: unknown) => {
      this.#inFlight.delete(entry);
      if (!applied) this.#pendingBytes -= bytes;
      throw e;
    });
  }

  /**
   * The writes not yet durable as a memtable of their own (undefined when there are none): a
   * DELETE lists the series it hits before its record is appended, and a write appended before
   * it (so older in LSN order, applied first) must be among them, as it will be in the replay.
   */
  inFlightMemtable(): Memtable | undefined {
    if (this.#inFlight.size === 0) return undefined;
    const m = new Memtable();
    for (const { batches, stamps } of this.#inFlight)
      for (let i = 0; i < batches.length; i++) m.apply(batches[i]!, stamps[i]!, 0, 0);
    return m;
  }

  /** Logs a DELETE of rows of `series` (null = all) of a table and applies it once durable. Resolves after both. */
  delete(tableId: number, series: string[] | null, minTs: bigint, maxTs: bigint): Promise<void> {
    const parts = [encodeDelete({ tableId, series, minTs, maxTs })];
    return this.wal.append(
      RecordType.Delete,
      parts,
      (lsn) => this.#applyDelete(lsn, tableId, series, minTs, maxTs),
      // Every vnode gets the whole delete: its series may live in any of them.
      (vnodes) => Array.from({ length: vnodes }, (_, vnode) => ({ vnode, parts })),
    );
  }

  #applyDelete(lsn: number, tableId: number, series: string[] | null, minTs: bigint, maxTs: bigint): void {
    this.active.deleteRows(tableId, series === null ? null : new Set(series), minTs, maxTs, lsn);
    this.last.invalidate(tableId, series);
    // Older sources keep their rows; the tombstone hides them until compaction removes them.
    if ((this.slots.length > 0 || this.frozen.length > 0) && !this.tombstones.some((t) => t.lsn === lsn)) {
      this.tombstones.push({ lsn, tableId, minTs, maxTs, series });
    }
  }

  #freeze(): void {
    if (this.active.cleanLsn === 0) return;
    this.frozen.push(this.active);
    this.active = new Memtable();
  }

  /** Freezes the active memtable and flushes it in the background. */
  rotate(): void {
    if (this.active.cleanLsn === 0 || this.closing) return;
    this.#freeze();
    // A new WAL segment, so that the flushed records' segments can be deleted.
    void this.wal.rollover();
    this.#startFlushLoop();
  }

  /** Rotates when the oldest row of the active memtable is older than `ageMs`. */
  rotateIfOld(nowMs: number, ageMs: number): void {
    if (this.active.firstWriteMs !== 0 && nowMs - this.active.firstWriteMs >= ageMs) this.rotate();
  }

  #startFlushLoop(): void {
    // (With nothing frozen the loop would finish before `??=` stores it, and stay stored.)
    if (this.frozen.length === 0) return;
    this.#flushLoop ??= (async () => {
      let started = performance.now();
      try {
        while (this.frozen.length > 0 && !this.closing) {
          started = performance.now();
          await flushMemtable(this);
          this.env.metrics.flushed((performance.now() - started) / 1000, true);
          this.flushFailure = undefined;
          this.#flushBackoffMs = 0;
        }
      } catch (err) {
        this.env.metrics.flushed((performance.now() - started) / 1000, false);
        // Retried by the maintenance with a growing pause: a full disk is not rewritten to the
        // brim every second.
        this.#flushBackoffMs = Math.min(
          FAILURE_BACKOFF_MAX_MS,
          Math.max(FAILURE_BACKOFF_MIN_MS, this.#flushBackoffMs * 2),
        );
        this.#flushRetryAtMs = performance.now() + this.#flushBackoffMs;
        if (this.flushFailure === undefined)
          this.log.error(
            { db: this.def.name, err },
            'flush failed; the data stays in memory and in the WAL, retrying later',
          );
        this.flushFailure = err as Error;
      } finally {
        this.#flushLoop = undefined;
        this.onFlushed?.();
      }
    })();
  }

  /** Retries pending flushes (after a failure, once its pause is over). */
  resumeFlushes(): void {
    if (this.frozen.length > 0 && performance.now() >= this.#flushRetryAtMs) this.#startFlushLoop();
  }

  /** Rotates and waits until every memtable is in segment files. */
  async flushAll(): Promise<void> {
    this.rotate();
    this.#flushRetryAtMs = 0;
    this.#startFlushLoop();
    while (this.#flushLoop !== undefined) await this.#flushLoop;
    if (this.frozen.length > 0)
      throw new Error(`flush of database ${this.def.name} did not complete`, { cause: this.flushFailure });
  }

  /**
   * Applies a change of the file set: saves the new manifest, then switches the in-memory state
   * at once. Serialised with every other change of this database.
   */
  commit(change: Change): Promise<void> {
    const run = this.#lock.then(async () => {
      if (change.require !== undefined && !change.require.every((s) => this.slots.includes(s))) {
        throw new StaleChange(`database ${this.def.name}: segments changed meanwhile`);
      }
      const removed = new Set(change.remove ?? []);
      const flushedLsn = change.flushedLsn ?? this.flushedLsn;
      const expiredBefore = change.expiredBefore ?? this.expiredBefore;
      // A file written while retention moved past it (a flush or compaction that was running)
      // is not listed; it is deleted below.
      const expired = (change.add ?? []).filter((s) => expiredBefore !== null && s.record.maxTs < expiredBefore);
      const add = (change.add ?? []).filter((s) => !expired.includes(s));
      const slots = [...this.slots.filter((s) => !removed.has(s)), ...add].sort(
        (a, b) => a.record.minLsn - b.record.minLsn,
      );
      const frozen = change.popFrozen ? this.frozen.slice(1) : this.frozen;
      const state: ManifestState = {
        flushedLsn,
        nextFileId: this.nextFileId,
        expiredBefore,
        segments: slots.map((s) => s.record),
        tombstones: liveTombstones(this.tombstones, slots, frozen),
      };
      await saveManifest(this.segmentStore, this.dir, state, change.fault);
      // The switch: synchronous, so no reader sees half of it.
      this.slots = slots;
      this.flushedLsn = flushedLsn;
      this.expiredBefore = expiredBefore;
      if (change.popFrozen) this.frozen.shift();
      this.tombstones = liveTombstones(this.tombstones, slots, this.frozen);
      for (const s of removed) s.reader?.retire();
      for (const s of expired) {
        s.reader?.retire();
        await this.segmentStore.remove(this.segmentPath(s.record.fileId)).catch(() => undefined);
      }
    });
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /**
   * A consistent view for one scan; call `release` when done. Unreadable segments are listed in
   * `broken`; with `skipDamaged`, every segment known to be damaged is left out of the view
   * instead and listed in `skipped`.
   */
  view(skipDamaged = false): { view: ReadView; broken: SegmentSlot[]; skipped: SegmentSlot[]; release: () => void } {
    const readers: SegmentReader[] = [];
    const broken: SegmentSlot[] = [];
    const skipped: SegmentSlot[] = [];
    for (const s of this.slots) {
      if (skipDamaged && s.error !== undefined) skipped.push(s);
      else if (s.reader === undefined) broken.push(s);
      else {
        s.reader.acquire();
        readers.push(s.reader);
      }
    }
    const memtables = [
      ...this.frozen.map((m) => ({ memtable: m, cleanLsn: m.cleanLsn })),
      { memtable: this.active, cleanLsn: Infinity },
    ];
    let released = false;
    return {
      view: { segments: readers, memtables, tombstones: [...this.tombstones], expiredBefore: this.expiredBefore },
      broken,
      skipped,
      release: () => {
        if (released) return;
        released = true;
        for (const r of readers) r.release();
      },
    };
  }

  /**
   * Retention: once the database TTL has passed the end of a partition, drops its files and hides
   * its rows everywhere else (memtables, files of an older partitioning). The bound is a
   * partition start, so whole partitions go at once. Returns whether anything changed.
   */
  async expire(nowMs: number): Promise<boolean> {
    const cutoff = retentionCutoff(this.def.options, nowMs);
    if (cutoff === undefined) return false;
    const bound = partitionStart(cutoff, partitionUnits(this.def.options));
    if (this.expiredBefore !== null && bound <= this.expiredBefore) return false;
    const drop = this.slots.filter((s) => s.record.maxTs < bound);
    await this.commit({ remove: drop, expiredBefore: bound });
    for (const s of drop) await this.segmentStore.remove(this.segmentPath(s.record.fileId)).catch(() => undefined);
    this.last.clear();
    if (drop.length > 0)
      this.log.info(
        { db: this.def.name, expiredBefore: String(bound), files: drop.map((s) => s.record.fileId) },
        'retention dropped expired partitions',
      );
    return true;
  }

  dropTable(tableId: number): void {
    this.active.dropTable(tableId);
    for (const m of this.frozen) m.dropTable(tableId);
    this.last.invalidate(tableId, null);
    this.seriesList.forget(tableId);
  }

  dropColumn(tableId: number, columnId: number): void {
    this.active.dropColumn(tableId, columnId);
    for (const m of this.frozen) m.dropColumn(tableId, columnId);
  }

  /** Stops background work, flushes the WAL to disk and closes files. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.#flushLoop !== undefined) await this.#flushLoop;
    await this.#lock;
    await this.wal.close();
    for (const s of this.slots) s.reader?.retire();
  }

  /** Closes and deletes every file of the database (DROP DATABASE). */
  async destroy(): Promise<void> {
    await this.close();
    await this.wal.destroy();
    await this.segmentStore.removeDir(this.dir);
    await this.env.walFiles.removeDir(this.dir); // the WAL, and the folder itself
  }

  /**
   * Marks the segment a read found damaged (`err.source` names it), so that compaction leaves
   * it alone, ping reports it and skipping reads skip it. Returns whether it was news.
   */
  markDamaged(err: CorruptionError): boolean {
    const slot = this.slots.find((s) => s.reader?.name === err.source);
    if (slot === undefined || slot.error !== undefined) return false;
    slot.error = err;
    this.env.quarantine.counts.damagedSegmentFiles++;
    this.log.error(
      { db: this.def.name, err },
      'segment file damaged; reads that need the damaged part fail until it is repaired (CHECK DATABASE ... REPAIR)',
    );
    return true;
  }

  /**
   * Moves a segment file into the quarantine folder (CHECK DATABASE ... REPAIR): kept there
   * first, then unlisted from the manifest, then unlinked here, so that a crash at any point
   * leaves it either listed or in the quarantine folder (an unlisted copy here is removed at the
   * next start). Its rows are no longer served. Returns the quarantined name.
   */
  async quarantineSegment(slot: SegmentSlot): Promise<string> {
    const path = this.segmentPath(slot.record.fileId);
    const kept = await this.env.quarantine.keepFile(path);
    await this.commit({ remove: [slot], require: [slot] });
    await this.segmentStore.remove(path);
    await this.segmentStore.syncDir(this.segDir);
    this.env.quarantine.counts.quarantinedSegmentFiles++;
    this.last.clear(); // last points may have come from it (the series lists follow the view)
    this.log.warn(
      { db: this.def.name, file: this.env.quarantine.name(path), movedTo: kept, rows: slot.record.rows },
      'moved a damaged segment file to the quarantine folder; its rows are no longer served',
    );
    return kept;
  }

  /** A file id for a new segment (persisted with the next manifest). */
  allocateFileId(): number {
    return this.nextFileId++;
  }

  segmentPath(fileId: number): string {
    return join(this.segDir, segmentFileName(fileId));
  }

  syncSegmentDir(): Promise<void> {
    return this.segmentStore.syncDir(this.segDir);
  }

  trimWal(lsn: number): Promise<void> {
    return this.wal.removeSegmentsBefore(lsn);
  }

  /** Opens a segment this database just wrote; `keys` as SegmentWriter.finish returned them. */
  async openSegment(record: SegmentRecord, keys?: readonly string[]): Promise<SegmentSlot> {
    const reader = await SegmentReader.open(
      this.segmentStore,
      this.segmentPath(record.fileId),
      record.fileId,
      this.env.codecs,
      this.env.cache,
      keys,
      this.env.indexCache,
    );
    if (reader.meta.rows !== record.rows)
      throw bug(`segment ${record.fileId} reads back ${reader.meta.rows} rows, wrote ${record.rows}`);
    return { record, reader };
  }
}

/**
 * The tombstones some source still needs: a segment or frozen memtable whose rows may be older
 * than the delete (cleanLsn below its LSN) and whose time range it touches.
 */
function liveTombstones(
  all: readonly Tombstone[],
  slots: readonly SegmentSlot[],
  frozen: readonly Memtable[],
): Tombstone[] {
  return all.filter(
    (t) =>
      frozen.some((m) => m.cleanLsn < t.lsn) ||
      slots.some((s) => s.record.cleanLsn < t.lsn && s.record.minTs <= t.maxTs && t.minTs <= s.record.maxTs),
  );
}
