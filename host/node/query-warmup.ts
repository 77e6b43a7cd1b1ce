// Query path warm-up: V8 runs new JavaScript in its interpreter and compiles a function only once
// it has run enough, so the first queries after a start are slow (measured on the TSBS "mean per
// host per hour" query over 864k rows: 30-40 ms for runs 2 to 6 on a fresh server against 10 ms
// warm; "max per minute of one host" 3.5 ms against 0.9). Like the warming queries of Solr or of
// JVM services, the server therefore runs the common query shapes itself once it is ready: over a
// small generated data set in a scratch storage engine of its own (a temporary directory, removed
// afterwards; nothing of it reaches the user's data, catalog or query log), through the same
// SQL engine, read path (segment file and memtable), kernels and result writers that user queries
// take. It yields to the event loop between queries, so requests are served meanwhile, and it
// gives up quietly on any error: it only ever makes later queries faster. Before the queries,
// the same scratch storage takes the write warm-up (write-warmup.ts, `ingest.write_warmup`).
//
// Every other round goes through the HTTP route itself (`POST /api/v1/sql`, by hapi's `inject`:
// no socket, no listener) of a second SundialServer built over the scratch storage: its own
// authenticator, query registry and usage counters, the same route code (V8 shares compiled code
// and type feedback between the two servers' route functions). The engine alone left the route
// cold, and the route is most of a small query's cost: `SELECT 1` cost 0.6-1.0 ms of the server
// thread's CPU in each of its first 15 runs on a fresh server, against 0.19 warm. With the route
// warmed, those 14 runs after the first took 6.9-8.3 ms in all instead of 12.0-17.6 (three
// alternated pairs).

import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Core } from '../core/wasm.js';
import { SqlEngine } from '../engine/engine.js';
import { createResultWriter, type ResultFormat } from '../engine/format/index.js';
import type { QuerySession } from '../engine/query.js';
import { LineProtocolScanner } from '../ingest/line-protocol.js';
import { DEFAULT_DATABASE_OPTIONS } from '../meta/index.js';
import { Storage, storageCodecs } from '../storage/index.js';
import { StorageCatalog } from './engine-catalog.js';
import { InThreadParsers } from './parse-pool.js';
import { SundialServer, UsageMetrics } from '../server/index.js';
import { createServices } from './services.js';
import { SecretBox } from './secret-box.js';
import { warmWritePath } from './write-warmup.js';

/** The generated table: HOSTS series, a row every STEP_S seconds for ROWS rows each. */
const HOSTS = 24;
const ROWS = 2_160;
const STEP_S = 10;
const START_S = 1_451_606_400; // 2016-01-01T00:00:00Z
/** Rounds over QUERIES: enough for V8 to compile the per-chunk and per-query code. */
const ROUNDS = 40;

const iso = (s: number): string => new Date(s * 1000).toISOString();
const MID = START_S + (ROWS * STEP_S) / 2;
const END = START_S + ROWS * STEP_S;

/**
 * The shapes dashboards send most: time buckets per tag and of one series, a tag filter with a
 * value filter, plain aggregates, ORDER BY ... LIMIT, the last point per series. The last point
 * was left out while its path threw its own compiled code away query after query (storage.ts,
 * lastPoints): warmed here, on mixed field types, it made the TSBS "last point per host" query on
 * BIGINT fields slower (8-15 ms against 4-9 cold). With that fixed, warming it made that query's
 * runs 2-6 after the bench load take 17.1-19.0 ms of the server thread's CPU in all instead of
 * 19.6-22.7 (median run 4.2-5.8 ms against 5.8-7.1; three alternated pairs).
 */
const QUERIES = [
  `SELECT host, date_bin(INTERVAL '1 hour', time) AS t, avg(usage), max(load), count(*) FROM warm WHERE time >= '${iso(START_S)}' AND time < '${iso(END)}' GROUP BY host, t ORDER BY host, t`,
  `SELECT date_bin(INTERVAL '1 minute', time) AS t, max(usage) FROM warm WHERE host = 'h7' AND time >= '${iso(MID)}' AND time < '${iso(MID + 3600)}' GROUP BY t ORDER BY t`,
  `SELECT region, date_bin(INTERVAL '10 minutes', time) AS t, min(load), sum(usage) FROM warm WHERE region = 'r1' GROUP BY region, t ORDER BY region, t`,
  `SELECT time, host, usage, load, state FROM warm WHERE usage > 90 AND time >= '${iso(MID)}' ORDER BY time DESC LIMIT 20`,
  `SELECT host, count(usage), avg(load), last(time, usage) FROM warm GROUP BY host ORDER BY host`,
  `SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM warm) WHERE rn = 1 ORDER BY host`,
];

