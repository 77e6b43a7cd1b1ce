// Library mode (`import { open } from 'sundial'`, docs/library.md): the server's composition
// without its listeners. open() loads the Wasm core, takes the data directory's lock and opens the
// storage as `sundial serve` does (open-storage.ts), and builds the same services (services.ts);
// statements go through the same admission, session and engine as /api/v1/sql (server/statement.ts)
// and writes through the write path of /api/v1/write, as root, the embedding program being trusted.

import { resolve } from 'node:path';
import { type Logger, pino } from 'pino';
import { UserError } from '../core/errors.js';
import { Core } from '../core/wasm.js';
import { PlanCache } from '../engine/plan-cache.js';
import type { QueryResult as EngineResult } from '../engine/query.js';
import { type Field, getValue, type RecordBatch, type Scalar } from '../engine/types/index.js';
import { requireMembership, type UserDef } from '../meta/index.js';
import {
  admitWrite,
  lineProtocolParser,
  type Services,
  startStatement,
  storeWrite,
  trackResult,
  UsageMetrics,
} from '../server/index.js';
import { type DirLock, lockDataDir, type Storage } from '../storage/index.js';
import { flagName, loadConfig, SETTINGS, type Config } from './config.js';
import { openStorage } from './open-storage.js';
import { coreWasmBytes, packageVersion } from './package-info.js';
import { InThreadParsers } from './parse-pool.js';
import { SecretBox } from './secret-box.js';
import { createServices } from './services.js';
import { startStreamRunner } from './stream-runner.js';

export { UserError as SundialError } from '../core/errors.js';
export { DataDirLockedError } from '../storage/index.js';
export type { Field, RecordBatch, Scalar, Schema, Vector } from '../engine/types/index.js';

/** What open() opens. */
export interface OpenOptions {
  /** The data directory (created if missing; the one `sundial serve --data-dir` uses). Omitted: an in-memory store. */
  dataDir?: string;
  /** Settings of docs/configuration.md by key, e.g. `{ 'storage.wal_sync': false }`; the server's defaults otherwise. */
  settings?: Readonly<Record<string, string | number | boolean>>;
  /** Tenant and database of the statements and writes that name none; default `cnosdb` and `public`. */
  tenant?: string;
  database?: string;
  /** Where log lines go; default warnings and errors as JSON on stderr (`log.log_level` sets the level). */
  logger?: Logger;
}

/** Where one statement or write goes, and how a statement may be cancelled. */
export interface StatementOptions {
  tenant?: string;
  database?: string;
  /** Aborting it stops the statement; its promise or iteration rejects with 010014 "query canceled". */
  signal?: AbortSignal;
}

export interface WriteOptions {
  tenant?: string;
  database?: string;
  /** The unit of the lines' timestamps: ns (default), us, ms or s. */
  precision?: 'ns' | 'us' | 'ms' | 's';
}

/** A row: column name to value. BIGINT, BIGINT UNSIGNED and TIMESTAMP (ns since the epoch) are bigints. */
export type Row = Record<string, Scalar>;

/** A statement's result: its columns, then its record batches, pulled one at a time from the engine. */
export interface QueryResult extends AsyncIterable<RecordBatch> {
  /** The columns; none for a statement without a result set (DDL, DCL, DELETE). */
  readonly fields: readonly Field[];
}

/** Opens a data directory, or an in-memory store without `dataDir`. */
export async function open(options: OpenOptions = {}): Promise<Sundial> {
  const config = configOf(options);
  // A library's host program owns stdout: log lines go to stderr, and only warnings unless asked.
  const logger =
    options.logger ??
    pino(
      { level: options.settings?.['log.log_level'] === undefined ? 'warn' : config['log.log_level'] },
      pino.destination(2),
    );
  const memory = options.dataDir === undefined;
  const dataDir = memory ? 'memory' : resolve(options.dataDir!);
  const core = await Core.load(coreWasmBytes());
  const lock = memory ? undefined : await lockDataDir(dataDir);
  let storage: Storage | undefined;
  try {
    storage = await openStorage(config, core, logger, { dataDir, memory });
    await storage.recover();
  } catch (e) {
    await storage?.close().catch(() => undefined);
    await lock?.release();
    throw e;
  }
  const services = createServices(config, {
    core,
    storage,
    parsers: new InThreadParsers(core),
    usage: new UsageMetrics('library'),
    allowEmptyPassword: true,
    logger,
    secrets: memory ? SecretBox.inMemory() : SecretBox.forDir(dataDir),
  });
  // Stream tables' queries run while the handle is open, as they do while `sundial serve` runs
  // (the timer is unref'd: an open handle alone does not keep the program alive).
  const stopStreams = startStreamRunner(storage, services.sql, logger, config['limits.query_memory_bytes']);
  return new Sundial(config, services, lock, {
    tenant: options.tenant ?? 'cnosdb',
    database: options.database ?? 'public',
    memory,
    stopStreams,
  });
}

/** The server's configuration with `options.settings` over its defaults (no file, no environment). */
function configOf(options: OpenOptions): Config {
  const argv: string[] = [];
  for (const [key, value] of Object.entries(options.settings ?? {})) {
    if (!SETTINGS.some((s) => s.key === key))
      throw new UserError('badParameter', `unknown setting '${key}' (docs/configuration.md lists them)`);
    argv.push(`--${flagName(key)}`, String(value));
  }
  return loadConfig({ argv, env: {} });
}

