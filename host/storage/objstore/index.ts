// The object store tier (storage.object_store): segment files in an S3-compatible bucket, the
// local disk as their bounded cache. A SegmentStore, so flush, compaction and reads are unchanged.

export { ObjectSegmentStore, type ObjectStoreOptions } from './object-segment-store.js';
export { ObjectStoreError } from './s3-bucket.js';
