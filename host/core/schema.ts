// Catalog shapes shared by the storage engine and the query engine (neither imports the other).

export type Precision = 'NS' | 'US' | 'MS';

export interface DatabaseOptions {
  /** Retention in milliseconds; null = infinite. */
  ttlMs: number | null;
  shard: number;
  vnodeDurationMs: number;
  replica: number;
  precision: Precision;
  maxMemcacheSize: number;
  memcachePartitions: number;
  walMaxFileSize: number;
  walSync: boolean;
  strictWrite: boolean;
  maxCacheReaders: number;
}

export const DAY_MS = 86_400_000;

export const DEFAULT_DATABASE_OPTIONS: Readonly<DatabaseOptions> = {
  ttlMs: null,
  shard: 1,
  // CnosDB's default of one year is too coarse for retention to drop anything in time; a week
  // keeps partitions small enough to expire promptly and large enough to compress well.
  vnodeDurationMs: 7 * DAY_MS,
  replica: 1,
  precision: 'NS',
  maxMemcacheSize: 128 * 1024 * 1024,
  memcachePartitions: 16,
  walMaxFileSize: 128 * 1024 * 1024,
  walSync: false,
  strictWrite: false,
  maxCacheReaders: 32,
};