const FORMATS: readonly ResultFormat[] = ['csv', 'json'];

/** Line protocol for rows [from, to) of every host: BIGINT, DOUBLE, STRING and BOOLEAN fields. */
function lines(from: number, to: number): Uint8Array {
  const out: string[] = [];
  let x = 12345;
  for (let r = from; r < to; r++) {
    for (let h = 0; h < HOSTS; h++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const usage = x % 101;
      const load = (x % 10007) / 100;
      out.push(
        `warm,host=h${h},region=r${h % 3} usage=${usage}i,load=${load},state="s${x % 4}",up=${x % 7 !== 0} ${START_S + r * STEP_S}000000000`,
      );
    }
  }
  return new TextEncoder().encode(out.join('\n'));
}

/** What building the SQL route a second time takes: the server's settings and version. */
export interface WarmupRoute {
  config: Config;
  version: string;
}

/** The scratch storage's root, whose password is empty (`rootPasswordHash: ''`). */
const ROOT_AUTH = `Basic ${Buffer.from('root:').toString('base64')}`;

/** A SundialServer over the scratch storage, never listening: its routes take `inject`ed requests. */
async function scratchServer(
  route: WarmupRoute,
  core: Core,
  storage: Storage,
  usage: UsageMetrics,
  logger: Logger,
): Promise<SundialServer> {
  const server = new SundialServer(route.config, logger, route.version);
  server.ready(
    createServices(route.config, {
      core,
      storage,
      parsers: new InThreadParsers(core),
      usage,
      allowEmptyPassword: true,
      logger,
      secrets: SecretBox.inMemory(),
    }),
  );
  await server.hapi.initialize();
  return server;
}

/** Runs one query through the SQL route, as a client without an Accept header (CSV) or asking for JSON. */
async function viaRoute(server: SundialServer, sql: string, format: ResultFormat): Promise<void> {
  const headers: Record<string, string> = { authorization: ROOT_AUTH, 'content-type': 'text/plain' };
  if (format === 'json') headers.accept = 'application/json';
  const res = await server.hapi.inject({ method: 'POST', url: '/api/v1/sql?db=public', payload: sql, headers });
  if (res.statusCode !== 200)
    throw new Error(`a warm-up query answered ${res.statusCode}: ${res.payload.slice(0, 200)}`);
}

/**
 * Runs one query on `engine` to the end, formatting its rows as the route would. Its session has
 * a signal of its own, as the SQL route makes one per request (V8 compiles the engine's abort
 * checks for the map of the signals it sees, and the route's signals never get a listener),
 * aborted by `signal` through a listener on `signal`.
 */
