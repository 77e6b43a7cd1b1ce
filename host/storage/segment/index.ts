// Segment files (FORMAT.md §5) and the manifest that lists them (§6): layout, index, writer,
// reader and its block cache, column codecs, time partitions, and the segment set of a database.

export { BlockCache } from './block-cache.js';
export { storageCodecs } from './codecs.js';
export type { ColumnCodecs } from './column-codecs.js';
export {
  cleanupManifest,
  encodeManifest,
  loadManifest,
  ManifestNotSaved,
  type ManifestState,
  saveManifest,
  segmentFileName,
  segmentRecord,
  type SegmentRecord,
  type Tombstone,
} from './manifest.js';
export {
  partitionOverflows,
  partitionStart,
  partitionUnits,
  retentionCutoff,
  unitsPerSecond,
  vnodeUnits,
} from './partition.js';
export {
  PACK_SERIES_ROWS,
  type RowGroup,
  TRAILER_BYTES,
  type SegmentMeta,
  type SeriesColumn,
  type SeriesEntry,
} from './segment-format.js';
export { type CachedBlock, segmentDisplayName, SegmentReader, type SegmentSeries } from './segment-reader.js';
export { MemorySegmentStore } from './memory-segment-store.js';
export { nodeSegmentStore } from './node-segment-store.js';
export { type Change, type SegmentSet, type SegmentSlot, StaleChange } from './segment-set.js';
export type { SegmentFileReader, SegmentFileWriter, SegmentStore } from './segment-store.js';
export { SegmentWriter, type WriteColumn } from './segment-writer.js';
