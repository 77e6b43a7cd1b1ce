// The server, composed: load the Wasm core, take the data directory's lock (storage/fs/dir-lock.ts),
// open the storage, listen at once (503 while the WAL replays), serve; stop() stops accepting,
// finishes in-flight requests, syncs the WALs, stops the parse workers and releases the lock.
// startServer() touches no process state (several run in one process: the tests), serve() is the
// process: SIGINT/SIGTERM stop it, and it exits with the exit codes.

import { resolve } from 'node:path';
import { type DestinationStream, type Logger, pino } from 'pino';
import { Core } from '../core/wasm.js';
import type { Parsers } from '../ingest/parse-jobs.js';
import { InThreadParsers, ParsePool } from './parse-pool.js';
import { warmQueryPath } from './query-warmup.js';
import { ensureUsageSchema, ServerMetrics, startUsageReporter, SundialServer, UsageMetrics } from '../server/index.js';
import { startStreamRunner } from './stream-runner.js';
import { verifyPassword } from '../meta/index.js';
import { PgListener } from '../pgwire/index.js';
import { createServices } from './services.js';
import { SecretBox } from './secret-box.js';
import { faultPointArmed, lockDataDir } from '../storage/index.js';
import { openStorage } from './open-storage.js';
import { Cluster, ClusterUnreachable } from './cluster.js';
import type { Config } from './config.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './exit-codes.js';
import { coreWasmBytes, packageVersion } from './package-info.js';

const SHUTDOWN_TIMEOUT_MS = 30_000;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A started server (startServer): listening, and ready once `ready` settles. */
export interface RunningServer {
  readonly url: string;
  /** The PostgreSQL port, when server.pg_port is set. */
  readonly pgPort: number | undefined;
  readonly dataDir: string;
  readonly logger: Logger;
  /** Resolves once the storage has recovered and every route answers; rejects if recovery failed. */
  readonly ready: Promise<void>;
  /**
   * Stops accepting, finishes the requests in flight, syncs the WALs, stops the workers and
   * timers. `signal` is logged (what asked for the stop). Called again, it answers the first call's promise.
   */
  stop(signal: string): Promise<void>;
}

/** startServer refused to serve and said why in the log; the process exits with `exitCode`. */
export class StartRefused extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface StartOptions {
  /** Where the log's JSON lines go; default standard output. */
  log?: DestinationStream;
}

