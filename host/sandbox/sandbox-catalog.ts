// The query engine's view of the sandbox (EngineCatalog over SandboxStore), the counterpart of
// the server's node/engine-catalog.ts: schemas from the same meta catalog, reads through the
// server's read path (scanTable, scanTableStats, listSeries). DDL that creates and drops works;
// what would rewrite stored segments (DELETE, ALTER TABLE, COMPACT) is not implemented here.

import { UserError } from '../core/errors.js';
import type { DatabaseOptions } from '../core/schema.js';
import { ValueType, type FieldType } from '../core/write-batch.js';
import type {
  ColumnInfo,
  DatabaseInfo,
  EngineCatalog,
  LastRequest,
  LastValue,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
  TableInfo,
} from '../engine/catalog.js';
import { DEFAULT_TENANT } from '../meta/catalog.js';
import { createTableDef } from '../meta/catalog-ddl.js';
import { lastValues, listSeries, scanTable, scanTableStats } from '../storage/read/read-path.js';
import { bounds } from '../storage/read/read-view.js';
import { tableInfo } from '../server/table-info.js';
import type { SandboxStore } from './sandbox-store.js';

const notHere = (what: string): UserError =>
  new UserError('notImplemented', `${what} is not available in the sandbox (it runs on the server)`);

export class SandboxCatalog implements EngineCatalog {
  readonly tenant = DEFAULT_TENANT;
  readonly #store: SandboxStore;
  /**
   * The newest value of each field per series (`lastPoints`), as the server's LastPointCache
   * keeps them: 'db\0table id\0series key' -> column id -> [time, value] or null. Emptied when
   * the store's generation moves (a write, load or drop).
   */
  #last = new Map<string, Map<number, [bigint, unknown] | null>>();
  #lastGeneration = -1;

  constructor(store: SandboxStore) {
    this.#store = store;
  }

  get version(): number {
    return this.#store.catalog.version;
  }

  databases(): DatabaseInfo[] {
    return this.#store.catalog.databases(DEFAULT_TENANT).map((d) => ({ name: d.name, options: d.options }));
  }

  database(name: string): DatabaseInfo | undefined {
    const d = this.#store.database(name);
    return d === undefined ? undefined : { name: d.name, options: d.options };
  }

  tables(database: string): TableInfo[] {
    const d = this.#store.database(database);
    return d === undefined ? [] : [...d.tables.values()].map((t) => tableInfo(d, t));
  }

  table(database: string, name: string): TableInfo | undefined {
    const d = this.#store.database(database);
    const t = d?.tables.get(name);
    return d === undefined || t === undefined ? undefined : tableInfo(d, t);
  }

  scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk> {
    const t = this.#store.database(database)?.tables.get(table);
    return t === undefined ? empty() : scanTable(this.#store.view(database), t, request);
  }

  scanStats(database: string, table: string, request: StatsRequest): AsyncIterable<StatsOrChunk[]> {
    const t = this.#store.database(database)?.tables.get(table);
    return t === undefined ? empty() : scanTableStats(this.#store.view(database), t, request);
  }

  /** As the server's Storage.lastPoints: the newest value of each field per series, read from the newest rows back. */
  async lastPoints(database: string, table: string, request: LastRequest): Promise<SeriesLast[]> {
    const t = this.#store.database(database)?.tables.get(table);
    if (t === undefined) return [];
    if (this.#lastGeneration !== this.#store.generation) {
      this.#last = new Map();
      this.#lastGeneration = this.#store.generation;
    }
    const fields = t.fields.filter((c) => request.fields.includes(c.name));
    const view = this.#store.view(database);
    const out: SeriesLast[] = [];
    for (const s of await listSeries(view, t, bounds(view), request.seriesFilter)) {
      const key = `${database}\0${t.id}\0${s.key}`;
      let entry = this.#last.get(key);
      const missing = fields.filter((c) => entry === undefined || !entry.has(c.id)).map((c) => c.id);
      if (missing.length > 0) {
        const got = await lastValues(view, t, s, missing);
        if (entry === undefined) this.#last.set(key, (entry = new Map()));
        for (const [id, v] of got) entry.set(id, v);
      }
      const values = new Map<string, LastValue>();
      for (const c of fields) {
        const v = entry!.get(c.id);
        if (v === null || v === undefined) continue;
        values.set(c.name, {
          time: v[0],
          value: c.type === ValueType.Boolean ? v[1] === 1 : (v[1] as LastValue['value']),
        });
      }
      if (values.size > 0) out.push({ tags: s.names, fields: values });
    }
    return out;
  }

  async series(database: string, table: string): Promise<Iterable<ReadonlyMap<string, string>>> {
    const t = this.#store.database(database)?.tables.get(table);
    if (t === undefined) return [];
    const view = this.#store.view(database);
    return (await listSeries(view, t, bounds(view))).map((s) => s.names);
  }

  async write(database: string, batches: Uint8Array[]): Promise<void> {
    this.#store.write(database, batches);
  }

  async createDatabase(name: string, options: DatabaseOptions): Promise<void> {
    this.#store.createDatabase(name, options);
  }

  async alterDatabase(): Promise<void> {
    throw notHere('ALTER DATABASE');
  }

  async dropDatabase(name: string): Promise<void> {
    this.#store.dropDatabase(name);
  }

  async createTable(database: string, table: TableInfo): Promise<void> {
    const db = this.#store.catalog.requireDatabase(DEFAULT_TENANT, database);
    const time = table.columns.find((c) => c.kind === 'time');
    createTableDef(this.#store.catalog, db, {
      name: table.name,
      tags: table.columns.filter((c) => c.kind === 'tag').map((c) => ({ name: c.name, codec: c.codec })),
      fields: table.columns
        .filter((c) => c.kind === 'field')
        .map((c) => ({
          name: c.name,
          type: storedType(c),
          codec: c.codec,
          ...(c.geometry === undefined ? {} : { geometry: c.geometry }),
        })),
      ...(time === undefined ? {} : { timeCodec: time.codec }),
    });
  }

  async alterTable(): Promise<void> {
    throw notHere('ALTER TABLE');
  }

  async dropTable(database: string, table: string): Promise<void> {
    this.#store.dropTable(database, table);
  }

  async delete(): Promise<void> {
    throw notHere('DELETE');
  }
}

async function* empty<T>(): AsyncGenerator<T> {}

function storedType(c: ColumnInfo): FieldType {
  if (c.valueType === undefined || c.valueType === ValueType.Tag)
    throw new Error(`BUG: column ${c.name} has no field type`);
  return c.valueType;
}
