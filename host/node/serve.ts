// The server process, composed: load the Wasm core, listen at once (503 while the WAL replays),
// open the storage, serve; on SIGINT/SIGTERM stop accepting, finish in-flight requests, sync the
// WALs, stop the parse workers and exit 0.

import { resolve } from 'node:path';
import { pino } from 'pino';
import { Core } from '../core/wasm.js';
import type { Parsers } from '../ingest/parse-jobs.js';
import { InThreadParsers, ParsePool } from './parse-pool.js';
import { warmQueryPath } from './query-warmup.js';
import { ensureUsageSchema, ServerMetrics, startUsageReporter, SundialServer, UsageMetrics } from '../server/index.js';
import { hashPassword, scramVerifier, verifyPassword } from '../meta/index.js';
import { PgListener } from '../pgwire/index.js';
import { createServices } from './services.js';
import { faultPointArmed, Storage, storageCodecs } from '../storage/index.js';
import type { Config } from './config.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { coreWasmBytes, packageVersion } from './package-info.js';

const SHUTDOWN_TIMEOUT_MS = 30_000;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Runs the server with `config` until a signal stops it (the process exits then). */
export async function serve(config: Config): Promise<void> {
  const logger = pino({ level: config['log.log_level'], base: { pid: process.pid } });
  const metrics = new ServerMetrics();
  const version = packageVersion();
  const dataDir = resolve(config['storage.data_dir']);

  const core = await Core.load(coreWasmBytes());
  const storage = await Storage.open({
    dataDir,
    logger,
    rootPasswordHash: await hashPassword(config['auth.root_password']),
    rootScramVerifier: await scramVerifier(config['auth.root_password']),
    memtableBytes: config['storage.memtable_bytes'],
    walSegmentBytes: config['storage.wal_segment_bytes'],
    walSync: config['storage.wal_sync'],
    flushBytes: config['storage.flush_bytes'],
    flushAgeMs: config['storage.flush_age'],
    compactionFanIn: config['storage.compaction_fan_in'],
    compactionThread: config['storage.compaction_thread'],
    blockCacheBytes: config['storage.block_cache_bytes'],
    indexCacheBytes: config['storage.index_cache_bytes'],
    skipDamagedSegments: config['storage.skip_damaged_segments'],
    objectStore:
      config['storage.object_store.s3_bucket'] === ''
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
    codecs: storageCodecs(core),
    metrics,
  });
  const root = storage.catalog.users.get('root');
  if (!isLoopback(config['server.host']) && (root === undefined || (await verifyPassword('', root.passwordHash)))) {
    // auth.root_password is read only when the catalog is made: on an existing one, setting it
    // changes nothing, so the message must say what does.
    const fix = storage.catalogCreated
      ? 'set auth.root_password (SUNDIAL_ROOT_PASSWORD) or listen on 127.0.0.1'
      : `the catalog in ${dataDir} already exists, and auth.root_password (SUNDIAL_ROOT_PASSWORD) applies only to a new catalog: start on 127.0.0.1 and run ALTER USER root SET PASSWORD = '...', then listen on ${config['server.host']}`;
    logger.fatal({ host: config['server.host'], dataDir, newCatalog: storage.catalogCreated }, `refusing to listen on a non-loopback address while the root password is empty; ${fix}`);
    process.exit(EXIT_USAGE);
  }

  const workers = config['ingest.parse_workers'];
  const pool = workers === 0 ? undefined : new ParsePool(workers, logger, { warmup: config['ingest.parse_warmup'] });
  const parsers: Parsers = pool ?? new InThreadParsers(core);
  const server = new SundialServer(config, logger, version, metrics);
  const url = await server.listen();
  const pgPortSetting = config['server.pg_port'];
  const pg = pgPortSetting === null ? undefined : new PgListener({ config, logger, version, services: () => server.context.services(), allowEmptyPassword: isLoopback(config['server.host']) });
  const pgPort = pg === undefined ? undefined : await pg.listen(config['server.host'], pgPortSetting!);
  logger.info({ url, dataDir, version, pgPort }, 'listening');

  const warmup = new AbortController();
  let warming: Promise<void> = Promise.resolve();
  const usage = new UsageMetrics(new URL(url).host);
  let stopUsage: () => Promise<void> = async () => undefined;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(EXIT_FAILURE);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      warmup.abort();
      await server.stop(SHUTDOWN_TIMEOUT_MS);
      await pg?.stop();
      await warming;
      await stopUsage();
      await parsers.close();
      await storage.close();
      logger.info('stopped');
      logger.flush();
      process.exit(EXIT_OK);
    } catch (err) {
      logger.fatal({ err }, 'shutdown failed');
      process.exit(EXIT_FAILURE);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const started = Date.now();
  await storage.recover();
  await ensureUsageSchema(storage).catch((err: unknown) => logger.warn({ err }, 'creating usage_schema failed; usage reports are skipped'));
  server.ready(createServices(config, { core, storage, parsers, usage, allowEmptyPassword: isLoopback(config['server.host']), logger, metrics }));
  if (config['usage.report_interval'] > 0) stopUsage = startUsageReporter(storage, usage, config['usage.report_interval'], logger, Date.now);
  // The storage faults recovery found (WAL damage, unreadable segment files: quarantine.ts), counted.
  logger.info({ recoveryMs: Date.now() - started, parseWorkers: workers, parseWarmup: pool !== undefined && config['ingest.parse_warmup'], faults: storage.faults }, 'ready');
  if (config['ingest.parse_warmup'] && !stopping) pool?.startAll();
  const warm = { queries: config['query.warmup'], writes: config['ingest.write_warmup'] };
  if ((warm.queries || warm.writes) && !stopping && !faultPointArmed()) warming = warmQueryPath(core, logger, warmup.signal, warm, { config, version });
}

