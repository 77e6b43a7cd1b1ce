// The manifest of one database (FORMAT.md §6): which segment files hold its data, up to which
// WAL LSN that data reaches (the replay start), the tombstones of deletes, and the retention
// bound. One JSON document replaced atomically (temporary file, fsync, rename, fsync of the
// directory): a segment file exists before the manifest names it, and a manifest change is the
// single instant at which a flush or compaction takes effect.

import { CorruptionError } from '../../core/errors.js';
import { type FaultPoint, faultPoint } from '../fs/index.js';
import type { SegmentMeta } from './segment-format.js';
import type { SegmentStore } from './segment-store.js';

const FILE = 'manifest.json';
const FORMAT = 'sundial-manifest';
const VERSION = 1;

export interface SegmentRecord {
  fileId: number;
  /** 0 for a flush, 1 + the highest input level for a compaction output. */
  level: number;
  partitionStart: bigint;
  partitionEnd: bigint;
  minTs: bigint;
  maxTs: bigint;
  minLsn: number;
  maxLsn: number;
  /** Every delete with an LSN up to this one is applied to the file's rows. */
  cleanLsn: number;
  rows: number;
  bytes: number;
}

/** The manifest record of a new file, written out (not spread: see columnBlock in segment-format.ts). */
export function segmentRecord(fileId: number, level: number, meta: SegmentMeta, bytes: number): SegmentRecord {
  return {
    fileId,
    level,
    partitionStart: meta.partitionStart,
    partitionEnd: meta.partitionEnd,
    minTs: meta.minTs,
    maxTs: meta.maxTs,
    minLsn: meta.minLsn,
    maxLsn: meta.maxLsn,
    cleanLsn: meta.cleanLsn,
    rows: meta.rows,
    bytes,
  };
}

/** A DELETE: rows of a table with minTs <= time <= maxTs, in the listed series (null = all). */
export interface Tombstone {
  lsn: number;
  tableId: number;
  minTs: bigint;
  maxTs: bigint;
  series: string[] | null;
}

export interface ManifestState {
  /** Every WAL record up to this LSN is in the listed segments (replay starts after it). */
  flushedLsn: number;
  nextFileId: number;
  /** Rows before this time are expired (retention); null = nothing expired yet. */
  expiredBefore: bigint | null;
  segments: SegmentRecord[];
  tombstones: Tombstone[];
}

export const EMPTY_MANIFEST: Readonly<ManifestState> = {
  flushedLsn: 0,
  nextFileId: 1,
  expiredBefore: null,
  segments: [],
  tombstones: [],
};

export const segmentFileName = (fileId: number): string => String(fileId).padStart(12, '0') + '.seg';

/** Loads the manifest of the database in `dir`; a missing file is an empty database. */
export async function loadManifest(store: SegmentStore, dir: string): Promise<ManifestState> {
  const path = `${dir}/${FILE}`;
  const text = await store.readText(path);
  if (text === undefined) return structuredClone(EMPTY_MANIFEST) as ManifestState;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new CorruptionError(path, 0, `not valid JSON: ${(e as Error).message}`);
  }
  if (raw?.format !== FORMAT)
    throw new CorruptionError(path, 0, `format is ${JSON.stringify(raw?.format)}, want "${FORMAT}"`);
  if (raw.version !== VERSION)
    throw new CorruptionError(
      path,
      0,
      `unsupported manifest version ${String(raw.version)}, this server reads ${VERSION}`,
    );
  try {
    const segments = (raw.segments as Array<Record<string, unknown>>).map((s) => ({
      fileId: num(s.fileId),
      level: num(s.level),
      partitionStart: BigInt(s.partitionStart as string),
      partitionEnd: BigInt(s.partitionEnd as string),
      minTs: BigInt(s.minTs as string),
      maxTs: BigInt(s.maxTs as string),
      minLsn: num(s.minLsn),
      maxLsn: num(s.maxLsn),
      cleanLsn: num(s.cleanLsn),
      rows: num(s.rows),
      bytes: num(s.bytes),
    }));
    const tombstones = (raw.tombstones as Array<Record<string, unknown>>).map((t) => ({
      lsn: num(t.lsn),
      tableId: num(t.tableId),
      minTs: BigInt(t.minTs as string),
      maxTs: BigInt(t.maxTs as string),
      series: t.series === null ? null : (t.series as unknown[]).map(String),
    }));
    return {
      flushedLsn: num(raw.flushedLsn),
      nextFileId: num(raw.nextFileId),
      expiredBefore: raw.expiredBefore === null ? null : BigInt(raw.expiredBefore as string),
      segments,
      tombstones,
    };
  } catch (e) {
    throw new CorruptionError(path, 0, `malformed manifest: ${(e as Error).message}`);
  }
}

function num(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new Error(`expected a non-negative integer, found ${JSON.stringify(v)}`);
  return v;
}

/**
 * A save that failed before the new manifest replaced the old one (a full disk while writing the
 * temporary file): the old manifest stands, so files written for the change may be deleted. Any
 * other failure of a save leaves it unknown which manifest a restart reads.
 */
export class ManifestNotSaved extends Error {
  override readonly name = 'ManifestNotSaved';
}

/** The manifest document of `state`, as `saveManifest` writes it (a backup's checkpoint copies it too). */
export function encodeManifest(state: ManifestState): string {
  const doc = {
    format: FORMAT,
    version: VERSION,
    flushedLsn: state.flushedLsn,
    nextFileId: state.nextFileId,
    expiredBefore: state.expiredBefore === null ? null : String(state.expiredBefore),
    segments: state.segments.map((s) => ({
      ...s,
      partitionStart: String(s.partitionStart),
      partitionEnd: String(s.partitionEnd),
      minTs: String(s.minTs),
      maxTs: String(s.maxTs),
    })),
    tombstones: state.tombstones.map((t) => ({ ...t, minTs: String(t.minTs), maxTs: String(t.maxTs) })),
  };
  return JSON.stringify(doc) + '\n';
}

/** Replaces the manifest in `dir` atomically; on return the new state is durable. `fault`: the crash-test point between the fsync and the rename. */
export async function saveManifest(
  store: SegmentStore,
  dir: string,
  state: ManifestState,
  fault?: FaultPoint,
): Promise<void> {
  const path = `${dir}/${FILE}`;
  const tmp = path + '.tmp';
  try {
    const file = await store.create(tmp);
    try {
      await file.write([new TextEncoder().encode(encodeManifest(state))], 0);
      await file.sync();
    } finally {
      await file.close();
    }
    if (fault !== undefined) faultPoint(fault);
    await store.rename(tmp, path);
  } catch (e) {
    await store.remove(tmp).catch(() => undefined);
    throw new ManifestNotSaved(`saving ${path} failed: ${(e as Error).message}`, { cause: e });
  }
  await store.syncDir(dir);
}

/** Removes a leftover temporary manifest of an interrupted save. */
export async function cleanupManifest(store: SegmentStore, dir: string): Promise<void> {
  await store.remove(`${dir}/${FILE}.tmp`).catch(() => undefined);
}
