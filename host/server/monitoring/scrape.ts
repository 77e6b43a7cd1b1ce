// The metrics that existing state already holds, read when /metrics is scraped rather than kept
// twice: memtable and segment bytes per database, the block cache, running queries, and the
// storage's fault counters (storage/fs/quarantine.ts), which only go up and so are counters.

import { Counter, Gauge } from 'prom-client';
import type { Storage } from '../../storage/index.js';
import type { ServerMetrics } from './metrics.js';

/** What the scrape reads: the parts of the server's services (services.ts) it looks at. */
export interface ScrapedState {
  storage: Pick<Storage, 'usageOfDatabases' | 'blockCache' | 'faults'>;
  runningQueries: { readonly size: number; readonly memoryBytes: number };
  writeBytes: { readonly used: number };
}

type DatabaseUsage = ReturnType<Storage['usageOfDatabases']>[number];
type FaultCounts = Storage['faults'];

/** Each fault counter of the storage: its metric name and help. */
const FAULTS: ReadonlyArray<[keyof FaultCounts, string, string]> = [
  [
    'walWriteFailures',
    'sundial_wal_write_failures_total',
    'Failed WAL writes or fsyncs (each answered with an error, nothing applied).',
  ],
  [
    'walDamagedRanges',
    'sundial_wal_damaged_ranges_total',
    'Damaged byte ranges found in WAL segments and copied to the quarantine folder.',
  ],
  ['walRecordsLost', 'sundial_wal_records_lost_total', 'WAL records lost to damage (quarantined, not replayed).'],
  [
    'walTornTails',
    'sundial_wal_torn_tails_total',
    'Torn tails cut from the last WAL segment at start (a crash mid-write: nothing acknowledged lost).',
  ],
  [
    'walFailedWriteRecords',
    'sundial_wal_failed_write_records_total',
    'Records of writes answered with an error found in the WAL and not replayed.',
  ],
  [
    'damagedSegmentFiles',
    'sundial_damaged_segment_files_total',
    'Segment files found damaged (at open, by a query, by CHECK DATABASE).',
  ],
  [
    'quarantinedSegmentFiles',
    'sundial_quarantined_segment_files_total',
    'Segment files moved to the quarantine folder (CHECK DATABASE ... REPAIR).',
  ],
];

/**
 * Registers in `metrics`' registry the series read from `source()` at each scrape; while it
 * answers undefined (starting, stopping) they have no samples.
 */
export function registerStateMetrics(metrics: ServerMetrics, source: () => ScrapedState | undefined): void {
  const registers = [metrics.registry];
  const perDatabase = (name: string, help: string, value: (d: DatabaseUsage) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['tenant', 'database'],
      registers,
      collect() {
        this.reset();
        for (const d of source()?.storage.usageOfDatabases() ?? [])
          this.set({ tenant: d.def.tenant, database: d.def.name }, value(d));
      },
    });
  };
  perDatabase(
    'sundial_memtable_bytes',
    "Bytes held by the database's memtables (active and being flushed).",
    (d) => d.cacheBytes,
  );
  perDatabase('sundial_segment_files', 'Segment files of the database.', (d) => d.segmentFiles);
  perDatabase('sundial_segment_bytes', "Bytes of the database's segment files.", (d) => d.diskBytes);

  // One sample each, none while `source()` has nothing.
  const gauge = (name: string, help: string, value: (s: ScrapedState) => number): unknown =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const s = source();
        if (s !== undefined) this.set(value(s));
      },
    });
  const counter = (name: string, help: string, value: (s: ScrapedState) => number): unknown =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        const s = source();
        if (s !== undefined) this.inc(value(s));
      },
    });
  gauge(
    'sundial_block_cache_bytes',
    'Decoded segment blocks held by the block cache (storage.block_cache_bytes).',
    (s) => s.storage.blockCache.bytes,
  );
  counter(
    'sundial_block_cache_hits_total',
    'Block reads answered from the block cache.',
    (s) => s.storage.blockCache.hits,
  );
  counter(
    'sundial_block_cache_misses_total',
    'Block reads that decoded the block from its segment file.',
    (s) => s.storage.blockCache.misses,
  );
  gauge('sundial_queries_running', 'SQL statements running (SHOW QUERIES).', (s) => s.runningQueries.size);
  gauge(
    'sundial_queries_memory_bytes',
    "Memory held by the running SQL statements' pools.",
    (s) => s.runningQueries.memoryBytes,
  );
  gauge(
    'sundial_write_bytes_in_flight',
    'Decompressed write bytes being processed (limits.max_inflight_write_bytes).',
    (s) => s.writeBytes.used,
  );
  for (const [field, name, help] of FAULTS) counter(name, help, (s) => s.storage.faults[field]);
}
