// `sundial check --data-dir DIR` (docs/durability.md): the storage's offline check of a data
// directory (storage/offline-check.ts) with the Wasm codecs loaded, under the directory's lock (a
// running server's directory is refused); the storage's own log lines (a quarantined file) are
// left out, as the report names every action.

import { resolve } from 'node:path';
import { pino } from 'pino';
import { Core } from '../core/wasm.js';
import { checkDataDir, type DataDirCheck, lockDataDir, storageCodecs } from '../storage/index.js';
import { coreWasmBytes } from './package-info.js';

export type { DataDirCheck };

/** Throws DataDirLockedError while a server or library-mode program has the directory open. */
export async function checkDataDirectory(dataDir: string, repair: boolean): Promise<DataDirCheck> {
  const dir = resolve(dataDir);
  const lock = await lockDataDir(dir);
  try {
    const core = await Core.load(coreWasmBytes());
    return await checkDataDir(dir, storageCodecs(core), repair, pino({ level: 'silent' }));
  } finally {
    await lock.release();
  }
}
