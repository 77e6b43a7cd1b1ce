// Runs everyday statement shapes through the engine and the result writers over a small
// synthetic table, so that V8 has compiled the parser, planner, optimizer and the operators' hot
// loops before the first user query arrives. A query engine written in JavaScript is several
// times slower on its first few executions than on its hundredth; without this, the first
// minutes after a start pay that (measured in bench/query.ts: a fresh server's first queries).
// The statements run one at a time with the event loop free between them, and the whole thing
// stops at `signal`. The table lives in memory only and nothing of it is visible to users.

import { DEFAULT_DATABASE_OPTIONS } from '../core/schema.js';
import { ValueType } from '../core/write-batch.js';
import type { Core } from '../core/wasm.js';
import type { RecordBatch } from './batch.js';
import type {
  ChunkColumn,
  ColumnInfo,
  DatabaseInfo,
  EngineCatalog,
  LastRequest,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
  TableInfo,
} from './catalog.js';
import { SqlEngine } from './engine.js';
import { createResultWriter, type ResultFormat } from './format/index.js';
import { timestamp, UTF8, FLOAT64, INT64, UINT64, BOOLEAN, type DataType } from './types.js';

const SERIES = 10;
const ROWS = 2160; // six hours at ten seconds
const CHUNK_ROWS = 720;
const START_NS = 1_451_606_400_000_000_000n; // 2016-01-01T00:00:00Z
const STEP_NS = 10_000_000_000n;

const STATEMENTS = [
  "SELECT date_bin(INTERVAL '1 minute', time) AS t, max(usage_user) AS m FROM cpu WHERE hostname = 'host_3' AND time >= '2016-01-01T01:00:00Z' AND time < '2016-01-01T02:00:00Z' GROUP BY t ORDER BY t",
  "SELECT hostname, date_bin(INTERVAL '1 hour', time) AS t, avg(usage_user) AS m FROM cpu WHERE time >= '2016-01-01T00:00:00Z' AND time < '2016-01-02T00:00:00Z' GROUP BY hostname, t ORDER BY hostname, t",
  'SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY hostname ORDER BY time DESC) AS rn FROM cpu) WHERE rn = 1 ORDER BY hostname',
  "SELECT * FROM cpu WHERE time >= '2016-01-01T05:00:00Z' ORDER BY time DESC LIMIT 10",
  'SELECT hostname, count(*), sum(n), min(u), max(usage_system), first(time, note), last(time, ok) FROM cpu GROUP BY hostname ORDER BY hostname',
  "SELECT region, count(*) FROM cpu WHERE usage_user > 50 AND region IN ('r1', 'r2') GROUP BY region",
  "SELECT hostname, usage_user * 2 + 1 AS x, n % 7 AS r FROM cpu WHERE note LIKE 'n1%' LIMIT 200",
];

const FORMATS: readonly ResultFormat[] = ['csv', 'json'];

function column(name: string, kind: ColumnInfo['kind'], type: DataType, valueType?: ValueType): ColumnInfo {
  return { name, kind, type, ...(valueType === undefined ? {} : { valueType }), codec: 'DEFAULT' };
}

const TABLE: TableInfo = {
  database: 'warm_up',
  name: 'cpu',
  columns: [
    column('time', 'time', timestamp('Nanosecond')),
    column('hostname', 'tag', UTF8, ValueType.Tag),
    column('region', 'tag', UTF8, ValueType.Tag),
    column('usage_user', 'field', FLOAT64, ValueType.Double),
    column('usage_system', 'field', FLOAT64, ValueType.Double),
    column('n', 'field', INT64, ValueType.BigInt),
    column('u', 'field', UINT64, ValueType.Unsigned),
    column('ok', 'field', BOOLEAN, ValueType.Boolean),
    column('note', 'field', UTF8, ValueType.String),
  ],
};

interface Series {
  tags: ReadonlyMap<string, string>;
  time: BigInt64Array;
  fields: Map<string, ChunkColumn>;
}

function makeSeries(): Series[] {
  const out: Series[] = [];
  for (let s = 0; s < SERIES; s++) {
    const time = new BigInt64Array(ROWS);
    const user = new Float64Array(ROWS);
    const system = new Float64Array(ROWS);
    const n = new BigInt64Array(ROWS);
    const u = new BigUint64Array(ROWS);
    const ok = new Uint8Array(ROWS);
    const note: string[] = [];
    const valid = new Uint8Array(ROWS);
    for (let i = 0; i < ROWS; i++) {
      time[i] = START_NS + BigInt(i) * STEP_NS;
      user[i] = ((i * 37 + s * 11) % 1000) / 10;
      system[i] = ((i * 13 + s) % 500) / 7;
      n[i] = BigInt((i * 7919 + s) % 100_000);
      u[i] = BigInt(i + s);
      ok[i] = (i + s) % 3 === 0 ? 1 : 0;
      note.push(`n${(i + s) % 50}`);
      valid[i] = i % 17 === 0 ? 0 : 1;
    }
    out.push({
      tags: new Map([
        ['hostname', `host_${s}`],
        ['region', `r${s % 4}`],
      ]),
      time,
      fields: new Map<string, ChunkColumn>([
        ['usage_user', { values: user, validity: undefined }],
        ['usage_system', { values: system, validity: valid }],
        ['n', { values: n, validity: undefined }],
        ['u', { values: u, validity: undefined }],
        ['ok', { values: ok, validity: undefined }],
        ['note', { values: note, validity: valid }],
      ]),
    });
  }
  return out;
}

