// Opens the storage as the configuration describes it, for the server (serve.ts) and library mode
// (library.ts) alike, so that a directory opened by either is read and written the same way.

import type { Logger } from 'pino';
import type { Metrics } from '../core/metrics.js';
import type { Core } from '../core/wasm.js';
import { hashPassword, type SharedCatalogFile, scramVerifier } from '../meta/index.js';
import { Storage, storageCodecs } from '../storage/index.js';
import type { Config } from './config.js';

export interface StorageTarget {
  /** The data directory (absolute); with `memory`, only the store's name in messages. */
  dataDir: string;
  /** An in-memory store (StorageOptions.memory): nothing on disk, nothing kept after close. */
  memory?: boolean;
  metrics?: Metrics;
  /** A cluster's catalog (server.cluster: node/cluster.ts) in place of catalog.json. */
  sharedCatalog?: SharedCatalogFile;
}

/** Opens (or creates) the storage; call `recover` next. The caller holds the directory's lock (lockDataDir). */
export async function openStorage(config: Config, core: Core, logger: Logger, target: StorageTarget): Promise<Storage> {
  const memory = target.memory === true;
  for (const key of ['storage.vnodes', 'server.cluster.nats_replicas'] as const)
    if (config[key] < 1) throw new Error(`${key} must be at least 1, got ${config[key]}`);
  // A stream name takes letters, digits, `-` and `_`; a subject token no `.`, `*`, `>` or space.
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(config['server.cluster.nats_stream_prefix']))
    throw new Error(
      `server.cluster.nats_stream_prefix must be 1 to 32 letters, digits, '-' or '_', got '${config['server.cluster.nats_stream_prefix']}'`,
    );
  return Storage.open({
    dataDir: target.dataDir,
    memory,
    logger,
    rootPasswordHash: await hashPassword(config['auth.root_password']),
    rootScramVerifier: await scramVerifier(config['auth.root_password']),
    memtableBytes: config['storage.memtable_bytes'],
    walSegmentBytes: config['storage.wal_segment_bytes'],
    walSync: config['storage.wal_sync'],
    flushBytes: config['storage.flush_bytes'],
    flushAgeMs: config['storage.flush_age'],
    compactionFanIn: config['storage.compaction_fan_in'],
    // The compaction thread reads and writes files: an in-memory store compacts on its own thread.
    compactionThread: config['storage.compaction_thread'] && !memory ? { wasm: core.module } : undefined,
    blockCacheBytes: config['storage.block_cache_bytes'],
    indexCacheBytes: config['storage.index_cache_bytes'],
    skipDamagedSegments: config['storage.skip_damaged_segments'],
    // An in-memory store keeps its segment files in memory, not in a bucket.
    objectStore:
      memory || config['storage.object_store.s3_bucket'] === ''
        ? undefined
        : {
            bucket: config['storage.object_store.s3_bucket'],
            endpoint: config['storage.object_store.s3_endpoint'],
            region: config['storage.object_store.s3_region'],
            prefix: config['storage.object_store.s3_prefix'],
            accessKeyId: config['storage.object_store.s3_access_key_id'],
            secretAccessKey: config['storage.object_store.s3_secret_access_key'],
            pathStyle: config['storage.object_store.s3_path_style'],
            cacheBytes: config['storage.object_store.cache_bytes'],
            cacheDir: config['storage.object_store.cache_dir'],
          },
    jetStream:
      memory || config['server.cluster.nats_urls'] === ''
        ? undefined
        : {
            urls: config['server.cluster.nats_urls'].split(',').map((u) => u.trim()),
            replicas: config['server.cluster.nats_replicas'],
            prefix: config['server.cluster.nats_stream_prefix'],
            vnodes: config['storage.vnodes'],
          },
    codecs: storageCodecs(core),
    ...(target.metrics === undefined ? {} : { metrics: target.metrics }),
    ...(target.sharedCatalog === undefined ? {} : { sharedCatalog: target.sharedCatalog }),
  });
}
