// An EngineCatalog held in memory, for engine unit tests: databases, tables with ordered
// columns, series with rows merged field by field on the same timestamp (last write wins), scans
// that honour time bounds, field lists and series filters, series chunks of a chosen size. It
// decodes real write batches (host/core/write-batch.ts), so INSERT goes through the same bytes
// as on the server. The server's own adapter over the storage engine is tested over HTTP.
// Optionally (MemoryCatalogOptions) it also serves block statistics and last points the way the
// storage engine does: each series cut into blocks of a fixed number of rows.

import type {
  ColumnInfo,
  DatabaseInfo,
  DeleteRequest,
  EngineCatalog,
  FieldStats,
  LastRequest,
  LastValue,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
  TableChange,
  TableInfo,
} from '../../../host/engine/catalog.js';
import { ColumnKind, batchString, readWriteBatch, ValueType } from '../../../host/core/write-batch.js';
import type { DatabaseOptions } from '../../../host/core/schema.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { typeOfValueType } from '../../../host/engine/types/batch.js';
import { timestamp, type DataType } from '../../../host/engine/types/data-types.js';
import { databaseNotFound } from '../../../host/core/meta-errors.js';

type Value = number | bigint | boolean | string;

interface SeriesState {
  tags: Map<string, string>;
  rows: Map<bigint, Map<string, Value>>;
}

interface TableState {
  info: TableInfo;
  series: Map<string, SeriesState>;
}

interface DbState {
  info: DatabaseInfo;
  tables: Map<string, TableState>;
}

export interface MemoryCatalogOptions {
  /** Serve scanStats, with each series cut into blocks of this many rows. */
  statsBlockRows?: number;
  /** Serve lastPoints. */
  lastPoints?: boolean;
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

export class MemoryCatalog implements EngineCatalog {
  readonly tenant = 'cnosdb';
  /** Set by plan cache tests (which change it, or not, on purpose); undefined: plans are never reused. */
  version: number | undefined = undefined;
  readonly #dbs = new Map<string, DbState>();
  /** Rows per chunk handed out by scan (to exercise chunked series). */
  chunkRows = 1 << 30;
  /** Scan requests seen, for pushdown tests. */
  readonly scans: ScanRequest[] = [];
  /** Blocks handed out as statistics, and lastPoints calls, for pushdown tests. */
  statsServed = 0;
  lastPointsServed = 0;
  readonly scanStats?: (database: string, table: string, request: StatsRequest) => AsyncIterable<StatsOrChunk[]>;
  readonly lastPoints?: (database: string, table: string, request: LastRequest) => Promise<SeriesLast[]>;

  constructor(options: MemoryCatalogOptions = {}) {
    this.#dbs.set('public', { info: { name: 'public', options: { ...DEFAULT_DATABASE_OPTIONS } }, tables: new Map() });
    if (options.statsBlockRows !== undefined) {
      const blockRows = options.statsBlockRows;
      this.scanStats = (database, table, request) => this.#scanStats(database, table, request, blockRows);
    }
    if (options.lastPoints === true)
      this.lastPoints = async (database, table, request) => this.#lastPoints(database, table, request);
  }

  /** Blocks within the request's range (and one bucket) as statistics; the rest as rows (a batch of one item each). */
  async *#scanStats(
    database: string,
    table: string,
    request: StatsRequest,
    blockRows: number,
  ): AsyncIterable<StatsOrChunk[]> {
    const t = this.#db(database).tables.get(table);
    if (t === undefined) return;
    const bucketOf = (ts: bigint): bigint | undefined => {
      if (request.bucket === undefined) return undefined;
      const d = ts - request.bucket.origin;
      const w = request.bucket.width;
      return d >= 0n ? d / w : -((-d + w - 1n) / w);
    };
    for (const key of [...t.series.keys()].sort()) {
      const s = t.series.get(key)!;
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      const times = [...s.rows.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (let start = 0; start < times.length; start += blockRows) {
        const block = times.slice(start, start + blockRows);
        const lo = block[0]!;
        const hi = block[block.length - 1]!;
        const inRange =
          (request.minTime === undefined || lo >= request.minTime) &&
          (request.maxTime === undefined || hi <= request.maxTime);
        if (inRange && bucketOf(lo) === bucketOf(hi)) {
          const fields = new Map<string, FieldStats>();
          for (const f of request.fields) {
            const col = t.info.columns.find((c) => c.name === f);
            if (col?.kind === 'field')
              fields.set(
                f,
                blockStats(
                  col.type.id,
                  block.map((ts) => s.rows.get(ts)!.get(f)),
                ),
              );
          }
          this.statsServed++;
          yield [{ kind: 'stats', stats: { tags: s.tags, rows: block.length, minTime: lo, maxTime: hi, fields } }];
          continue;
        }
        for await (const chunk of this.scan(database, table, {
          ...request,
          seriesFilter: (tags) => tags === s.tags,
          minTime: max(lo, request.minTime),
          maxTime: min(hi, request.maxTime),
        })) {
          yield [{ kind: 'chunk', chunk }];
        }
      }
    }
  }

  async #lastPoints(database: string, table: string, request: LastRequest): Promise<SeriesLast[]> {
    this.lastPointsServed++;
    const t = this.#db(database).tables.get(table);
    if (t === undefined) return [];
    const out: SeriesLast[] = [];
    for (const key of [...t.series.keys()].sort()) {
      const s = t.series.get(key)!;
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      const fields = new Map<string, LastValue>();
      for (const [ts, row] of s.rows) {
        for (const f of request.fields) {
          const v = row.get(f);
          if (v !== undefined && (fields.get(f)?.time ?? I64_MIN) <= ts) fields.set(f, { time: ts, value: v });
        }
      }
      if (fields.size > 0) out.push({ tags: s.tags, fields });
    }
    return out;
  }

