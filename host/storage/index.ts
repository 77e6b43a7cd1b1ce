// The storage engine as the rest of host/ sees it. The catalog itself is host/meta's; storage
// keeps only its file (catalog-file.ts), which storage.ts opens and the catalog tests import.

export {
  DataDirLockedError,
  type DirLock,
  faultPointArmed,
  isNoSpace,
  lockDataDir,
  NO_SPACE_MESSAGE,
  NO_SPACE_RETRY_S,
} from './fs/index.js';
export { storageCodecs } from './segment/index.js';
export { type SkippedFiles, Storage } from './storage.js';
export type { ExportRange } from './export.js';
export { decodeExport, EXPORT_MEDIA_TYPE, EXPORT_VERSION, type ExportSchema } from './segment/export-format.js';
export type { Checkpoint, CheckpointDatabase, CheckpointFile, CheckpointFileKind } from './checkpoint.js';
export { checkDataDir, type DataDirCheck } from './offline-check.js';
