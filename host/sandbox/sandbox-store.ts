// The browser sandbox's storage: the server's own pieces over memory, no Node. Each database has
// segment files (loaded from GET /api/v1/export, opened with the server's SegmentReader over a
// MemorySegmentStore) and one memtable (rows of dropped files and the demo set, written as
// encoded write batches exactly as the server's write path applies them); reads go through the
// server's read path (storage/read). Runtime-agnostic: the Node tests run it as it is, the
// sandbox bundle swaps the three Node modules the segment files use for browser ones (build).

import { UserError } from '../core/errors.js';
import { databaseNotFound } from '../core/meta-errors.js';
import type { DatabaseOptions } from '../core/schema.js';
import { readWriteBatch } from '../core/write-batch.js';
import type { Core } from '../core/wasm.js';
import {
  Catalog,
  DEFAULT_DATABASE,
  DEFAULT_DATABASE_OPTIONS,
  DEFAULT_TENANT,
  ROOT_USER,
  stampsOf,
  type DatabaseDef,
  type TableDef,
} from '../meta/catalog.js';
import { createDatabaseDef, dropDatabaseDef } from '../meta/catalog-ddl.js';
import { Memtable } from '../storage/memtable/memtable.js';
import type { ReadView } from '../storage/read/read-view.js';
import { BlockCache } from '../storage/segment/block-cache.js';
import { storageCodecs } from '../storage/segment/codecs.js';
import type { ColumnCodecs } from '../storage/segment/column-codecs.js';
import { decodeExport, type ExportSchema } from '../storage/segment/export-format.js';
import { MemorySegmentStore } from '../storage/segment/memory-segment-store.js';
import { type CachedBlock, SegmentReader } from '../storage/segment/segment-reader.js';

/** Decoded blocks kept between queries (the browser's share of the server's block cache). */
const BLOCK_CACHE_BYTES = 64 * 1024 * 1024;

/** What the sandbox may hold by default: a browser tab has a few GB at most, often less. */
export const DEFAULT_SANDBOX_BYTES = 1024 * 1024 * 1024;

interface SandboxDatabase {
  def: DatabaseDef;
  /** Segment files, oldest first, with the table each holds (an export is one table's). */
  segments: Array<{ reader: SegmentReader; tableId: number; bytes: number }>;
  memtable: Memtable;
  lsn: number;
}

export interface LoadSummary {
  database: string;
  table: string;
  rows: number;
  segments: number;
  bytes: number;
}

export class SandboxStore {
  readonly catalog = new Catalog();
  readonly codecs: ColumnCodecs;
  readonly #cache = new BlockCache<CachedBlock>(BLOCK_CACHE_BYTES);
  readonly #files = new MemorySegmentStore();
  readonly #dbs = new Map<string, SandboxDatabase>();
  readonly #limitBytes: number;
  #nextFile = 1;
  #generation = 0;

  /** `limitBytes`: what loads and writes may hold in total before they are refused. */
  constructor(core: Core, limitBytes = DEFAULT_SANDBOX_BYTES) {
    this.codecs = storageCodecs(core);
    this.#limitBytes = limitBytes;
    this.catalog.addTenant({
      id: this.catalog.nextId(),
      name: DEFAULT_TENANT,
      comment: null,
      dropAfter: null,
      limiter: null,
      members: new Map([[ROOT_USER, 'owner']]),
      roles: new Map(),
    });
    this.createDatabase(DEFAULT_DATABASE, { ...DEFAULT_DATABASE_OPTIONS });
  }

  /** Bytes held: segment files as loaded plus what the memtables hold. */
  get bytes(): number {
    let n = 0;
    for (const d of this.#dbs.values()) {
      n += d.memtable.bytes;
      for (const s of d.segments) n += s.bytes;
    }
    return n;
  }

  /** Changes whenever rows are written, loaded or dropped (what caches of read results check). */
  get generation(): number {
    return this.#generation;
  }

  get limitBytes(): number {
    return this.#limitBytes;
  }

