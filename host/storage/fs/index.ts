// The data directory's files as the storage layers share them: durable-write helpers and modes,
// fault injection for the crash tests, the quarantine of damaged data, and the full-disk test.

export { failurePoint, faultPoint, type FaultPoint, faultPointArmed } from './fault-points.js';
export { DataDirLockedError, type DirLock, LOCK_FILE, lockDataDir } from './dir-lock.js';
export { DIR_MODE, FILE_MODE, fsyncDir, writeAllAt } from './fs-util.js';
export { isNoSpace, NO_SPACE_MESSAGE, NO_SPACE_RETRY_S } from './no-space.js';
export { type FaultCounts, Quarantine } from './quarantine.js';