async function viaEngine(engine: SqlEngine, sql: string, format: ResultFormat, signal: AbortSignal): Promise<void> {
  const query = new AbortController();
  const stop = (): void => query.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  const session: QuerySession = {
    tenant: 'cnosdb',
    database: 'public',
    user: { name: 'root', admin: true },
    signal: query.signal,
    memoryLimitBytes: 64 << 20,
    nowNs: BigInt(END) * 1_000_000_000n,
  };
  try {
    const result = await engine.run(sql, session);
    if (result.kind !== 'rows') return;
    const writer = createResultWriter(format, result.schema);
    for await (const batch of result.batches) writer.write(batch);
    writer.end();
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const PREFIX = 'sundial-warmup-';
/** A warm-up takes a few seconds: a directory of ours this old was left by a server killed during its warm-up. */
const STALE_MS = 60 * 60_000;

/**
 * Removes warm-up directories a killed server left in `dir` (up to about 3 MB each). Only old ones: another
 * server on this machine may be warming up in a young one. Errors are ignored (not ours to own).
 */
async function removeStale(dir: string, nowMs: number): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const path = join(dir, name);
    const st = await stat(path).catch(() => undefined);
    if (st?.isDirectory() === true && nowMs - st.mtimeMs > STALE_MS)
      await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** What a warm-up runs: the query shapes (`query.warmup`), high-cardinality writes (`ingest.write_warmup`). */
export interface WarmupParts {
  queries: boolean;
  writes: boolean;
}

/** The write part: logs how it went, never throws (a failure only leaves that code uncompiled). */
async function warmWrites(storage: Storage, logger: Logger, signal: AbortSignal): Promise<void> {
  const started = Date.now();
  try {
    const db = await storage.createDatabase('cnosdb', 'warm_writes', { ...DEFAULT_DATABASE_OPTIONS });
    const rows = await warmWritePath(storage, db, signal);
    logger.info({ rows, ms: Date.now() - started }, signal.aborted ? 'write warm-up stopped' : 'write path warmed up');
  } catch (err) {
    logger.warn({ err }, 'write warm-up failed (high-cardinality writes are only slower until V8 has compiled them)');
  }
}

/**
 * Runs the warm-up to the end (or until `signal` aborts it), removes its directory, and logs how
 * long each part took; never rejects. The writes come first (write-warmup.ts), in a database of
 * their own.
 */
export async function warmQueryPath(
  core: Core,
  logger: Logger,
  signal: AbortSignal,
  parts: WarmupParts,
  route: WarmupRoute,
): Promise<void> {
  const started = Date.now();
  let dir: string | undefined;
  let storage: Storage | undefined;
  let server: SundialServer | undefined;
  const cleanUp = async (): Promise<void> => {
    await server?.hapi.stop().catch(() => undefined);
    server = undefined;
    await storage?.close().catch(() => undefined);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    storage = undefined;
    dir = undefined;
  };
  try {
    await removeStale(tmpdir(), Date.now());
    dir = await mkdtemp(join(tmpdir(), PREFIX));
    storage = await Storage.open({
      dataDir: dir,
      logger: logger.child({ warmup: true }, { level: 'silent' }),
      rootPasswordHash: '',
      memtableBytes: 64 << 20,
      walSegmentBytes: 8 << 20,
      walSync: false,
      maintenanceIntervalMs: 0,
      blockCacheBytes: 16 << 20,
      codecs: storageCodecs(core),
    });
    await storage.recover();
    if (parts.writes) await warmWrites(storage, logger, signal);
    if (!parts.queries || signal.aborted) {
      await cleanUp();
      return;
    }
    const s = storage;
    const db = s.catalog.requireDatabase('cnosdb', 'public');
    const scanner = new LineProtocolScanner(core, { windowBytes: 1 << 20 });
    // Most rows in a segment file, the newest in the memtable, as on a running server; halfway
    // through, the memtable becomes a second file and the rest of the rows come (below).
    const write = (from: number, to: number): Promise<void> =>
      s.write(db, scanner.scan(lines(from, to), { tsMultiplier: 1n, tsDivisor: 1n, defaultTs: 0n }));
    await write(0, ROWS / 2);
    await s.flushAll(db);
    await write(ROWS / 2, (ROWS * 3) / 4);
    // Even rounds go through the route (its engines have a plan cache), odd ones to an engine
    // built as the route builds its own but without the cache, so that they plan afresh: with the
    // cache alone, parser and planner ran once per query text, and a server's first queries were
    // planned by cold code (the TSBS "max per minute of one host" query's first run took 33 and
    // 34 ms in two of three alternated runs, against 18-25). The usage counts go to a
    // UsageMetrics of the warm-up's own and are dropped.
    const usage = new UsageMetrics('warmup');
    const catalogFor = (tenant: string): StorageCatalog => new StorageCatalog(s, tenant, usage);
    const engine = new SqlEngine({ catalogFor, core });
    server = await scratchServer(route, core, s, usage, logger.child({ warmup: true }, { level: 'silent' }));
    let queries = 0;
    /** Of them, those sent through the SQL route. */
    let viaHttp = 0;
    for (let round = 0; round < ROUNDS && !signal.aborted; round++) {
      // A running server's queries meet new files after the read path is compiled. A file's
      // reader reads its series index at the first query that asks it (SegmentReader.lookup);
      // without a new file here that step ran only before V8 compiled the scan, which then left
      // it out and was thrown away at a server's first query after a flush (`--trace-deopt`:
      // "insufficient type feedback" in pieces).
      if (round === ROUNDS / 2) {
        await s.flushAll(db);
        await write((ROWS * 3) / 4, ROWS);
      }
      for (const sql of QUERIES) {
        if (signal.aborted) break;
        const format = FORMATS[queries % FORMATS.length]!;
        if (round % 2 === 0) {
          await viaRoute(server, sql, format);
          viaHttp++;
        } else {
          await viaEngine(engine, sql, format, signal);
        }
        queries++;
        await turn();
      }
    }
    await cleanUp();
    logger.info(
      { queries, viaHttp, ms: Date.now() - started },
      signal.aborted ? 'query warm-up stopped' : 'query path warmed up',
    );
  } catch (err) {
    await cleanUp();
    logger.warn({ err }, 'query warm-up failed (queries are only slower until V8 has compiled them)');
  }
}
