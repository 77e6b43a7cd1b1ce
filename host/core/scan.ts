// The storage read path's unit, shared by the storage engine (which produces it) and the query
// engine (which consumes it); neither imports the other (DESIGN.md "Layout").

/** One field column of a series chunk. */
export interface ChunkColumn {
  /** DOUBLE: Float64Array, BIGINT: BigInt64Array, BIGINT UNSIGNED: BigUint64Array, BOOLEAN: Uint8Array (0/1), STRING: string[]. */
  values: Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];
  /** 1 = present; undefined when every row is present. */
  validity: Uint8Array | undefined;
}

/**
 * Consecutive rows of one series, sorted by time, without duplicate timestamps. The arrays are
 * shared read-only with the store: a consumer must not modify them, and may keep them. Every
 * array (time, values, validity) is exactly `length` long (subarray the store's buffers).
 */
export interface SeriesChunk {
  /** Tag name -> value; a tag the series lacks is NULL. */
  tags: ReadonlyMap<string, string>;
  length: number;
  /** Timestamps in the database precision. */
  time: BigInt64Array;
  /** The requested fields the chunk has; a requested field it lacks is NULL throughout. */
  fields: ReadonlyMap<string, ChunkColumn>;
}

export interface ScanRequest {
  /** Field columns to read (tags and time always come with the chunk). */
  fields: readonly string[];
  /** Inclusive time bounds in the database precision. */
  minTime?: bigint;
  maxTime?: bigint;
  /** Series to keep, decided on tag values alone (pushed-down tag predicates). */
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
}

/** Rows to delete (DELETE FROM): the series that pass the filter, within the time range. */
export interface DeleteRequest {
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
  /** Inclusive time bounds in the database precision; absent = unbounded. */
  minTime?: bigint;
  maxTime?: bigint;
}
