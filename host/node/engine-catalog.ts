// The query engine's view of one tenant of the storage engine (EngineCatalog over Storage):
// schemas from the storage catalog, reads (rows, block statistics, last points) from its read
// path, and DDL, writes and deletes through its operations. Names arrive resolved to the tenant.
// One exception, as in CnosDB: every tenant reads `usage_schema`, the system tenant's database
// of usage counters (usage-metrics.ts), seeing only the rows of its own tenant; only the system
// tenant writes to it or changes it.

import {
  addStreamQueryDef,
  createExternalTableDef,
  createStreamTableDef,
  type DatabaseDef,
  DEFAULT_TENANT,
  dropAfterMs,
  dropExternalTableDef,
  dropStreamTableDef,
  type ExternalTableDef,
  findPendingDrop,
  setStreamProgress,
  type StreamTableDef,
} from '../meta/index.js';
import type { DatabaseOptions } from '../core/schema.js';
import { ValueType, type FieldType } from '../core/write-batch.js';
import type {
  ColumnInfo,
  DatabaseInfo,
  DeleteRequest,
  EngineCatalog,
  ExternalTableInfo,
  LastRequest,
  ScanRequest,
  SeriesChunk,
  SeriesLast,
  StatsOrChunk,
  StatsRequest,
  StoredFileProblem,
  StreamTableInfo,
  TableChange,
  TableInfo,
} from '../engine/catalog.js';
import { tableInfo, USAGE_DATABASE, type UsageMetrics } from '../server/index.js';
import { bug } from '../core/errors.js';
import { parseTypeName } from '../engine/external/column-types.js';
import type { ObjectStoreConnection } from '../engine/external/external-files.js';
import { typeName } from '../engine/types/index.js';
import type { SkippedFiles, Storage } from '../storage/index.js';
import { type SecretBox, SEALED_OPTIONS } from './secret-box.js';

export class StorageCatalog implements EngineCatalog {
  readonly tenant: string;
  readonly #storage: Storage;
  readonly #usage: UsageMetrics | undefined;
  readonly #skipped: SkippedFiles | undefined;
  /** Seals an external table's secret options in the catalog; none where no table is created (the warm-up, tests). */
  readonly #secrets: SecretBox | undefined;

  /**
   * `usage`: where SQL writes (INSERT) are counted (usage_schema's sql_data_in and coord_*).
   * `skipped`: collects the damaged segment files reads left out (storage.skip_damaged_segments),
   * for the response's warning header.
   */
  constructor(storage: Storage, tenant: string, usage?: UsageMetrics, skipped?: Set<string>, secrets?: SecretBox) {
    this.#storage = storage;
    this.#secrets = secrets;
    this.tenant = tenant;
    this.#usage = usage;
    if (skipped !== undefined)
      this.#skipped = (files) =>
        files.forEach((f) => {
          skipped.add(f);
        });
  }

  get version(): number {
    return this.#storage.catalog.version;
  }

