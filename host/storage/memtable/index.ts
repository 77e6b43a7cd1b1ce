// The memtable: rows written since the last rotation, per table and series, in growable columns
// and shared row areas; frozen memtables are flushed (compaction/flush.ts).

export { Memtable, type SeriesBuffer, type TableMemtable, type TableStamp } from './memtable.js';
