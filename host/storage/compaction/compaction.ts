// Compaction: merges segment files of one time partition into one (FORMAT.md §6), deduplicating
// the same series and time (the newer file wins, field by field), applying tombstones, and
// dropping data of dropped tables and columns and of expired time.
//
// Which files: tiered. A flush writes level 0; merging files makes a file one level above the
// highest input. When `fanIn` files of the same level follow each other in the partition's LSN
// order, they are merged. Only runs that are contiguous in LSN order among every file
// overlapping their time range are merged, so the merged file keeps a well-defined age relative
// to the others (what makes last-write-wins across files sound). A lone file holding deleted,
// dropped or expired rows is rewritten without them. `full` merges every partition down to one
// file (tests, benchmarks).
//
// Steps: write the new file (temporary name, fsync, rename; compact:segment-*), fsync the
// directory, save the manifest listing it instead of the inputs (compact:manifest-saved),
// delete the inputs (compact:inputs-deleted). A crash before the manifest leaves an unlisted
// file; after it, unlisted inputs; the next start deletes either.

import { CorruptionError } from '../../core/errors.js';
import { tableById } from '../../meta/index.js';
import { faultPoint } from '../fs/index.js';
import { writeColumns } from './flush.js';
import {
  type ColumnCodecs,
  ManifestNotSaved,
  type SegmentMeta,
  segmentRecord,
  type SegmentRecord,
  type SegmentSet,
  type SegmentSlot,
  type SegmentStore,
  SegmentWriter,
  type SeriesEntry,
  StaleChange,
  type Tombstone,
  unitsPerSecond,
  type WriteColumn,
} from '../segment/index.js';
import { applicable, applyTombstones, mergeRows, tableTombstones, type TableTombstones } from '../read/index.js';
import { concatRows, sliceByTime, type PackSource, type SeriesRows } from '../series/index.js';
import { TimeSlicer } from './time-slice.js';

const partitionOf = (s: SegmentSlot): string => `${s.record.partitionStart}:${s.record.partitionEnd}`;

/** The next set of files to merge, or undefined. */
export function planCompaction(db: SegmentSet, fanIn: number, full: boolean): SegmentSlot[] | undefined {
  const groups = new Map<string, SegmentSlot[]>();
  for (const s of db.slots) {
    let g = groups.get(partitionOf(s));
    if (g === undefined) groups.set(partitionOf(s), (g = []));
    g.push(s);
  }
  for (const g of groups.values()) {
    // A file with a corrupt part: leave the partition alone (reads of its sound blocks go on).
    if (g.some((s) => s.reader === undefined || s.error !== undefined)) continue;
    const candidates: SegmentSlot[][] = [];
    if (full && g.length > 1) candidates.push(g);
    for (let i = 0; i < g.length; ) {
      let j = i + 1;
      while (j < g.length && g[j]!.record.level === g[i]!.record.level) j++;
      if (j - i >= fanIn) candidates.push(g.slice(i, j));
      i = j;
    }
    // Space held by deleted, dropped or expired rows comes back without waiting for merges.
    for (const s of g) if (needsCleanup(db, s)) candidates.push([s]);
    for (const run of candidates) if (isolated(db, run)) return run;
  }
  return undefined;
}

/** No file outside the run overlaps it in time with data written between the run's files. */
function isolated(db: SegmentSet, run: readonly SegmentSlot[]): boolean {
  const minLsn = run[0]!.record.minLsn;
  const maxLsn = run.at(-1)!.record.maxLsn;
  let minTs = run[0]!.record.minTs;
  let maxTs = run[0]!.record.maxTs;
  for (const s of run) {
    if (s.record.minTs < minTs) minTs = s.record.minTs;
    if (s.record.maxTs > maxTs) maxTs = s.record.maxTs;
  }
  return !db.slots.some(
    (s) =>
      !run.includes(s) &&
      s.record.maxLsn > minLsn &&
      s.record.minLsn < maxLsn &&
      s.record.minTs <= maxTs &&
      minTs <= s.record.maxTs,
  );
}

/**
 * A lone file worth rewriting: tombstones still hide rows in it, or it holds dropped tables or
 * columns, or expired rows. The answer "no" is remembered until the catalog, the tombstones or
 * the retention bound change, so the once-a-second planning costs O(files), not O(series).
 */
