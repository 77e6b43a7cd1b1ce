// `sundial check --data-dir DIR` (docs/durability.md): the storage's offline check of a data
// directory (storage/offline-check.ts) with the Wasm codecs loaded; the storage's own log lines
// (a quarantined file) are left out, as the report names every action.

import { resolve } from 'node:path';
import { pino } from 'pino';
import { Core } from '../core/wasm.js';
import { checkDataDir, type DataDirCheck, storageCodecs } from '../storage/index.js';
import { coreWasmBytes } from './package-info.js';

export type { DataDirCheck };

export async function checkDataDirectory(dataDir: string, repair: boolean): Promise<DataDirCheck> {
  const core = await Core.load(coreWasmBytes());
  return checkDataDir(resolve(dataDir), storageCodecs(core), repair, pino({ level: 'silent' }));
}
