// The query engine's view of one tenant of the storage engine (EngineCatalog over Storage):
// schemas from the catalog, scans from the storage read path, writes through Storage.write.
// Schema changes (CREATE/ALTER/DROP DATABASE and TABLE) and DELETE need storage operations that
// the storage engine does not offer yet; until it does they answer "not implemented".

import { UserError } from '../core/errors.js';
import type { DatabaseOptions } from '../core/schema.js';
import { ValueType } from '../core/write-batch.js';
import { typeOfValueType } from '../engine/batch.js';
import type { ChunkColumn, ColumnInfo, DatabaseInfo, DeleteRequest, EngineCatalog, ScanRequest, SeriesChunk, TableChange, TableInfo } from '../engine/catalog.js';
import { timestamp, type TimeUnit } from '../engine/types.js';
import type { DatabaseDef, TableDef } from '../storage/catalog.js';
import type { Storage } from '../storage/storage.js';

function unitOf(precision: 'NS' | 'US' | 'MS'): TimeUnit {
  return precision === 'MS' ? 'Millisecond' : precision === 'US' ? 'Microsecond' : 'Nanosecond';
}

/** The engine's description of a stored table: time, then tags, then fields. */
export function tableInfo(db: DatabaseDef, t: TableDef): TableInfo {
  const columns: ColumnInfo[] = [{ name: 'time', kind: 'time', type: timestamp(unitOf(db.options.precision)), codec: t.timeCodec }];
  for (const c of t.tags) columns.push({ name: c.name, kind: 'tag', type: typeOfValueType(ValueType.Tag), valueType: ValueType.Tag, codec: c.codec });
  for (const c of t.fields) columns.push({ name: c.name, kind: 'field', type: typeOfValueType(c.type), valueType: c.type, codec: c.codec });
  return { database: db.name, name: t.name, columns };
}

function unsupported(what: string): UserError {
  return new UserError('notImplemented', `This feature is not implemented: ${what} (the storage engine does not support it yet)`);
}

export class StorageCatalog implements EngineCatalog {
  readonly tenant: string;
  readonly #storage: Storage;

  constructor(storage: Storage, tenant: string) {
    this.#storage = storage;
    this.tenant = tenant;
  }

  #def(name: string): DatabaseDef | undefined {
    return this.#storage.catalog.database(this.tenant, name);
  }

  #require(name: string): DatabaseDef {
    return this.#storage.catalog.requireDatabase(this.tenant, name);
  }

  databases(): DatabaseInfo[] {
    return this.#storage.catalog.databases(this.tenant).map((d) => ({ name: d.name, options: d.options }));
  }

  database(name: string): DatabaseInfo | undefined {
    const d = this.#def(name);
    return d === undefined ? undefined : { name: d.name, options: d.options };
  }

  tables(database: string): TableInfo[] {
    const d = this.#def(database);
    return d === undefined ? [] : [...d.tables.values()].map((t) => tableInfo(d, t));
  }

  table(database: string, name: string): TableInfo | undefined {
    const d = this.#def(database);
    const t = d?.tables.get(name);
    return d === undefined || t === undefined ? undefined : tableInfo(d, t);
  }

  async *scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk> {
    const db = this.#require(database);
    const series = this.#storage.scan(db, table, {
      ...(request.minTime === undefined ? {} : { minTs: request.minTime }),
      ...(request.maxTime === undefined ? {} : { maxTs: request.maxTime }),
    });
    for (const s of series) {
      if (request.seriesFilter !== undefined && !request.seriesFilter(s.tags)) continue;
      // Memtable arrays have spare capacity past `length`; chunks are exactly `length` long.
      const n = s.length;
      const fields = new Map<string, ChunkColumn>();
      for (const name of request.fields) {
        const c = s.columns.get(name);
        if (c === undefined) continue;
        const values = c.values.length === n ? c.values : Array.isArray(c.values) ? c.values.slice(0, n) : c.values.subarray(0, n);
        fields.set(name, { values, validity: c.validity?.subarray(0, n) });
      }
      yield { tags: s.tags, length: n, time: s.ts.length === n ? s.ts : s.ts.subarray(0, n), fields };
    }
  }

  series(database: string, table: string): Iterable<ReadonlyMap<string, string>> {
    return this.#storage.scan(this.#require(database), table).map((s) => s.tags);
  }

  async write(database: string, batches: Uint8Array[]): Promise<void> {
    await this.#storage.write(this.#require(database), batches);
  }

  async createDatabase(_name: string, _options: DatabaseOptions): Promise<void> {
    throw unsupported('CREATE DATABASE');
  }

  async alterDatabase(_name: string, _options: DatabaseOptions): Promise<void> {
    throw unsupported('ALTER DATABASE');
  }

  async dropDatabase(_name: string): Promise<void> {
    throw unsupported('DROP DATABASE');
  }

  async createTable(_database: string, _table: TableInfo): Promise<void> {
    throw unsupported('CREATE TABLE');
  }

  async alterTable(_database: string, _table: string, _columns: ColumnInfo[], _change: TableChange): Promise<void> {
    throw unsupported('ALTER TABLE');
  }

  async dropTable(_database: string, _table: string): Promise<void> {
    throw unsupported('DROP TABLE');
  }

  async delete(_database: string, _table: string, _request: DeleteRequest): Promise<void> {
    throw unsupported('DELETE');
  }
}
