// The write-ahead log (FORMAT.md §2): segment files of records with group commit, the scan that
// tells intact records from damage, record payloads, and the replay of stamped writes after DDL.

export { MemoryWalFiles } from './memory-wal-files.js';
export { nodeWalFiles } from './node-wal-files.js';
export { listSegments, verifySegments, Wal } from './wal.js';
export {
  type ReplayFn,
  type ReplayReport,
  type VnodeSplit,
  WalFailure,
  type WalHold,
  type WalProblem,
  type WriteLog,
} from './write-log.js';
export type { WalFile, WalFiles } from './wal-files.js';
export { decodeDelete, decodeStampedWrite, encodeDelete, encodeStampedWrite, splitBatches } from './wal-payloads.js';
export { RecordType } from './wal-record.js';
export { reconcileStamps } from './wal-replay.js';