/** An open store: write line protocol, run SQL; close() when done. */
export class Sundial {
  readonly #config: Config;
  readonly #services: Services;
  readonly #lock: DirLock | undefined;
  readonly #defaults: { tenant: string; database: string; memory: boolean; stopStreams: () => Promise<void> };
  readonly #planCache = new PlanCache();
  readonly #version = packageVersion();
  /** Statements whose batches are not all pulled yet, each with what lets it go: close() stops them. */
  readonly #running = new Map<AbortController, () => void>();
  #closed: Promise<void> | undefined;

  /** @internal open() makes it. */
  constructor(
    config: Config,
    services: Services,
    lock: DirLock | undefined,
    defaults: { tenant: string; database: string; memory: boolean; stopStreams: () => Promise<void> },
  ) {
    this.#config = config;
    this.#services = services;
    this.#lock = lock;
    this.#defaults = defaults;
  }

  #root(): UserDef {
    if (this.#closed !== undefined) throw new UserError('unavailable', 'this store is closed');
    const root = this.#services.storage.catalog.users.get('root');
    if (root === undefined) throw new Error('BUG: the catalog has no root user');
    return root;
  }

  /** Writes line protocol (one request: all of it is stored, durably, or none). */
  async write(lines: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
    const user = this.#root();
    const target = {
      tenant: options.tenant ?? this.#defaults.tenant,
      database: options.database ?? this.#defaults.database,
    };
    const precision = options.precision ?? 'ns';
    if (!['ns', 'us', 'ms', 's'].includes(precision))
      throw new UserError('badParameter', `invalid precision '${String(precision)}': want ns, us, ms or s`);
    const admitted = admitWrite(this.#services, user, target);
    const body =
      typeof lines === 'string'
        ? Buffer.from(lines, 'utf8')
        : Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength);
    await storeWrite(
      this.#services,
      admitted,
      { api: 'library', user: user.name, format: 'line-protocol' },
      body,
      lineProtocolParser(precision),
    );
  }

  /** Runs one statement and returns all its rows. */
  async sql(sql: string, options: StatementOptions = {}): Promise<Row[]> {
    const result = await this.query(sql, options);
    const rows: Row[] = [];
    for await (const batch of result) {
      const names = batch.schema.fields.map((f) => f.name);
      for (let i = 0; i < batch.length; i++) {
        const row: Row = {};
        for (let c = 0; c < names.length; c++) row[names[c]!] = getValue(batch.columns[c]!, i);
        rows.push(row);
      }
    }
    return rows;
  }

  /**
   * Runs one statement (CnosDB's dialect, as /api/v1/sql takes it); resolves once it is planned
   * and started. Pull its batches to the end, or stop early (`break`), to let it go: until then
   * it holds one of `limits.max_concurrent_queries` and shows in SHOW QUERIES.
   */
  async query(sql: string, options: StatementOptions = {}): Promise<QueryResult> {
    const user = this.#root();
    const tenant = requireMembership(this.#services.storage.catalog, user, options.tenant ?? this.#defaults.tenant);
    const database = options.database ?? this.#defaults.database;
    const statement = startStatement(this.#config, this.#version, this.#services, {
      user,
      tenant,
      database,
      sql,
      api: 'library',
      bytesIn: Buffer.byteLength(sql),
    });
    const { abort, query } = statement;
    const signal = options.signal;
    const cancel = (): void => abort.abort(new UserError('queryCanceled', 'query canceled'));
    const done = (): void => {
      signal?.removeEventListener('abort', cancel);
      this.#running.delete(abort);
      statement.done(0);
    };
    if (signal?.aborted === true) cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    this.#running.set(abort, done);
    query.state = 'SCHEDULING';
    let result: EngineResult;
    try {
      if (abort.signal.aborted) throw abort.signal.reason;
      result = await this.#services.sql.engine(this.#planCache).run(sql, statement.session);
    } catch (e) {
      done();
      throw e;
    }
    if (result.kind === 'done') {
      done();
      return { fields: [], [Symbol.asyncIterator]: () => ({ next: async () => ({ done: true, value: undefined }) }) };
    }
    const it = trackResult(query, result);
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      done();
    };
    let taken = false;
    return {
      fields: [...result.schema.fields],
      [Symbol.asyncIterator]: () => {
        if (taken) throw new Error('a query result can be iterated once');
        taken = true;
        return {
          next: async () => {
            if (finished) return { done: true, value: undefined };
            try {
              const r = await it.next();
              if (r.done === true) finish();
              return r;
            } catch (e) {
              finish();
              throw e;
            }
          },
          return: async () => {
            if (!finished) {
              finish();
              await it.return?.();
            }
            return { done: true, value: undefined };
          },
        };
      },
    };
  }

  /**
   * Stops running statements, flushes the memtables to segment files (so the next open replays
   * no WAL), closes the files and releases the directory's lock. An in-memory store's data is gone.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      // Also those whose results nobody pulls any more: their slots and query timers go now.
      for (const [abort, done] of this.#running) {
        abort.abort(new UserError('unavailable', 'the store is closing'));
        done();
      }
      const storage = this.#services.storage;
      try {
        // Before the flush: a turn still running writes its windows into what is flushed.
        await this.#defaults.stopStreams();
        if (!this.#defaults.memory) await storage.flushAll();
      } finally {
        await storage.close();
        await this.#lock?.release();
      }
    })();
    return this.#closed;
  }
}