function needsCleanup(db: SegmentSet, s: SegmentSlot): boolean {
  const state = `${db.catalogVersion}/${db.tombstones.length}/${db.tombstones.at(-1)?.lsn}/${db.expiredBefore}`;
  if (s.cleanAt === state) return false;
  const dirty = isDirty(db, s);
  if (!dirty) s.cleanAt = state;
  return dirty;
}

function isDirty(db: SegmentSet, s: SegmentSlot): boolean {
  const r = s.record;
  if (db.tombstones.some((t) => t.lsn > r.cleanLsn && t.minTs <= r.maxTs && r.minTs <= t.maxTs)) return true;
  if (db.expiredBefore !== null && r.minTs < db.expiredBefore) return true;
  for (const tableId of s.reader!.tableIds()) {
    const table = tableById(db.def, tableId);
    if (table === undefined) return true;
    const live = new Set(table.fields.map((c) => c.id));
    if (s.reader!.columnIds(tableId).some((id) => !live.has(id))) return true;
  }
  return false;
}

/**
 * The rows of a series that only one input holds (`entry` of `input`), in a pack, none of them
 * expired, as a source that copies them from that pack into the output's: the common series of
 * high-cardinality data (a span each), which the general path read, sliced, merged and copied
 * row by row (63 µs a span for a compaction of two files against 14 for the flush). Undefined
 * for any other series, or one a tombstone applies to. A promise only when a pack must be
 * decoded first.
 */
function onlyPacked(
  input: SegmentSlot,
  entry: SeriesEntry,
  ids: readonly number[],
  tombs: readonly TableTombstones[],
  expiredBefore: bigint | null,
): PackSource | undefined | Promise<PackSource | undefined> {
  if (entry.groups.length !== 1) return undefined;
  const group = entry.groups[0]!;
  if (group.pack === undefined || (expiredBefore !== null && entry.minTs < expiredBefore)) return undefined;
  if (tombs.length > 0 && applicable(tombs, entry.key, input.record.cleanLsn, entry.minTs, entry.maxTs).length > 0)
    return undefined;
  const reader = input.reader!;
  const source = reader.packSource(entry, group, ids);
  if (source !== undefined) return source;
  return reader.loadPack(group, ids).then(() => reader.packSource(entry, group, ids));
}

/**
 * Walks the series of one table in several inputs at once, in key order (each input lists them
 * so, as its writer wrote them): a k-way merge, where collecting every key in a set, sorting it
 * and looking each up in every input cost as much as the copying for a compaction of spans.
 * Exported for its test.
 */
export class SeriesMerge {
  readonly #lists: ReadonlyArray<readonly SeriesEntry[]>;
  readonly #at: Int32Array;
  readonly #inputs: readonly SegmentSlot[];
  /** The current key's entry in each input, or undefined. */
  readonly entries: Array<SeriesEntry | undefined>;
  key = '';
  /** How many inputs hold the current key, and the last of them. */
  count = 0;
  last = -1;

  /** The merge of a table's series of `inputs` (their index blocks read without the index cache). */
  static async of(inputs: readonly SegmentSlot[], tableId: number): Promise<SeriesMerge> {
    return new SeriesMerge(inputs, await Promise.all(inputs.map((s) => s.reader!.tableSeries(tableId, false))));
  }

  constructor(inputs: readonly SegmentSlot[], lists: ReadonlyArray<readonly SeriesEntry[]>) {
    this.#inputs = inputs;
    this.#lists = lists;
    this.#at = new Int32Array(inputs.length);
    this.entries = new Array<SeriesEntry | undefined>(inputs.length);
  }

