// Background work on the segment set: flush (memtable to files) and compaction (files merged),
// in time slices on the storage's thread or on a compaction thread of its own.

export { compact, planCompaction } from './compaction.js';
export { type CompactionThreadOptions, Compactor } from './compactor.js';
export { flushMemtable } from './flush.js';
