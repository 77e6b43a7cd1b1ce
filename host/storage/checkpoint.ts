// A backup's checkpoint of the data directory (docs/backup.md): the catalog and every database's
// manifest as they are at one instant, the segment files those manifests list, and each WAL from
// the manifest's flushedLsn up to its last durable record. Taken synchronously, so that every
// database is cut at the same instant; the files are held (segment readers acquired, WAL trims
// put off) until `release`, so the flushes, compactions and trims that go on meanwhile delete
// nothing a backup still copies. A restore starts a server on the copy, which replays the WAL tail.

import { open } from 'node:fs/promises';
import { bug } from '../core/errors.js';
import type { DatabaseStore } from './database.js';
import type { Quarantine } from './fs/index.js';
import { encodeManifest, type SegmentFileReader, TRAILER_BYTES } from './segment/index.js';

/** Bytes read at a time when a file is copied out. */
const CHUNK_BYTES = 1024 * 1024;

export type CheckpointFileKind = 'catalog' | 'manifest' | 'segment' | 'wal';

export interface CheckpointFile {
  /** The file's path relative to the data directory, with `/`. */
  readonly path: string;
  readonly kind: CheckpointFileKind;
  /**
   * How a later backup knows it already holds this very file: for a segment file (immutable
   * once written) its trailer as hex, which carries the CRCs of its index and so of every block;
   * undefined for the others, which are always copied.
   */
  identity(): Promise<string | undefined>;
  /** The file's size in the checkpoint and its bytes, in chunks the caller may keep. */
  open(): Promise<{ size: number; chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> }>;
}

/** Where the checkpoint cut a database: every record up to `lsn` is in the copy, none after it. */
export interface CheckpointDatabase {
  id: number;
  tenant: string;
  name: string;
  lsn: number;
  flushedLsn: number;
}

export interface Checkpoint {
  readonly databases: readonly CheckpointDatabase[];
  readonly files: readonly CheckpointFile[];
  /** Lets the files go (idempotent). Reading a file after it is a bug. */
  release(): void;
}

function textFile(path: string, kind: CheckpointFileKind, text: string): CheckpointFile {
  const bytes = new TextEncoder().encode(text);
  return {
    path,
    kind,
    identity: async () => undefined,
    open: async () => ({ size: bytes.length, chunks: [bytes] }),
  };
}

async function* readerChunks(
  read: (position: number, length: number) => Promise<Uint8Array>,
  size: number,
): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < size; at += CHUNK_BYTES) yield await read(at, Math.min(CHUNK_BYTES, size - at));
}

/** `dbs` at this instant; `catalogText` the catalog's document at the same instant. */
export function takeCheckpoint(catalogText: string, dbs: readonly DatabaseStore[], names: Quarantine): Checkpoint {
  const files: CheckpointFile[] = [textFile('catalog.json', 'catalog', catalogText)];
  const databases: CheckpointDatabase[] = [];
  const releases: Array<() => void> = [];
  let released = false;
  const live = (): void => {
    if (released) throw bug('a checkpoint file read after the checkpoint was released');
  };
  for (const db of dbs) {
    const hold = db.wal.hold(db.flushedLsn);
    releases.push(hold.release);
    databases.push({
      id: db.def.id,
      tenant: db.def.tenant,
      name: db.def.name,
      lsn: hold.lastLsn,
      flushedLsn: db.flushedLsn,
    });
    const manifest = encodeManifest({
      flushedLsn: db.flushedLsn,
      nextFileId: db.nextFileId,
      expiredBefore: db.expiredBefore,
      segments: db.slots.map((s) => s.record),
      tombstones: db.tombstones,
    });
    files.push(textFile(`db/${db.def.id}/manifest.json`, 'manifest', manifest));
    for (const slot of db.slots) {
      const path = db.segmentPath(slot.record.fileId);
      const reader = slot.reader;
      if (reader !== undefined) {
        reader.acquire();
        releases.push(() => reader.release());
        files.push({
          path: names.name(path),
          kind: 'segment',
          identity: async () => (
            live(), Buffer.from(await reader.readBytes(reader.bytes - TRAILER_BYTES, TRAILER_BYTES)).toString('hex')
          ),
          open: async () => (
            live(), { size: reader.bytes, chunks: readerChunks((at, n) => reader.readBytes(at, n), reader.bytes) }
          ),
        });
      } else {
        // Damaged at open (no reader): copied as it is, opened anew (compaction leaves it alone).
        const store = db.segmentStore;
        const withFile = async <T>(f: (file: SegmentFileReader) => Promise<T>): Promise<T> => {
          live();
          const file = await store.openRead(path);
          try {
            return await f(file);
          } finally {
            await file.close();
          }
        };
        files.push({
          path: names.name(path),
          kind: 'segment',
          identity: () =>
            withFile(async (f) =>
              f.size < TRAILER_BYTES
                ? undefined
                : Buffer.from(await f.read(f.size - TRAILER_BYTES, TRAILER_BYTES)).toString('hex'),
            ),
          open: async () => {
            const bytes = await withFile(async (f) => f.read(0, f.size));
            return { size: bytes.length, chunks: [bytes] };
          },
        });
      }
    }
    for (const seg of hold.segments) files.push(walFile(names.name(seg.path), seg.path, seg.bytes, live));
  }
  return {
    databases,
    files,
    release: () => {
      if (released) return;
      released = true;
      for (const r of releases) r();
    },
  };
}

/** A WAL segment up to `bytes` (undefined: all of it, a closed segment). */
function walFile(name: string, path: string, bytes: number | undefined, live: () => void): CheckpointFile {
  return {
    path: name,
    kind: 'wal',
    identity: async () => undefined,
    open: async () => {
      live();
      const fh = await open(path, 'r');
      let size: number;
      try {
        size = Math.min(bytes ?? Infinity, (await fh.stat()).size);
      } catch (e) {
        await fh.close();
        throw e;
      }
      async function* chunks(): AsyncGenerator<Uint8Array> {
        try {
          yield* readerChunks(async (at, n) => {
            const out = new Uint8Array(n);
            let got = 0;
            while (got < n) {
              const { bytesRead } = await fh.read(out, got, n - got, at + got);
              if (bytesRead === 0) throw new Error(`${name} ends after ${at + got} bytes, ${n - got} more wanted`);
              got += bytesRead;
            }
            return out;
          }, size);
        } finally {
          await fh.close();
        }
      }
      return { size, chunks: chunks() };
    },
  };
}
