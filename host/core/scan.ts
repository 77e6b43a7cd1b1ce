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

/**
 * A tag a series must have one of `values` of (a `tag = 'v'` or `tag IN (...)` conjunct of the
 * series filter): it lets the store find the series in an index of the tag's values rather than
 * test every series (series-list.ts). A hint only narrows: the series filter still decides, so
 * every series the filter keeps must meet every hint of its request.
 */
export interface TagValues {
  tag: string;
  values: readonly string[];
}

/**
 * A test of one tag's value that every series the filter keeps passes, and that a series
 * without the tag fails (a `!=`, `NOT IN`, `LIKE` or regex conjunct of the series filter on
 * one tag): the store tests the tag's distinct values in its postings rather than every series
 * (series-postings.ts). Like TagValues, it only narrows.
 */
export interface TagTest {
  tag: string;
  test: (value: string) => boolean;
}

export interface ScanRequest {
  /** Field columns to read (tags and time always come with the chunk). */
  fields: readonly string[];
  /** Inclusive time bounds in the database precision. */
  minTime?: bigint;
  maxTime?: bigint;
  /** Series to keep, decided on tag values alone (pushed-down tag predicates). */
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
  /** Tag values every series `seriesFilter` keeps has (TagValues). */
  seriesTags?: readonly TagValues[];
  /** Tests of one tag each that every series `seriesFilter` keeps passes (TagTest). */
  seriesTagTests?: readonly TagTest[];
  /**
   * Inclusive value bounds from WHERE, all of which a row must meet (a NULL meets none). Stored
   * blocks that certainly hold no such row (by their min/max statistics) are left out; the
   * caller still filters the rows it gets. Bounds are numbers for DOUBLE, bigints otherwise.
   */
  valueBounds?: ReadonlyArray<{ field: string; min?: number | bigint; max?: number | bigint }>;
}

/**
 * A scan request with every field present (undefined when not set). Not built by spreading the
 * optional parts in: V8 (Node 20) gives every object made by a literal that adds a property after
 * a spread a hidden class of its own, so each query's request had its own and the read path's
 * loads of its fields went megamorphic.
 */
export function scanRequest(
  fields: readonly string[],
  minTime: bigint | undefined,
  maxTime: bigint | undefined,
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean,
  valueBounds?: ScanRequest['valueBounds'],
  seriesTags?: readonly TagValues[],
  seriesTagTests?: readonly TagTest[],
): ScanRequest {
  return { fields, minTime, maxTime, seriesFilter, valueBounds, seriesTags, seriesTagTests };
}

/** Rows to delete (DELETE FROM): the series that pass the filter, within the time range. */
export interface DeleteRequest {
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
  /** Inclusive time bounds in the database precision; absent = unbounded. */
  minTime?: bigint;
  maxTime?: bigint;
}

/** Statistics of one field over a run of rows: present values, their min, max and sum. */
export interface FieldStats {
  count: number;
  /** Absent when not exact (STRING; DOUBLE with NaN). BOOLEAN: 0/1. */
  min?: number | bigint;
  max?: number | bigint;
  /** Absent for STRING and when an integer sum left 64 bits. BOOLEAN: the count of true. */
  sum?: number | bigint;
}

/** A run of rows of one series known only by its statistics (a whole stored block). */
export interface SeriesStats {
  tags: ReadonlyMap<string, string>;
  /** Rows in the run, and the time range they lie in (inclusive). */
  rows: number;
  minTime: bigint;
  maxTime: bigint;
  /** The requested fields; a field the run lacks has count 0. */
  fields: ReadonlyMap<string, FieldStats>;
}

/**
 * A stats scan (count/min/max/sum pushed into storage): like ScanRequest, and when `bucket` is
 * given, statistics are only returned for runs that lie within one bucket
 * [origin + k * width, origin + (k + 1) * width); everything else comes as rows.
 */
export interface StatsRequest extends ScanRequest {
  bucket?: { origin: bigint; width: bigint };
}

/** `request` as a stats scan by `bucket` (or none), in one shape (scanRequest says why). */
export function statsRequest(request: ScanRequest, bucket: StatsRequest['bucket']): StatsRequest {
  return {
    fields: request.fields,
    minTime: request.minTime,
    maxTime: request.maxTime,
    seriesFilter: request.seriesFilter,
    valueBounds: request.valueBounds,
    seriesTags: request.seriesTags,
    seriesTagTests: request.seriesTagTests,
    bucket,
  };
}

export type StatsOrChunk = { kind: 'stats'; stats: SeriesStats } | { kind: 'chunk'; chunk: SeriesChunk };

/** The newest present value of a field in a series, with its time. */
export interface LastValue {
  time: bigint;
  value: number | bigint | string | boolean;
}

/**
 * Per series, the newest present value of each requested field. The last row of the series
 * (ORDER BY time DESC LIMIT 1) is the fields whose time equals the largest time among them.
 */
export interface SeriesLast {
  tags: ReadonlyMap<string, string>;
  fields: ReadonlyMap<string, LastValue>;
}

export interface LastRequest {
  fields: readonly string[];
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean;
  /** Tag values every series `seriesFilter` keeps has (TagValues). */
  seriesTags?: readonly TagValues[];
  /** Tests of one tag each that every series `seriesFilter` keeps passes (TagTest). */
  seriesTagTests?: readonly TagTest[];
}

/** A last-point request with every field present, in one shape (scanRequest says why). */
export function lastRequest(
  fields: readonly string[],
  seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean,
  seriesTags?: readonly TagValues[],
  seriesTagTests?: readonly TagTest[],
): LastRequest {
  return { fields, seriesFilter, seriesTags, seriesTagTests };
}
