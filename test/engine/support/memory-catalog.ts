// An EngineCatalog held in memory, for engine unit tests: databases, tables with ordered
// columns, series with rows merged field by field on the same timestamp (last write wins), scans
// that honour time bounds, field lists and series filters, series chunks of a chosen size. It
// decodes real write batches (host/core/write-batch.ts), so INSERT goes through the same bytes
// as on the server. The server's own adapter over the storage engine is tested over HTTP.

import type { ColumnInfo, DatabaseInfo, DeleteRequest, EngineCatalog, ScanRequest, SeriesChunk, TableChange, TableInfo } from '../../../host/engine/catalog.js';
import { ColumnKind, batchString, readWriteBatch, ValueType } from '../../../host/core/write-batch.js';
import type { DatabaseOptions } from '../../../host/core/schema.js';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import { UserError } from '../../../host/core/errors.js';
import { typeOfValueType } from '../../../host/engine/batch.js';
import { timestamp, type DataType } from '../../../host/engine/types.js';

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

export class MemoryCatalog implements EngineCatalog {
  readonly tenant = 'cnosdb';
  readonly #dbs = new Map<string, DbState>();
  /** Rows per chunk handed out by scan (to exercise chunked series). */
  chunkRows = 1 << 30;
  /** Scan requests seen, for pushdown tests. */
  readonly scans: ScanRequest[] = [];

  constructor() {
    this.#dbs.set('public', { info: { name: 'public', options: { ...DEFAULT_DATABASE_OPTIONS } }, tables: new Map() });
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
    if (d === undefined) throw new UserError('databaseNotFound', `Database not found: "${name}"`);
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
        .filter((ts) => (request.minTime === undefined || ts >= request.minTime) && (request.maxTime === undefined || ts <= request.maxTime))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      for (let start = 0; start < times.length; start += this.chunkRows) {
        const part = times.slice(start, start + this.chunkRows);
        const fields = new Map<string, { values: Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[]; validity: Uint8Array | undefined }>();
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

  series(database: string, table: string): Iterable<ReadonlyMap<string, string>> {
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
          const unit = db.info.options.precision === 'MS' ? 'Millisecond' : db.info.options.precision === 'US' ? 'Microsecond' : 'Nanosecond';
          const byName = [...bt.columns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          const tags = byName.filter((c) => c.kind === ColumnKind.Tag).map((c): ColumnInfo => ({ name: c.name, kind: 'tag', type: typeOfValueType(0), valueType: ValueType.Tag, codec: 'DEFAULT' }));
          const fields = byName.filter((c) => c.kind === ColumnKind.Field).map((c): ColumnInfo => ({ name: c.name, kind: 'field', type: typeOfValueType(c.type), valueType: c.type, codec: 'DEFAULT' }));
          t = { info: { database, name: bt.name, columns: [{ name: 'time', kind: 'time', type: timestamp(unit) as DataType, codec: 'DEFAULT' }, ...tags, ...fields] }, series: new Map() };
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
              const v: Value = c.strings !== undefined ? batchString(c.strings, r) : c.type === ValueType.Boolean ? (c.values as Uint8Array)[r] === 1 : (c.values as Float64Array)[r]!;
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
        if ((request.minTime === undefined || ts >= request.minTime) && (request.maxTime === undefined || ts <= request.maxTime)) s.rows.delete(ts);
      }
      if (s.rows.size === 0) t.series.delete(key);
    }
  }
}
