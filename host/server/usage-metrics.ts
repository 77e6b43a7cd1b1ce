// CnosDB's usage_schema: a database of the system tenant into which the server writes its own
// usage counters, so that operators read them with SQL (`SELECT * FROM usage_schema.http_writes`).
// Counters are cumulative since the server started (they restart at 0, as Prometheus counters
// do) and are written every `usage.report_interval` for each series that changed, with the disk
// and memtable bytes of every other database whose bytes changed (gauges). The tables and their
// columns are CnosDB's:
//   http_data_in, http_data_out, http_queries, http_writes   tags api, database, host, node_id,
//                                                           tenant, user
//   coord_data_in, coord_data_out, coord_queries, coord_writes, sql_data_in (bytes INSERT wrote)
//                                                           tags database, node_id, tenant
//   vnode_disk_storage, vnode_cache_size                    tags database, node_id, tenant, vnode_id
// each with one BIGINT UNSIGNED field `value`. Reporting is a plain write through the storage
// engine (WAL, memtable), so the rows survive a crash like any other.

import type { Logger } from 'pino';
import { UserError } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';
import { WriteBatchBuilder } from '../core/write-batch-builder.js';
import { DEFAULT_DATABASE_OPTIONS, type DatabaseOptions } from '../core/schema.js';
import { type DatabaseDef, DEFAULT_TENANT } from '../meta/index.js';
import type { Storage } from '../storage/index.js';

export const USAGE_DATABASE = 'usage_schema';
/** CnosDB's node id of a single-node deployment (also `@@node_id`). */
export const NODE_ID = '1001';

const HTTP_TAGS = ['api', 'database', 'host', 'node_id', 'tenant', 'user'];
const COORD_TAGS = ['database', 'node_id', 'tenant'];
const VNODE_TAGS = ['database', 'node_id', 'tenant', 'vnode_id'];

/** Every usage table and its tags. */
export const USAGE_TABLES: ReadonlyMap<string, readonly string[]> = new Map([
  ['http_data_in', HTTP_TAGS],
  ['http_data_out', HTTP_TAGS],
  ['http_queries', HTTP_TAGS],
  ['http_writes', HTTP_TAGS],
  ['coord_data_in', COORD_TAGS],
  ['coord_data_out', COORD_TAGS],
  ['coord_queries', COORD_TAGS],
  ['coord_writes', COORD_TAGS],
  ['sql_data_in', COORD_TAGS],
  ['vnode_disk_storage', VNODE_TAGS],
  ['vnode_cache_size', VNODE_TAGS],
]);

/** Who caused a request's usage. */
export interface UsageSource {
  /** The route path without its leading slash, as CnosDB's `api` tag: `api/v1/write`. */
  api: string;
  tenant: string;
  database: string;
  user: string;
}

interface Counter {
  table: string;
  tags: Array<[string, string]>;
  value: bigint;
  reported: bigint;
}

export class UsageMetrics {
  readonly #host: string;
  readonly #counters = new Map<string, Counter>();
  /** Database id -> the disk and memtable bytes last reported. */
  readonly #gauges = new Map<number, string>();

  /** `host`: the address the server listens at (CnosDB's `host` tag). */
  constructor(host: string) {
    this.#host = host;
  }

  /** A write request stored: its body's bytes (`http_*`) and the batches' bytes (`coord_*`). */
  write(source: UsageSource, bodyBytes: number, storedBytes: number): void {
    this.#request('http_writes', source, bodyBytes, 0);
    this.sqlWrite(source.tenant, source.database, storedBytes, false);
  }

  /** A SQL request answered or failed: the statement's bytes in, the answer's bytes out. */
  query(source: UsageSource, bytesIn: number, bytesOut: number): void {
    this.#request('http_queries', source, bytesIn, bytesOut);
    this.#coord('coord_queries', source.tenant, source.database, 1);
    this.#coord('coord_data_out', source.tenant, source.database, bytesOut);
  }

  /** Batches of `bytes` stored in a database (`coord_*`); by SQL INSERT (`bySql`) also `sql_data_in`. */
  sqlWrite(tenant: string, database: string, bytes: number, bySql = true): void {
    this.#coord('coord_writes', tenant, database, 1);
    this.#coord('coord_data_in', tenant, database, bytes);
    if (bySql) this.#coord('sql_data_in', tenant, database, bytes);
  }

  // Each request adds to a few counters: their tag lists are built only when a counter is new
  // (six pairs and a key for every request was the cost of this bookkeeping on a short query).
  #request(table: 'http_writes' | 'http_queries', source: UsageSource, bytesIn: number, bytesOut: number): void {
    const key = `${source.api}\u0000${source.database}\u0000${source.tenant}\u0000${source.user}`;
    const tags = (): Array<[string, string]> => [
      ['api', source.api],
      ['database', source.database],
      ['host', this.#host],
      ['node_id', NODE_ID],
      ['tenant', source.tenant],
      ['user', source.user],
    ];
    this.#add(table, key, tags, 1);
    if (bytesIn > 0) this.#add('http_data_in', key, tags, bytesIn);
    if (bytesOut > 0) this.#add('http_data_out', key, tags, bytesOut);
  }