function lowerBound(time: BigInt64Array, v: bigint): number {
  let lo = 0;
  let hi = time.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A read-only catalog of one database with the synthetic table; mutations are refused. */
class WarmUpCatalog implements EngineCatalog {
  readonly tenant = 'warm_up';
  readonly #db: DatabaseInfo = { name: 'warm_up', options: { ...DEFAULT_DATABASE_OPTIONS } };
  readonly #series = makeSeries();

  databases(): DatabaseInfo[] {
    return [this.#db];
  }

  database(name: string): DatabaseInfo | undefined {
    return name === this.#db.name ? this.#db : undefined;
  }

  tables(database: string): TableInfo[] {
    return database === this.#db.name ? [TABLE] : [];
  }

  table(database: string, name: string): TableInfo | undefined {
    return database === this.#db.name && name === TABLE.name ? TABLE : undefined;
  }

  async *scan(_database: string, _table: string, request: ScanRequest): AsyncIterable<SeriesChunk> {
    for (const s of this.#series) {
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      const from = request.minTime === undefined ? 0 : lowerBound(s.time, request.minTime);
      const to = request.maxTime === undefined ? ROWS : lowerBound(s.time, request.maxTime + 1n);
      for (let a = from; a < to; a += CHUNK_ROWS) {
        const b = Math.min(to, a + CHUNK_ROWS);
        const fields = new Map<string, ChunkColumn>();
        for (const f of request.fields) {
          const c = s.fields.get(f);
          if (c !== undefined) fields.set(f, { values: Array.isArray(c.values) ? c.values.slice(a, b) : c.values.subarray(a, b), validity: c.validity?.subarray(a, b) });
        }
        yield { tags: s.tags, length: b - a, time: s.time.subarray(a, b), fields };
      }
    }
  }

  async *scanStats(database: string, table: string, request: StatsRequest): AsyncIterable<StatsOrChunk> {
    for await (const chunk of this.scan(database, table, request)) yield { kind: 'chunk', chunk };
  }

  async lastPoints(_database: string, _table: string, request: LastRequest): Promise<SeriesLast[]> {
    return this.#series
      .filter((s) => request.seriesFilter === undefined || request.seriesFilter(s.tags))
      .map((s) => {
        const fields = new Map<string, { time: bigint; value: number | bigint | string | boolean }>();
        for (const f of request.fields) {
          const c = s.fields.get(f);
          if (c === undefined) continue;
          let i = ROWS - 1;
          while (i >= 0 && c.validity !== undefined && c.validity[i] === 0) i--;
          if (i < 0) continue;
          const v = (c.values as ArrayLike<number | bigint | string>)[i]!;
          fields.set(f, { time: s.time[i]!, value: f === 'ok' ? v === 1 : v });
        }
        return { tags: s.tags, fields };
      });
  }

  series(): Iterable<ReadonlyMap<string, string>> {
    return this.#series.map((s) => s.tags);
  }

  createDatabase(): Promise<void> {
    return this.#readOnly();
  }
  alterDatabase(): Promise<void> {
    return this.#readOnly();
  }
  dropDatabase(): Promise<void> {
    return this.#readOnly();
  }
  createTable(): Promise<void> {
    return this.#readOnly();
  }
  alterTable(): Promise<void> {
    return this.#readOnly();
  }
  dropTable(): Promise<void> {
    return this.#readOnly();
  }
  write(): Promise<void> {
    return this.#readOnly();
  }
  delete(): Promise<void> {
    return this.#readOnly();
  }

  #readOnly(): Promise<void> {
    return Promise.reject(new Error('the warm-up catalog is read-only'));
  }
}

export interface WarmUpOptions {
  core?: Core;
  /** Times each statement runs (default 20). */
  rounds?: number;
  /** Stops the warm-up between statements (server shutdown). */
  signal?: AbortSignal;
  /** Called between statements to let other work run (the server's event loop). */
  pause: () => Promise<void>;
}

/** Runs the statements `rounds` times; resolves to the number of statements run. */
export async function warmUp(options: WarmUpOptions): Promise<number> {
  const catalog = new WarmUpCatalog();
  const engine = new SqlEngine({ catalogFor: () => catalog, ...(options.core === undefined ? {} : { core: options.core }) });
  const signal = options.signal ?? new AbortController().signal;
  let count = 0;
  for (let r = 0; r < (options.rounds ?? 20); r++) {
    for (const sql of STATEMENTS) {
      if (signal.aborted) return count;
      const result = await engine.run(sql, {
        tenant: catalog.tenant,
        database: 'warm_up',
        user: { name: 'warm_up', admin: true },
        signal,
        memoryLimitBytes: 64 * 1024 * 1024,
        nowNs: START_NS,
      });
      if (result.kind === 'rows') {
        const writers = FORMATS.map((f) => createResultWriter(f, result.schema));
        for await (const batch of result.batches as AsyncIterable<RecordBatch>) for (const w of writers) w.write(batch);
        for (const w of writers) w.end();
      }
      count++;
      await options.pause();
    }
  }
  return count;
}