  #def(name: string): DatabaseDef | undefined {
    return this.#storage.catalog.database(this.tenant, name);
  }

  #require(name: string): DatabaseDef {
    return this.#storage.catalog.requireDatabase(this.tenant, name);
  }

  /** Whether `name` is the system tenant's usage_schema as another tenant reads it. */
  #sharedUsage(name: string): boolean {
    return this.tenant !== DEFAULT_TENANT && name === USAGE_DATABASE;
  }

  /** The database reads of `name` go to (usage_schema: the system tenant's). */
  #readDef(name: string): DatabaseDef | undefined {
    return this.#sharedUsage(name) ? this.#storage.catalog.database(DEFAULT_TENANT, USAGE_DATABASE) : this.#def(name);
  }

  #requireRead(name: string): DatabaseDef {
    return this.#sharedUsage(name)
      ? this.#storage.catalog.requireDatabase(DEFAULT_TENANT, USAGE_DATABASE)
      : this.#require(name);
  }

  /** A read request limited, in the shared usage_schema, to this tenant's series. */
  #own<R extends { seriesFilter?: (tags: ReadonlyMap<string, string>) => boolean }>(database: string, request: R): R {
    if (!this.#sharedUsage(database)) return request;
    const tenant = this.tenant;
    const inner = request.seriesFilter;
    return {
      ...request,
      seriesFilter: (tags) => tags.get('tenant') === tenant && (inner === undefined || inner(tags)),
    };
  }

  databases(): DatabaseInfo[] {
    return this.#storage.catalog.databases(this.tenant).map((d) => ({ name: d.name, options: d.options }));
  }

  database(name: string): DatabaseInfo | undefined {
    const d = this.#readDef(name);
    return d === undefined ? undefined : { name: d.name, options: d.options };
  }

  tables(database: string): TableInfo[] {
    const d = this.#readDef(database);
    return d === undefined ? [] : [...d.tables.values()].map((t) => tableInfo(d, t));
  }

  table(database: string, name: string): TableInfo | undefined {
    const d = this.#readDef(database);
    const t = d?.tables.get(name);
    return d === undefined || t === undefined ? undefined : tableInfo(d, t);
  }

  externalTables(database: string): ExternalTableInfo[] {
    const d = this.#def(database);
    return d?.externalTables === undefined
      ? []
      : [...d.externalTables.values()].map((t) => externalInfo(d, t, this.#secrets));
  }

  externalTable(database: string, name: string): ExternalTableInfo | undefined {
    const d = this.#def(database);
    const t = d?.externalTables?.get(name);
    return d === undefined || t === undefined ? undefined : externalInfo(d, t, this.#secrets);
  }

  async createExternalTable(database: string, t: ExternalTableInfo): Promise<void> {
    const db = this.#require(database);
    const columns = t.columns.map((c) => ({ name: c.name, type: typeName(c.type) }));
    const connection =
      t.connection === undefined
        ? {}
        : { connection: sealed({ ...t.connection }, this.#secrets) as NonNullable<ExternalTableDef['connection']> };
    await this.#storage.changeCatalog((c) =>
      createExternalTableDef(c, db, {
        name: t.name,
        location: t.location,
        fileType: t.fileType,
        hasHeader: t.hasHeader,
        delimiter: t.delimiter,
        columns,
        ...connection,
      }),
    );
  }

  async dropExternalTable(database: string, name: string): Promise<void> {
    const db = this.#require(database);
    await this.#storage.changeCatalog((c) => dropExternalTableDef(c, db, name));
  }

  streamTables(database: string): StreamTableInfo[] {
    const d = this.#def(database);
    return d?.streamTables === undefined ? [] : [...d.streamTables.values()].map((t) => streamInfo(d, t));
  }

  streamTable(database: string, name: string): StreamTableInfo | undefined {
    const d = this.#def(database);
    const t = d?.streamTables?.get(name);
    return d === undefined || t === undefined ? undefined : streamInfo(d, t);
  }

  async createStreamTable(database: string, t: Omit<StreamTableInfo, 'queries'>): Promise<void> {
    const db = this.#require(database);
    await this.#storage.changeCatalog((c) =>
      createStreamTableDef(c, db, {
        name: t.name,
        sourceDatabase: t.sourceDatabase,
        sourceTable: t.sourceTable,
        eventTimeColumn: t.eventTimeColumn,
        watermarkDelayMs: t.watermarkDelayMs,
        columns: t.columns,
      }),
    );
  }

  async dropStreamTable(database: string, name: string): Promise<void> {
    const db = this.#require(database);
    await this.#storage.changeCatalog((c) => dropStreamTableDef(c, db, name));
  }

  async addStreamQuery(
    database: string,
    stream: string,
    query: { sql: string; database: string; user: string },
  ): Promise<void> {
    const db = this.#require(database);
    await this.#storage.changeCatalog((c) => addStreamQueryDef(c, db, stream, query));
  }

  async setStreamProgress(database: string, stream: string, queryId: number, doneBeforeNs: bigint): Promise<void> {
    const db = this.#def(database);
    if (db === undefined) return;
    await this.#storage.changeCatalog((c) => setStreamProgress(c, db, stream, queryId, doneBeforeNs));
  }

  scan(database: string, table: string, request: ScanRequest): AsyncIterable<SeriesChunk> {
    return this.#storage.scan(this.#requireRead(database), table, this.#own(database, request), this.#skipped);
  }

  scanStats(database: string, table: string, request: StatsRequest): AsyncIterable<StatsOrChunk[]> {
    return this.#storage.scanStats(this.#requireRead(database), table, this.#own(database, request), this.#skipped);
  }

  lastPoints(database: string, table: string, request: LastRequest): Promise<SeriesLast[]> {
    return this.#storage.lastPoints(this.#requireRead(database), table, this.#own(database, request), this.#skipped);
  }

  async series(database: string, table: string): Promise<Iterable<ReadonlyMap<string, string>>> {
    const all = await this.#storage.series(this.#requireRead(database), table);
    if (!this.#sharedUsage(database)) return all;
    const tenant = this.tenant;
    return [...all].filter((tags) => tags.get('tenant') === tenant);
  }

  async write(database: string, batches: Uint8Array[]): Promise<void> {
    await this.#storage.write(this.#require(database), batches);
    this.#usage?.sqlWrite(
      this.tenant,
      database,
      batches.reduce((n, b) => n + b.length, 0),
    );
  }

  async createDatabase(name: string, options: DatabaseOptions): Promise<void> {
    await this.#storage.createDatabase(this.tenant, name, options);
  }

  async alterDatabase(name: string, options: DatabaseOptions): Promise<void> {
    await this.#storage.alterDatabase(this.tenant, name, options);
  }

  async dropDatabase(name: string, after?: string): Promise<void> {
    await this.#storage.dropDatabase(this.tenant, name, after === undefined ? undefined : dropAfterMs(after));
  }

  async recoverDatabase(name: string): Promise<void> {
    await this.#storage.recoverDropped('database', [this.tenant, name]);
  }

  async compactDatabase(name: string): Promise<void> {
    await this.#storage.compactDatabase(this.#require(name));
  }

  checkDatabase(name: string, repair: boolean): Promise<StoredFileProblem[]> {
    return this.#storage.checkDatabase(this.#require(name), repair);
  }

  dropPending(database: string, table?: string): boolean {
    const c = this.#storage.catalog;
    return table === undefined
      ? findPendingDrop(c, 'database', [this.tenant, database]) !== undefined
      : findPendingDrop(c, 'table', [this.tenant, database, table]) !== undefined;
  }

  async createTable(database: string, table: TableInfo): Promise<void> {
    const time = table.columns.find((c) => c.kind === 'time');
    await this.#storage.createTable(this.#require(database), {
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

  async alterTable(database: string, table: string, columns: ColumnInfo[], change: TableChange): Promise<void> {
    const db = this.#require(database);
    const column = (name: string): ColumnInfo =>
      columns.find((c) => c.name === name) ??
      (() => {
        throw bug(`ALTER TABLE: no column ${name} in the new column list`);
      })();
    switch (change.kind) {
      case 'add': {
        const c = column(change.column);
        await this.#storage.alterTable(
          db,
          table,
          c.kind === 'tag'
            ? { kind: 'addTag', name: c.name }
            : {
                kind: 'addField',
                name: c.name,
                type: storedType(c),
                codec: c.codec,
                ...(c.geometry === undefined ? {} : { geometry: c.geometry }),
              },
        );
        return;
      }
      case 'drop':
        await this.#storage.alterTable(db, table, { kind: 'dropColumn', name: change.column });
        return;
      case 'rename':
        await this.#storage.alterTable(db, table, { kind: 'renameColumn', from: change.from, to: change.to });
        return;
      case 'codec':
        await this.#storage.alterTable(db, table, {
          kind: 'setCodec',
          column: change.column,
          codec: column(change.column).codec,
        });
        return;
    }
  }

  async dropTable(database: string, table: string, after?: string): Promise<void> {
    await this.#storage.dropTable(this.#require(database), table, after === undefined ? undefined : dropAfterMs(after));
  }

  async recoverTable(database: string, table: string): Promise<void> {
    await this.#storage.recoverDropped('table', [this.tenant, database, table]);
  }

  async delete(database: string, table: string, request: DeleteRequest): Promise<void> {
    await this.#storage.delete(this.#require(database), table, request);
  }
}