  #coord(table: string, tenant: string, database: string, n: number): void {
    if (n > 0)
      this.#add(
        table,
        `${database}\u0000${tenant}`,
        () => [
          ['database', database],
          ['node_id', NODE_ID],
          ['tenant', tenant],
        ],
        n,
      );
  }

  /** Adds `n` to the counter of `table` whose tag values `key` names; `tags` makes its tag list if it is new. */
  #add(table: string, key: string, tags: () => Array<[string, string]>, n: number): void {
    const k = `${table}\u0000${key}`;
    let c = this.#counters.get(k);
    if (c === undefined) this.#counters.set(k, (c = { table, tags: tags(), value: 0n, reported: -1n }));
    c.value += BigInt(n);
  }

  /**
   * The rows to write now, as one encoded write batch (undefined when there is nothing): every
   * counter that changed since the last report, and the gauges of `databases` (disk and
   * memtable bytes by database) that changed: an idle database adds no rows. Call `stored` once
   * the batch is durable: a report that failed sends its values again next time.
   */
  batch(
    nowNs: bigint,
    databases: ReadonlyArray<{ def: DatabaseDef; diskBytes: number; cacheBytes: number }>,
  ): { encoded: Uint8Array; stored: () => void } | undefined {
    const b = new WriteBatchBuilder();
    const sent: Array<[Counter, bigint]> = [];
    for (const c of this.#counters.values()) {
      if (c.value === c.reported) continue;
      b.addRow(c.table, c.tags, nowNs, [{ name: 'value', type: ValueType.Unsigned, value: c.value }]);
      sent.push([c, c.value]);
    }
    const gauges: Array<[number, string]> = [];
    for (const d of databases) {
      const state = `${d.diskBytes}/${d.cacheBytes}`;
      if (this.#gauges.get(d.def.id) === state) continue;
      const tags: Array<[string, string]> = [
        ['database', d.def.name],
        ['node_id', NODE_ID],
        ['tenant', d.def.tenant],
        ['vnode_id', String(d.def.id)],
      ];
      b.addRow('vnode_disk_storage', tags, nowNs, [
        { name: 'value', type: ValueType.Unsigned, value: BigInt(d.diskBytes) },
      ]);
      b.addRow('vnode_cache_size', tags, nowNs, [
        { name: 'value', type: ValueType.Unsigned, value: BigInt(d.cacheBytes) },
      ]);
      gauges.push([d.def.id, state]);
    }
    if (sent.length === 0 && gauges.length === 0) return undefined;
    return {
      encoded: b.finish(),
      stored: () => {
        for (const [c, v] of sent) c.reported = v;
        for (const [id, state] of gauges) this.#gauges.set(id, state);
      },
    };
  }
}

/**
 * Writes `metrics` into usage_schema every `intervalMs` until the returned function is called
 * (which also writes a last report). A failed report is logged and retried at the next tick.
 */
export function startUsageReporter(
  storage: Storage,
  metrics: UsageMetrics,
  intervalMs: number,
  logger: Logger,
  nowMs: () => number,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const report = async (): Promise<void> => {
    const db = storage.catalog.database(DEFAULT_TENANT, USAGE_DATABASE);
    if (db === undefined) return;
    // usage_schema's own bytes are left out: each report changes them, so it would report forever.
    const databases = storage.usageOfDatabases().filter((d) => d.def.id !== db.id);
    const due = metrics.batch(BigInt(Math.trunc(nowMs())) * 1_000_000n, databases);
    if (due === undefined) return;
    await storage.write(db, [due.encoded]);
    due.stored();
  };
  const tick = (): void => {
    running = running.then(report).catch((err: unknown) => logger.warn({ err }, 'writing usage_schema failed'));
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    tick();
    await running;
  };
}

/**
 * usage_schema's options as CnosDB's meta writes them on its first start: DatabaseConfig's own
 * defaults (not the server's configuration that CREATE DATABASE uses: 1 GiB WAL files) with
 * max_memcache_size set to sys_config.usage_schema_cache_size, 2 MiB (meta's main.rs,
 * DatabaseConfig::default() and set_max_memcache_size). Display only: DESCRIBE DATABASE shows them.
 */
export const USAGE_SCHEMA_OPTIONS: Readonly<DatabaseOptions> = {
  ...DEFAULT_DATABASE_OPTIONS,
  maxMemcacheSize: 2 * 1024 * 1024,
  walMaxFileSize: 1024 * 1024 * 1024,
};

/**
 * Creates usage_schema in the system tenant, and any of its tables that is missing, as CnosDB
 * has them from its first start (so DESCRIBE TABLE answers before the first report).
 */
export async function ensureUsageSchema(storage: Storage): Promise<void> {
  // Nodes of a cluster start at once: the one that loses the race to create an object finds it made.
  const made = (e: unknown, kind: 'databaseExists' | 'tableExists'): boolean =>
    e instanceof UserError && e.kind === kind;
  const db =
    storage.catalog.database(DEFAULT_TENANT, USAGE_DATABASE) ??
    (await storage
      .createDatabase(DEFAULT_TENANT, USAGE_DATABASE, { ...USAGE_SCHEMA_OPTIONS }, true)
      .catch((e: unknown) => {
        const found = storage.catalog.database(DEFAULT_TENANT, USAGE_DATABASE);
        if (found === undefined || !made(e, 'databaseExists')) throw e;
        return found;
      }));
  for (const [name, tags] of USAGE_TABLES) {
    if (db.tables.has(name)) continue;
    await storage
      .createTable(db, {
        name,
        tags: tags.map((t) => ({ name: t })),
        fields: [{ name: 'value', type: ValueType.Unsigned }],
      })
      .catch((e: unknown) => {
        if (!made(e, 'tableExists')) throw e;
      });
  }
}
