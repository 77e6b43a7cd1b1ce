// The sandbox as one object: the server's query engine (host/engine) over a SandboxStore, the
// server's line-protocol scanner for dropped files, and results formatted by the server's JSON
// writer, so an answer here is byte for byte the JSON /api/v1/sql would send for the same data.
// Runtime-agnostic: the Web Worker (worker.ts) drives it in a browser, the tests in Node.

import { UserError } from '../core/errors.js';
import { dbUnit, NANOS_PER, type TimeUnit } from '../core/precision.js';
import { Core } from '../core/wasm.js';
import { SqlEngine } from '../engine/engine.js';
import { JsonWriter } from '../engine/format/json-writer.js';
import { LineProtocolScanner, precisionFactors } from '../ingest/line-protocol.js';
import { DEFAULT_DATABASE, DEFAULT_DATABASE_OPTIONS, DEFAULT_TENANT, ROOT_USER } from '../meta/catalog.js';
import { demoLineProtocol, type DemoOptions } from './demo-data.js';
import { csvBatches, type FileFormat, formatOf, gunzipIfNeeded, ndjsonBatches, tableOf } from './file-import.js';
import { SandboxCatalog } from './sandbox-catalog.js';
import { DEFAULT_SANDBOX_BYTES, type LoadSummary, SandboxStore } from './sandbox-store.js';

/** Memory one statement may hold (the server's default limits.query_memory_bytes). */
const QUERY_MEMORY_BYTES = 512 * 1024 * 1024;

export interface SqlAnswer {
  /** The JSON body /api/v1/sql would send (Accept: application/json). */
  json: string;
  columns: Array<{ name: string; type: string }>;
  rows: number;
  ms: number;
}

/** A failure as the server reports it: its error code and message. */
export interface SandboxError {
  code: string;
  message: string;
}

export function sandboxError(e: unknown): SandboxError {
  if (e instanceof UserError) return { code: e.code, message: e.message };
  const message = e instanceof Error ? e.message : String(e);
  return { code: '000001', message: message.startsWith('BUG:') ? message : `internal error: ${message}` };
}

export class Sandbox {
  readonly store: SandboxStore;
  readonly #core: Core;
  readonly #engine: SqlEngine;
  readonly #catalog: SandboxCatalog;

  private constructor(core: Core, limitBytes: number) {
    this.#core = core;
    this.store = new SandboxStore(core, limitBytes);
    this.#catalog = new SandboxCatalog(this.store);
    this.#engine = new SqlEngine({ catalogFor: () => this.#catalog, core });
  }

  /** `wasm`: build/sundial.wasm (its bytes or compiled module). */
  static async create(wasm: WebAssembly.Module | BufferSource, limitBytes = DEFAULT_SANDBOX_BYTES): Promise<Sandbox> {
    return new Sandbox(await Core.load(wasm), limitBytes);
  }

  loadExport(bytes: Uint8Array): Promise<LoadSummary> {
    return this.store.loadExport(bytes);
  }

  /** Line protocol into `database` (created when missing), timestamps in `precision`. Returns the rows written. */
  writeLineProtocol(body: Uint8Array, database = DEFAULT_DATABASE, precision: TimeUnit = 'ns'): number {
    const db = this.store.database(database) ?? this.store.createDatabase(database, { ...DEFAULT_DATABASE_OPTIONS });
    const unit = dbUnit(db.options.precision) as Exclude<TimeUnit, 's'>;
    const now = (BigInt(Date.now()) * 1_000_000n) / NANOS_PER[unit];
    const batches = new LineProtocolScanner(this.#core).scan(body, {
      ...precisionFactors(precision, unit),
      defaultTs: now,
    });
    return batches.length === 0 ? 0 : this.store.write(database, batches);
  }

  /** Encoded write batches (core/write-batch-builder.ts) into `database`, created when missing. */
  writeBatches(batches: Uint8Array[], database = DEFAULT_DATABASE): number {
    if (this.store.database(database) === undefined)
      this.store.createDatabase(database, { ...DEFAULT_DATABASE_OPTIONS });
    return this.store.write(database, batches);
  }

  /** A dropped file (line protocol, CSV or NDJSON, gzip or not) into `database`. Returns the table and rows. */
  async loadFile(
    name: string,
    bytes: Uint8Array,
    database = DEFAULT_DATABASE,
  ): Promise<{ table: string; rows: number; format: FileFormat }> {
    const body = await gunzipIfNeeded(bytes);
    const format = formatOf(name);
    const table = tableOf(name);
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    if (format === 'lp') return { table, rows: this.writeLineProtocol(body, database), format };
    const text = new TextDecoder().decode(body);
    const batches = format === 'csv' ? csvBatches(text, table, nowNs) : ndjsonBatches(text, table, nowNs);
    return { table, rows: batches.length === 0 ? 0 : this.writeBatches(batches, database), format };
  }

  /** The built-in demo set (demo-data.ts) into table `cpu` of `database`. Returns the rows. */
  loadDemo(options: Partial<DemoOptions> = {}, database = DEFAULT_DATABASE): number {
    const encoder = new TextEncoder();
    let rows = 0;
    for (const piece of demoLineProtocol(options)) rows += this.writeLineProtocol(encoder.encode(piece), database);
    return rows;
  }

  /** Runs one statement as root of the default tenant would on the server. */
  async sql(
    text: string,
    database = DEFAULT_DATABASE,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<SqlAnswer> {
    const started = performance.now();
    const result = await this.#engine.run(text, {
      tenant: DEFAULT_TENANT,
      database,
      user: { name: ROOT_USER, admin: true },
      signal,
      memoryLimitBytes: QUERY_MEMORY_BYTES,
      nowNs: BigInt(Date.now()) * 1_000_000n,
    });
    if (result.kind === 'done') return { json: '', columns: [], rows: 0, ms: performance.now() - started };
    const writer = new JsonWriter(result.schema, false);
    const decoder = new TextDecoder();
    let json = '';
    let rows = 0;
    for await (const batch of result.batches) {
      rows += batch.length;
      json += decoder.decode(writer.write(batch), { stream: true });
    }
    json += decoder.decode(writer.end());
    const columns = result.schema.fields.map((f) => ({ name: f.name, type: f.type.id }));
    return { json, columns, rows, ms: performance.now() - started };
  }
}