function storedType(c: ColumnInfo): FieldType {
  if (c.valueType === undefined || c.valueType === ValueType.Tag) throw bug(`column ${c.name} has no field type`);
  return c.valueType;
}

/** The connection as the catalog stores it: the secret options sealed (secret-box.ts). */
function sealed(c: Record<string, unknown>, secrets: SecretBox | undefined): Record<string, unknown> {
  for (const k of SEALED_OPTIONS) {
    const v = c[k];
    if (typeof v !== 'string') continue;
    if (secrets === undefined) throw new Error('BUG: an external table with secrets created without a SecretBox');
    c[k] = secrets.seal(v);
  }
  return c;
}

function externalInfo(d: DatabaseDef, t: ExternalTableDef, secrets: SecretBox | undefined): ExternalTableInfo {
  let connection = {};
  if (t.connection !== undefined) {
    const c: Record<string, unknown> = { ...t.connection };
    for (const k of SEALED_OPTIONS) {
      const v = c[k];
      if (typeof v !== 'string') continue;
      if (secrets === undefined) throw new Error('BUG: an external table with secrets read without a SecretBox');
      c[k] = secrets.open(v, `external table ${d.name}.${t.name}`);
    }
    connection = { connection: c as unknown as ObjectStoreConnection };
  }
  return {
    database: d.name,
    name: t.name,
    location: t.location,
    fileType: t.fileType,
    hasHeader: t.hasHeader,
    delimiter: t.delimiter,
    columns: t.columns.map((c) => ({ name: c.name, type: parseTypeName(c.type) })),
    ...connection,
  };
}

function streamInfo(d: DatabaseDef, t: StreamTableDef): StreamTableInfo {
  return {
    database: d.name,
    name: t.name,
    sourceDatabase: t.sourceDatabase,
    sourceTable: t.sourceTable,
    eventTimeColumn: t.eventTimeColumn,
    watermarkDelayMs: t.watermarkDelayMs,
    columns: [...t.columns],
    queries: t.queries.map((q) => ({
      id: q.id,
      sql: q.sql,
      database: q.database,
      user: q.user,
      doneBeforeNs: q.doneBeforeNs === null ? null : BigInt(q.doneBeforeNs),
    })),
  };
}