  databases(): DatabaseInfo[] {
    return [...this.#dbs.values()].map((d) => d.info);
  }

  database(name: string): DatabaseInfo | undefined {
    return this.#dbs.get(name)?.info;
  }

  tables(database: string): TableInfo[] {
    return [...(this.#dbs.get(database)?.tables.values() ?? [])].map((t) => t.info);
  }

  table(database: string, name: string): TableInfo | undefined {
    return this.#dbs.get(database)?.tables.get(name)?.info;
  }

  #db(name: string): DbState {
    const d = this.#dbs.get(name);
    if (d === undefined) throw databaseNotFound(name);
    return d;
  }

  async *scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk> {
    this.scans.push(request);
    const t = this.#db(database).tables.get(table);
    if (t === undefined) return;
    const keys = [...t.series.keys()].sort();
    for (const key of keys) {
      const s = t.series.get(key)!;
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      const times = [...s.rows.keys()]
        .filter(
          (ts) =>
            (request.minTime === undefined || ts >= request.minTime) &&
            (request.maxTime === undefined || ts <= request.maxTime),
        )
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (let start = 0; start < times.length; start += this.chunkRows) {
        const part = times.slice(start, start + this.chunkRows);
        const fields = new Map<
          string,
          {
            values: Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];
            validity: Uint8Array | undefined;
          }
        >();
        for (const f of request.fields) {
          const col = t.info.columns.find((c) => c.name === f);
          if (col === undefined || col.kind !== 'field') continue;
          const n = part.length;
          let values: Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];
          switch (col.type.id) {
            case 'Float64':
              values = new Float64Array(n);
              break;
            case 'Int64':
              values = new BigInt64Array(n);
              break;
            case 'UInt64':
              values = new BigUint64Array(n);
              break;
            case 'Boolean':
              values = new Uint8Array(n);
              break;
            default:
              values = new Array<string>(n).fill('');
          }
          const validity = new Uint8Array(n);
          let any = false;
          part.forEach((ts, i) => {
            const v = s.rows.get(ts)!.get(f);
            if (v === undefined) return;
            any = true;
            validity[i] = 1;
            (values as unknown as Value[])[i] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
          });
          if (any) fields.set(f, { values, validity: validity.every((x) => x === 1) ? undefined : validity });
        }
        yield { tags: s.tags, length: part.length, time: BigInt64Array.from(part), fields };
      }
    }
  }

  async series(database: string, table: string): Promise<Iterable<ReadonlyMap<string, string>>> {
    const t = this.#db(database).tables.get(table);
    return t === undefined ? [] : [...t.series.values()].map((s) => s.tags);
  }

  async createDatabase(name: string, options: DatabaseOptions): Promise<void> {
    this.#dbs.set(name, { info: { name, options }, tables: new Map() });
  }

  async alterDatabase(name: string, options: DatabaseOptions): Promise<void> {
    this.#db(name).info.options = options;
  }

  async dropDatabase(name: string): Promise<void> {
    this.#dbs.delete(name);
  }

  async createTable(database: string, table: TableInfo): Promise<void> {
    this.#db(database).tables.set(table.name, { info: table, series: new Map() });
  }

  async alterTable(database: string, table: string, columns: ColumnInfo[], change: TableChange): Promise<void> {
    const t = this.#db(database).tables.get(table)!;
    t.info = { ...t.info, columns };
    for (const s of t.series.values()) {
      if (change.kind === 'drop') for (const r of s.rows.values()) r.delete(change.column);
      if (change.kind === 'rename') {
        if (s.tags.has(change.from)) {
          s.tags.set(change.to, s.tags.get(change.from)!);
          s.tags.delete(change.from);
        }
        for (const r of s.rows.values()) {
          if (r.has(change.from)) {
            r.set(change.to, r.get(change.from)!);
            r.delete(change.from);
          }
        }
      }
    }
  }