  /** Moves to the next key; false when every input is done. */
  next(): boolean {
    let key: string | undefined;
    for (let i = 0; i < this.#lists.length; i++) {
      const e = this.#lists[i]![this.#at[i]!];
      if (e !== undefined && (key === undefined || e.key < key)) key = e.key;
    }
    if (key === undefined) return false;
    this.key = key;
    this.count = 0;
    for (let i = 0; i < this.#lists.length; i++) {
      const list = this.#lists[i]!;
      const e = list[this.#at[i]!];
      if (e === undefined || e.key !== key) {
        this.entries[i] = undefined;
        continue;
      }
      const after = list[++this.#at[i]!];
      if (after !== undefined && after.key <= key)
        throw new CorruptionError(
          this.#inputs[i]!.reader!.name,
          0,
          `index: series '${after.key}' after '${key}', not in key order`,
        );
      this.entries[i] = e;
      this.count++;
      this.last = i;
    }
    return true;
  }
}

/**
 * The rows of one series from every input that holds it (`entries`, by input), tombstones and
 * retention applied, merged (the newer input wins a time, field by field).
 */
async function mergedRows(
  inputs: readonly SegmentSlot[],
  entries: ReadonlyArray<SeriesEntry | undefined>,
  key: string,
  ids: readonly number[],
  tombs: readonly TableTombstones[],
  expiredBefore: bigint | null,
): Promise<SeriesRows> {
  const parts: SeriesRows[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const s = inputs[i]!;
    const entry = entries[i];
    if (entry === undefined) continue;
    const groups: SeriesRows[] = [];
    for (const g of entry.groups) groups.push(await s.reader!.readRows(entry, g, ids, false));
    let rows = concatRows(groups, ids);
    rows = applyTombstones(rows, applicable(tombs, key, s.record.cleanLsn, entry.minTs, entry.maxTs));
    if (expiredBefore !== null) rows = sliceByTime(rows, expiredBefore, undefined);
    parts.push(rows);
  }
  return parts.length === 1 ? parts[0]! : mergeRows(parts, ids);
}

/**
 * What writing a compaction's file needs, as plain data: a compaction thread (compactor.ts) gets
 * it in a message and opens the inputs itself.
 */
export interface CompactionJob {
  /** The inputs, in LSN order: their records and paths. */
  inputs: Array<{ record: SegmentRecord; path: string }>;
  /** The live tables among the inputs' (dropped ones are left out), by id. */
  tables: Array<{ id: number; columns: WriteColumn[]; timeCodec: string }>;
  tombstones: Tombstone[];
  expiredBefore: bigint | null;
  /** The file to write, its id, and the database precision's units per second (page-stats.ts). */
  path: string;
  fileId: number;
  unitsPerSecond: bigint;
}

/** Where a compaction's file can be written off the storage's thread: Compactor (compactor.ts). */
export interface CompactionThread {
  /** False once the thread failed to start: compactions then run on the storage's thread. */
  readonly available: boolean;
  run(job: CompactionJob): Promise<CompactionOutput | undefined>;
}

/** The written file: what its manifest record and reader need. */
export interface CompactionOutput {
  meta: SegmentMeta;
  bytes: number;
  keys: readonly string[];
}

/** A job for merging `inputs` of `db` into file `fileId`, with the catalog, tombstones and retention of now. */
export function compactionJob(db: SegmentSet, inputs: readonly SegmentSlot[], fileId: number): CompactionJob {
  const tableIds = new Set<number>();
  for (const s of inputs) for (const tableId of s.reader!.tableIds()) tableIds.add(tableId);
  const tables: CompactionJob['tables'] = [];
  for (const id of [...tableIds].sort((a, b) => a - b)) {
    const table = tableById(db.def, id);
    if (table !== undefined) tables.push({ id, columns: writeColumns(table), timeCodec: table.timeCodec });
  }
  return {
    inputs: inputs.map((s) => ({ record: s.record, path: s.reader!.path })),
    tables,
    tombstones: [...db.tombstones],
    expiredBefore: db.expiredBefore,
    path: db.segmentPath(fileId),
    fileId,
    unitsPerSecond: unitsPerSecond(db.def.options.precision),
  };
}

/**
 * Writes the merged file of a job from the inputs' open readers (`inputs`, the job's order);
 * undefined, with nothing left behind, when every row was deleted, dropped or expired. `check`
 * is called between series and may throw to abandon the file (a database closing); `step` is
 * awaited between blocks and series when it returns a promise (time-slice.ts).
 */
export async function writeCompaction(
  store: SegmentStore,
  job: CompactionJob,
  inputs: readonly SegmentSlot[],
  codecs: ColumnCodecs,
  check: () => void = () => undefined,
  step: () => Promise<void> | undefined = () => undefined,
): Promise<CompactionOutput | undefined> {
  const tombs = job.tombstones;
  const maxTomb = tombs.reduce((n, t) => Math.max(n, t.lsn), 0);
  const w = await SegmentWriter.create(store, job.path, job.fileId, codecs, step, job.unitsPerSecond);
  try {
    for (const table of job.tables) {
      const { columns } = table;
      const ids = columns.map((c) => c.id);
      const ttombs = tableTombstones(tombs, table.id);
      const merge = await SeriesMerge.of(inputs, table.id);
      while (merge.next()) {
        check();
        const key = merge.key;
        let packed =
          merge.count === 1
            ? onlyPacked(inputs[merge.last]!, merge.entries[merge.last]!, ids, ttombs, job.expiredBefore)
            : undefined;
        if (packed instanceof Promise) packed = await packed;
        const rows = packed ?? (await mergedRows(inputs, merge.entries, key, ids, ttombs, job.expiredBefore));
        if (rows.length > 0) {
          const adding = w.addSeries(table.id, key, rows, columns, table.timeCodec);
          if (adding !== undefined) await adding;
        }
        const turn = step();
        if (turn !== undefined) await turn;
      }
    }
    if (w.seriesCount === 0) {
      await w.abort(); // everything was deleted or dropped
      return undefined;
    }
    const records = job.inputs.map((i) => i.record);
    return await w.finish(
      {
        partitionStart: records[0]!.partitionStart,
        partitionEnd: records[0]!.partitionEnd,
        minLsn: Math.min(...records.map((r) => r.minLsn)),
        maxLsn: Math.max(...records.map((r) => r.maxLsn)),
        cleanLsn: Math.max(maxTomb, ...records.map((r) => r.cleanLsn)),
      },
      { written: 'compact:segment-written', renamed: 'compact:segment-renamed' },
    );
  } catch (e) {
    await w.abort();
    throw e;
  }
}

/**
 * Merges `inputs` (one partition, LSN order) into one file and swaps it in. The file is written
 * on the compaction thread when the storage has one (`compactor`), else here between requests.
 */
export async function compact(
  db: SegmentSet,
  inputs: readonly SegmentSlot[],
  compactor: CompactionThread | undefined,
): Promise<void> {
  const started = performance.now();
  db.log.info({ db: db.def.name, inputs: inputs.map((s) => s.record.fileId) }, 'compacting');
  const fileId = db.allocateFileId();
  const job = compactionJob(db, inputs, fileId);
  const closing = (): void => {
    if (db.closing) throw new StaleChange(`database ${db.def.name} is closing`);
  };
  let slot: SegmentSlot | undefined;
  let committing = false;
  try {
    let out: CompactionOutput | undefined;
    if (compactor?.available === true) {
      out = await compactor.run(job);
      closing();
    } else {
      const slicer = new TimeSlicer();
      out = await writeCompaction(db.segmentStore, job, inputs, db.codecs, closing, () => slicer.step());
    }
    if (out !== undefined) {
      await db.syncSegmentDir();
      const { meta, bytes, keys } = out;
      slot = await db.openSegment(
        segmentRecord(fileId, Math.max(...inputs.map((s) => s.record.level)) + 1, meta, bytes),
        keys,
      );
    }
    committing = true;
    await db.commit({ add: slot ? [slot] : [], remove: inputs, require: inputs, fault: 'compact:manifest-temp' });
  } catch (e) {
    // Before the manifest names the new file it is ours to delete; if saving the manifest
    // failed midway it may be named, and the next start sorts it out.
    if (!committing || e instanceof StaleChange || e instanceof ManifestNotSaved) {
      slot?.reader?.retire();
      await db.segmentStore.remove(db.segmentPath(fileId)).catch(() => undefined);
    }
    if (e instanceof StaleChange) return;
    if (e instanceof CorruptionError) db.markDamaged(e);
    throw e;
  }
  faultPoint('compact:manifest-saved');
  for (const s of inputs) await db.segmentStore.remove(db.segmentPath(s.record.fileId)).catch(() => undefined);
  await db.syncSegmentDir();
  faultPoint('compact:inputs-deleted');
  db.log.info(
    {
      db: db.def.name,
      inputs: inputs.map((s) => s.record.fileId),
      output: slot?.record.fileId,
      rows: slot?.record.rows ?? 0,
      bytes: slot?.record.bytes ?? 0,
      thread: compactor?.available === true,
      ms: Math.round(performance.now() - started),
    },
    'compacted',
  );
}