/**
 * Composes and starts the server with `config`; resolves once it listens (phase "starting"), the
 * storage recovering behind `ready`. Every piece of state is its own (metrics registry, parse
 * workers, timers), except what is the process's by nature: the storage fault points read from
 * SUNDIAL_TEST_* at load (storage/fs/fault-points.ts), prom-client's process_* and nodejs_*
 * metrics, which each registry reads from the one process and whose GC and event-loop observers
 * outlive stop(), and V8's compiled code, which the warm-ups warm for all.
 */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const logger = pino({ level: config['log.log_level'], base: { pid: process.pid } }, options.log);
  const metrics = new ServerMetrics();
  const version = packageVersion();
  const dataDir = resolve(config['storage.data_dir']);

  const core = await Core.load(coreWasmBytes());
  const lock = await lockDataDir(dataDir);
  let cluster: Cluster | undefined;
  if (config['server.cluster.etcd_endpoints'] !== '') {
    cluster = await Cluster.connect(config, logger).catch(async (e: unknown) => {
      if (!(e instanceof ClusterUnreachable)) throw e;
      logger.fatal({ etcd: config['server.cluster.etcd_endpoints'] }, e.message);
      await lock.release();
      throw new StartRefused(e.message, EXIT_FAILURE);
    });
  }
  const storage = await openStorage(config, core, logger, { dataDir, metrics, sharedCatalog: cluster?.catalog }).catch(
    async (e: unknown) => {
      // Nothing is open yet but the lock and etcd's client: a caller that starts again (tests,
      // one process) finds the directory free.
      await cluster?.close();
      if (cluster !== undefined) await lock.release();
      throw e;
    },
  );
  const root = storage.catalog.users.get('root');
  if (!isLoopback(config['server.host']) && (root === undefined || (await verifyPassword('', root.passwordHash)))) {
    // auth.root_password is read only when the catalog is made: on an existing one, setting it
    // changes nothing, so the message must say what does.
    const fix = storage.catalogCreated
      ? 'set auth.root_password (SUNDIAL_ROOT_PASSWORD) or listen on 127.0.0.1'
      : `the catalog in ${dataDir} already exists, and auth.root_password (SUNDIAL_ROOT_PASSWORD) applies only to a new catalog: start on 127.0.0.1 and run ALTER USER root SET PASSWORD = '...', then listen on ${config['server.host']}`;
    logger.fatal(
      { host: config['server.host'], dataDir, newCatalog: storage.catalogCreated },
      `refusing to listen on a non-loopback address while the root password is empty; ${fix}`,
    );
    // Storage and lock are left as taken (closing would save the catalog): the process exits.
    throw new StartRefused('refusing to listen on a non-loopback address while the root password is empty', EXIT_USAGE);
  }

  const workers = config['ingest.parse_workers'];
  const scanWindowBytes = config['ingest.scan_window_bytes'];
  const pool =
    workers === 0
      ? undefined
      : new ParsePool(workers, logger, { warmup: config['ingest.parse_warmup'], scanWindowBytes });
  const parsers: Parsers = pool ?? new InThreadParsers(core, scanWindowBytes);
  const server = new SundialServer(config, logger, version, metrics);
  const url = await server.listen();
  const pgPortSetting = config['server.pg_port'];
  const pg =
    pgPortSetting === null
      ? undefined
      : new PgListener({
          config,
          logger,
          version,
          services: () => server.context.services(),
          allowEmptyPassword: isLoopback(config['server.host']),
        });
  const pgPort = pg === undefined ? undefined : await pg.listen(config['server.host'], pgPortSetting!);
  logger.info({ url, dataDir, version, pgPort }, 'listening');
  await cluster?.join(config['server.cluster.node_id'], url, metrics);

  const warmup = new AbortController();
  let warming: Promise<void> = Promise.resolve();
  const usage = new UsageMetrics(new URL(url).host);
  let stopUsage: () => Promise<void> = async () => undefined;
  let stopStreams: () => Promise<void> = async () => undefined;
  let stopping: Promise<void> | undefined;
  const stop = (signal: string): Promise<void> =>
    (stopping ??= (async () => {
      logger.info({ signal }, 'shutting down');
      warmup.abort();
      await server.stop(SHUTDOWN_TIMEOUT_MS);
      await pg?.stop();
      await warming;
      await stopUsage();
      await stopStreams();
      await parsers.close();
      try {
        await storage.close();
      } finally {
        // Out of the membership at once (its lease revoked), even when the close failed.
        await cluster?.close();
      }
      await lock.release();
      logger.info('stopped');
      logger.flush();
    })());

  const ready = (async () => {
    const started = Date.now();
    await storage.recover();
    await ensureUsageSchema(storage).catch((err: unknown) =>
      logger.warn({ err }, 'creating usage_schema failed; usage reports are skipped'),
    );
    const services = createServices(config, {
      core,
      storage,
      parsers,
      usage,
      allowEmptyPassword: isLoopback(config['server.host']),
      logger,
      metrics,
      secrets: SecretBox.forDir(dataDir),
    });
    server.ready(services);
    stopStreams = startStreamRunner(storage, services.sql, logger, config['limits.query_memory_bytes']);
    if (config['usage.report_interval'] > 0)
      stopUsage = startUsageReporter(storage, usage, config['usage.report_interval'], logger, Date.now);
    // The storage faults recovery found (WAL damage, unreadable segment files: quarantine.ts), counted.
    logger.info(
      {
        recoveryMs: Date.now() - started,
        parseWorkers: workers,
        parseWarmup: pool !== undefined && config['ingest.parse_warmup'],
        faults: storage.faults,
      },
      'ready',
    );
    if (config['ingest.parse_warmup'] && stopping === undefined) pool?.startAll();
    const warm = { queries: config['query.warmup'], writes: config['ingest.write_warmup'] };
    if ((warm.queries || warm.writes) && stopping === undefined && !faultPointArmed())
      warming = warmQueryPath(core, logger, warmup.signal, warm, { config, version });
  })();
  return { url, pgPort, dataDir, logger, ready, stop };
}

/** Runs the server with `config` until a signal stops it (the process exits then). */
export async function serve(config: Config): Promise<void> {
  let running: RunningServer;
  try {
    running = await startServer(config);
  } catch (e) {
    if (e instanceof StartRefused) process.exit(e.exitCode);
    throw e;
  }
  const { logger } = running;
  let signalled = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(EXIT_FAILURE);
    }
    signalled = true;
    try {
      await running.stop(signal);
      process.exit(EXIT_OK);
    } catch (err) {
      logger.fatal({ err }, 'shutdown failed');
      process.exit(EXIT_FAILURE);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await running.ready;
}