  async dropTable(database: string, table: string): Promise<void> {
    this.#db(database).tables.delete(table);
  }

  async write(database: string, batches: Uint8Array[]): Promise<void> {
    const db = this.#db(database);
    for (const bytes of batches) {
      const batch = readWriteBatch(bytes);
      for (const bt of batch.tables) {
        let t = db.tables.get(bt.name);
        if (t === undefined) {
          const unit =
            db.info.options.precision === 'MS'
              ? 'Millisecond'
              : db.info.options.precision === 'US'
                ? 'Microsecond'
                : 'Nanosecond';
          const byName = [...bt.columns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          const tags = byName
            .filter((c) => c.kind === ColumnKind.Tag)
            .map(
              (c): ColumnInfo => ({
                name: c.name,
                kind: 'tag',
                type: typeOfValueType(0),
                valueType: ValueType.Tag,
                codec: 'DEFAULT',
              }),
            );
          const fields = byName
            .filter((c) => c.kind === ColumnKind.Field)
            .map(
              (c): ColumnInfo => ({
                name: c.name,
                kind: 'field',
                type: typeOfValueType(c.type),
                valueType: c.type,
                codec: 'DEFAULT',
              }),
            );
          t = {
            info: {
              database,
              name: bt.name,
              columns: [
                { name: 'time', kind: 'time', type: timestamp(unit) as DataType, codec: 'DEFAULT' },
                ...tags,
                ...fields,
              ],
            },
            series: new Map(),
          };
          db.tables.set(bt.name, t);
        }
        for (const s of bt.series) {
          const tags = new Map(s.tags.map(([ci, v]) => [bt.columns[ci]!.name, v]));
          let st = t.series.get(s.key);
          if (st === undefined) t.series.set(s.key, (st = { tags, rows: new Map() }));
          for (let r = s.rowStart; r < s.rowStart + s.rowCount; r++) {
            const ts = bt.timestamps[r]!;
            let row = st.rows.get(ts);
            if (row === undefined) st.rows.set(ts, (row = new Map()));
            for (const c of bt.columns) {
              if (c.kind !== ColumnKind.Field) continue;
              if (c.validity !== undefined && c.validity[r] === 0) continue;
              const v: Value =
                c.strings !== undefined
                  ? batchString(c.strings, r)
                  : c.type === ValueType.Boolean
                    ? (c.values as Uint8Array)[r] === 1
                    : (c.values as Float64Array)[r]!;
              row.set(c.name, v);
            }
          }
        }
      }
    }
  }

  async delete(database: string, table: string, request: DeleteRequest): Promise<void> {
    const t = this.#db(database).tables.get(table);
    if (t === undefined) return;
    for (const [key, s] of t.series) {
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      for (const ts of [...s.rows.keys()]) {
        if (
          (request.minTime === undefined || ts >= request.minTime) &&
          (request.maxTime === undefined || ts <= request.maxTime)
        )
          s.rows.delete(ts);
      }
      if (s.rows.size === 0) t.series.delete(key);
    }
  }
}

function max(a: bigint, b: bigint | undefined): bigint {
  return b === undefined || a > b ? a : b;
}

function min(a: bigint, b: bigint | undefined): bigint {
  return b === undefined || a < b ? a : b;
}

/** The storage engine's block statistics rules: no min/max for DOUBLE with NaN, no sum past 64 bits, only a count for STRING. */
function blockStats(type: string, values: (Value | undefined)[]): FieldStats {
  const present = values.filter((v) => v !== undefined);
  const count = present.length;
  if (count === 0) return { count };
  switch (type) {
    case 'Float64': {
      const xs = present as number[];
      const sum = xs.reduce((a, b) => a + b, 0);
      return xs.some((x) => Number.isNaN(x))
        ? { count, sum }
        : { count, min: Math.min(...xs), max: Math.max(...xs), sum };
    }
    case 'Int64':
    case 'UInt64': {
      const xs = present as bigint[];
      const sum = xs.reduce((a, b) => a + b, 0n);
      const lo = xs.reduce((a, b) => (b < a ? b : a));
      const hi = xs.reduce((a, b) => (b > a ? b : a));
      return sum >= I64_MIN && sum <= I64_MAX ? { count, min: lo, max: hi, sum } : { count, min: lo, max: hi };
    }
    case 'Boolean': {
      const trues = present.filter((v) => v === true).length;
      return { count, min: trues === count ? 1 : 0, max: trues > 0 ? 1 : 0, sum: trues };
    }
    default:
      return { count };
  }
}