  #checkRoom(adding: number, what: string): void {
    const held = this.bytes;
    if (held + adding > this.#limitBytes) {
      throw new UserError(
        'queryMemory',
        `${what} needs ${mib(adding)} MiB more, the sandbox holds ${mib(held)} MiB of its ${mib(this.#limitBytes)} MiB: load a shorter time range or fewer rows, or reload the page to start empty`,
      );
    }
  }

  createDatabase(name: string, options: DatabaseOptions): DatabaseDef {
    const def = createDatabaseDef(this.catalog, DEFAULT_TENANT, name, options);
    this.#dbs.set(name, { def, segments: [], memtable: new Memtable(), lsn: 0 });
    return def;
  }

  dropDatabase(name: string): void {
    const d = this.#require(name);
    this.#generation++;
    dropDatabaseDef(this.catalog, DEFAULT_TENANT, name);
    for (const s of d.segments) s.reader.retire();
    this.#dbs.delete(name);
  }

  /** Removes a table and its rows (DROP TABLE; a reload of an exported table replaces it). */
  dropTable(database: string, table: string): void {
    const d = this.#require(database);
    const def = d.def.tables.get(table);
    if (def === undefined) return;
    this.#generation++;
    d.def.tables.delete(table);
    d.memtable.tables.delete(def.id);
    for (const s of d.segments.filter((s) => s.tableId === def.id)) s.reader.retire();
    d.segments = d.segments.filter((s) => s.tableId !== def.id);
    this.catalog.changed();
  }

  database(name: string): DatabaseDef | undefined {
    return this.#dbs.get(name)?.def;
  }

  #require(name: string): SandboxDatabase {
    const d = this.#dbs.get(name);
    if (d === undefined) throw databaseNotFound(name);
    return d;
  }

  /**
   * Loads an export stream (segment/export-format.ts): its database is created when missing
   * (with the export's precision), its table replaces one of the same name, its segment files
   * are opened with the server's reader (checksums and all).
   */
  async loadExport(bytes: Uint8Array): Promise<LoadSummary> {
    const { schema, segments, end } = decodeExport(bytes);
    this.#checkRoom(bytes.length, `loading ${schema.database}.${schema.table}`);
    let d = this.#dbs.get(schema.database);
    if (d === undefined) {
      this.createDatabase(schema.database, { ...DEFAULT_DATABASE_OPTIONS, precision: schema.precision });
      d = this.#dbs.get(schema.database)!;
    } else if (d.def.options.precision !== schema.precision) {
      throw new UserError(
        'schemaConflict',
        `database ${schema.database} here has precision ${d.def.options.precision}, the export ${schema.precision}: drop it first (DROP DATABASE ${schema.database})`,
      );
    }
    this.dropTable(schema.database, schema.table);
    const table = this.#tableOf(schema);
    // Ids as the server has them: the segments name the table and columns by them.
    this.catalog.reserveIds(Math.max(table.id, ...table.tags.map((c) => c.id), ...table.fields.map((c) => c.id)));
    for (const other of d.def.tables.values()) {
      if (other.id === table.id)
        throw new UserError(
          'schemaConflict',
          `table ${other.name} here has the id of the exported ${table.name}: drop it first`,
        );
    }
    const opened: SandboxDatabase['segments'] = [];
    try {
      for (const seg of segments) {
        const fileId = this.#nextFile++;
        const path = `seg/${fileId}.seg`;
        await this.#files.makeDir('seg');
        const w = await this.#files.create(path);
        await w.write([seg], 0);
        await w.close();
        opened.push({
          reader: await SegmentReader.open(this.#files, path, fileId, this.codecs, this.#cache),
          tableId: table.id,
          bytes: seg.length,
        });
        // The reader holds its own view of the bytes; the store's entry can go.
        await this.#files.remove(path);
      }
    } catch (e) {
      for (const s of opened) s.reader.retire();
      throw e;
    }
    d.def.tables.set(table.name, table);
    d.segments.push(...opened);
    this.#generation++;
    this.catalog.changed();
    return {
      database: schema.database,
      table: schema.table,
      rows: end.rows,
      segments: segments.length,
      bytes: bytes.length,
    };
  }

  #tableOf(schema: ExportSchema): TableDef {
    return {
      id: schema.tableId,
      name: schema.table,
      tags: schema.tags,
      fields: schema.fields,
      timeCodec: schema.timeCodec,
    };
  }

  /**
   * Applies encoded write batches (core/write-batch.ts) to a database's memtable, creating tables
   * and columns as the server's writes do (meta's applyBatchSchema: same conflicts, same errors).
   */
  write(database: string, encoded: readonly Uint8Array[]): number {
    const d = this.#require(database);
    this.#checkRoom(encoded.reduce((n, b) => n + b.length, 0) * 2, `writing to ${database}`);
    const batches = encoded.map((b) => readWriteBatch(b));
    if (
      this.catalog.applyBatchSchema(
        d.def,
        batches.flatMap((b) => b.tables),
      ).length > 0
    )
      this.catalog.changed();
    let rows = 0;
    this.#generation++;
    for (const b of batches) {
      d.memtable.apply(b, stampsOf(d.def, b.tables), ++d.lsn, Date.now());
      rows += b.rowCount;
    }
    return rows;
  }

  /** A read view of a database: its segments (oldest first) and its memtable, as the read path wants it. */
  view(database: string): ReadView {
    const d = this.#require(database);
    return {
      segments: d.segments.map((s) => s.reader),
      memtables: [{ memtable: d.memtable, cleanLsn: Infinity }],
      tombstones: [],
      expiredBefore: null,
    };
  }
}

const mib = (n: number): string => (n / (1024 * 1024)).toFixed(1);
