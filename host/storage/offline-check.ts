// `sundial check --data-dir DIR`: every checksum of a data directory no server has open — the
// catalog (it has no checksum: it must parse and pass the catalog reader's checks), each
// database's manifest, every block, index and trailer of every segment file it lists, every WAL
// record — with the same checks CHECK DATABASE runs on a live server (SegmentReader.verify,
// wal verifySegments), reported as the same rows, files named relative to the data directory.
// Read-only unless `repair`: then a damaged or missing segment file is moved to the quarantine
// folder and unlisted, in the order CHECK DATABASE ... REPAIR uses (kept, unlisted, unlinked), so
// that the rest serves. Damaged WAL bytes are left to the next start, whose replay skips them,
// quarantines them and retires the segment (FORMAT.md §2); a damaged catalog cannot be repaired.

import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { StoredFileProblem } from '../core/check.js';
import { CorruptionError } from '../core/errors.js';
import { CatalogStore } from '../meta/index.js';
import { catalogFile } from './catalog-file.js';
import { fsyncDir, Quarantine } from './fs/index.js';
import {
  BlockCache,
  type CachedBlock,
  type ColumnCodecs,
  loadManifest,
  nodeSegmentStore,
  saveManifest,
  segmentFileName,
  SegmentReader,
  type SegmentRecord,
} from './segment/index.js';
import { listSegments, nodeWalFiles, verifySegments } from './wal/index.js';

export interface DataDirCheck {
  problems: StoredFileProblem[];
  /** What was read: databases, segment files, WAL segments. */
  databases: number;
  segmentFiles: number;
  walSegments: number;
}

const WAL_REPAIR =
  'left for the next start, which replays every intact record around it and moves the damaged bytes to quarantine/';

async function isDir(path: string): Promise<boolean> {
  return readdir(path).then(
    () => true,
    () => false,
  );
}

export async function checkDataDir(
  dataDir: string,
  codecs: ColumnCodecs,
  repair: boolean,
  logger: Logger,
): Promise<DataDirCheck> {
  const q = new Quarantine(dataDir, logger);
  const out: DataDirCheck = { problems: [], databases: 0, segmentFiles: 0, walSegments: 0 };
  const problem = (file: string, offset: number | null, text: string, action = ''): void => {
    out.problems.push({ file, offset, problem: text, action });
  };

  // The catalog: no checksum, but a damaged one does not parse or fails the reader's checks.
  const file = catalogFile(dataDir);
  const text = await file.read();
  if (text === undefined)
    problem(
      'catalog.json',
      null,
      'missing: a server would start with a new, empty catalog',
      repair ? 'not repaired: restore it from a backup' : '',
    );
  else {
    const readOnly = { ...file, replace: async () => undefined, cleanup: async () => undefined };
    await CatalogStore.open(readOnly, { rootPasswordHash: '' }).catch((e: unknown) => {
      if (!(e instanceof CorruptionError)) throw e;
      problem('catalog.json', e.offset, e.check, repair ? 'not repaired: restore it from a backup' : '');
    });
  }

  const cache = new BlockCache<CachedBlock>(16 * 1024 * 1024);
  const dbRoot = join(dataDir, 'db');
  const ids = (await readdir(dbRoot).catch(() => [] as string[]))
    .filter((n) => /^\d+$/.test(n))
    .sort((a, b) => Number(a) - Number(b));
  for (const id of ids) {
    const dir = join(dbRoot, id);
    if (!(await isDir(dir))) continue;
    out.databases++;
    let manifest: Awaited<ReturnType<typeof loadManifest>> | undefined;
    try {
      manifest = await loadManifest(nodeSegmentStore, dir);
    } catch (e) {
      if (!(e instanceof CorruptionError)) throw e;
      problem(
        q.name(join(dir, 'manifest.json')),
        e.offset,
        e.check,
        repair ? 'not repaired: restore it from a backup' : '',
      );
    }
    const damaged: SegmentRecord[] = [];
    for (const record of manifest?.segments ?? []) {
      const path = join(dir, 'seg', segmentFileName(record.fileId));
      const name = q.name(path);
      out.segmentFiles++;
      let found: Array<{ offset: number | null; problem: string }>;
      try {
        const reader = await SegmentReader.open(nodeSegmentStore, path, record.fileId, codecs, cache);
        try {
          found = (await reader.verify()).map((e) => ({ offset: e.offset, problem: e.check }));
        } finally {
          reader.retire();
        }
      } catch (e) {
        if (e instanceof CorruptionError) found = [{ offset: e.offset, problem: e.check }];
        else if ((e as NodeJS.ErrnoException).code === 'ENOENT')
          found = [{ offset: null, problem: 'missing: the manifest lists it' }];
        else throw e;
      }
      if (found.length === 0) continue;
      damaged.push(record);
      const first = out.problems.length;
      for (const f of found) problem(name, f.offset, f.problem);
      if (repair) {
        let action: string;
        try {
          const missing = found[0]!.problem.startsWith('missing');
          action = missing
            ? `unlisted from the manifest; its ${record.rows} rows are lost`
            : `moved to ${await q.keepFile(path)}; its ${record.rows} rows are no longer served`;
        } catch (e) {
          action = `not repaired: ${(e as Error).message}`;
          damaged.pop();
        }
        for (let i = first; i < out.problems.length; i++) out.problems[i]!.action = action;
      }
    }
    if (repair && damaged.length > 0 && manifest !== undefined) {
      // Unlisted only once kept in quarantine/, unlinked only once unlisted.
      await saveManifest(nodeSegmentStore, dir, {
        ...manifest,
        segments: manifest.segments.filter((s) => !damaged.includes(s)),
      });
      for (const r of damaged) await unlink(join(dir, 'seg', segmentFileName(r.fileId))).catch(() => undefined);
      await fsyncDir(join(dir, 'seg')).catch(() => undefined);
    }
    // A database whose WAL is in NATS JetStream (server.cluster.nats_urls) has no wal/ folder.
    const segments = await listSegments(nodeWalFiles, join(dir, 'wal')).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [];
      throw e;
    });
    out.walSegments += segments.length;
    for (const p of await verifySegments(nodeWalFiles, segments, undefined, (path) => q.name(path)))
      problem(p.file, p.offset, p.problem, repair ? WAL_REPAIR : '');
  }
  return out;
}
