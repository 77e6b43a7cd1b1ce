// Helpers for in-process storage tests: a Storage on a temporary directory with a controllable
// clock and no background timer, batches from rows, and rows printed as text (doubles as their
// bit patterns, so NaN and -0 compare exactly).

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteBatchBuilder, type FieldInput } from '../../host/core/write-batch-builder.js';
import { ValueType } from '../../host/core/write-batch.js';
import type { ScanRequest, SeriesChunk } from '../../host/core/scan.js';
import { storageCodecs } from '../../host/storage/segment/codecs.js';
import { Storage, type StorageOptions } from '../../host/storage/storage.js';
import { loadCore } from '../support/core.js';
import { recordingLogger } from '../support/logger.js';

export interface TestStore {
  dir: string;
  storage: Storage;
  logs: Array<Record<string, unknown>>;
  clock: { now: number };
  /** Closes and opens the storage again on the same directory (a clean restart). */
  reopen(options?: Partial<StorageOptions>): Promise<void>;
  close(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function openStore(options: Partial<StorageOptions> = {}, dir?: string): Promise<TestStore> {
  const clock = { now: Date.UTC(2024, 0, 1) };
  const own = dir === undefined;
  const d = dir ?? mkdtempSync(join(tmpdir(), 'sundial-storage-'));
  const { logger, lines } = recordingLogger();
  const open = async (o: Partial<StorageOptions>): Promise<Storage> => {
    const s = await Storage.open({
      dataDir: d,
      logger,
      codecs: storageCodecs(await loadCore()),
      rootPasswordHash: 'unused',
      memtableBytes: 64 << 20,
      walSegmentBytes: 1 << 20,
      walSync: true,
      maintenanceIntervalMs: 0,
      nowMs: () => clock.now,
      ...o,
    });
    await s.recover();
    return s;
  };
  const t: TestStore = {
    dir: d,
    storage: await open(options),
    logs: lines,
    clock,
    reopen: async (o = options) => {
      await t.storage.close();
      t.storage = await open(o);
    },
    close: () => t.storage.close(),
    cleanup: async () => {
      await t.storage.close().catch(() => undefined);
      if (own) rmSync(d, { recursive: true, force: true });
    },
  };
  return t;
}

export type Row = [table: string, tags: Array<[string, string]>, ts: bigint, fields: FieldInput[]];

export function batch(rows: readonly Row[]): Uint8Array {
  const b = new WriteBatchBuilder();
  for (const [table, tags, ts, fields] of rows) b.addRow(table, tags, ts, fields);
  return b.finish();
}

export const dbl = (name: string, value: number): FieldInput => ({ name, type: ValueType.Double, value });
export const int = (name: string, value: bigint): FieldInput => ({ name, type: ValueType.BigInt, value });
export const uns = (name: string, value: bigint): FieldInput => ({ name, type: ValueType.Unsigned, value });
export const bool = (name: string, value: boolean): FieldInput => ({ name, type: ValueType.Boolean, value });
export const str = (name: string, value: string): FieldInput => ({ name, type: ValueType.String, value });

/** One printed value: doubles by bit pattern, others as text. */
function cell(c: SeriesChunk['fields'] extends ReadonlyMap<string, infer C> ? C : never, i: number): string {
  if (c.validity !== undefined && c.validity[i] === 0) return 'NULL';
  const v = c.values;
  if (v instanceof Float64Array) {
    const bits = new BigUint64Array(v.buffer, v.byteOffset, v.length)[i]!;
    return `f:${bits.toString(16)}`;
  }
  if (v instanceof Uint8Array) return v[i] === 1 ? 'true' : 'false';
  if (Array.isArray(v)) return JSON.stringify(v[i]);
  return String(v[i]);
}

/** Every row of a table as "tags | time | field=value ..." lines, in scan order. */
export async function dump(
  storage: Storage,
  table: string,
  request: Partial<ScanRequest> = {},
  db = 'public',
): Promise<string[]> {
  const def = storage.catalog.requireDatabase('cnosdb', db);
  const t = def.tables.get(table);
  if (t === undefined) return [];
  const fields = request.fields ?? t.fields.map((c) => c.name);
  const out: string[] = [];
  for await (const chunk of storage.scan(def, table, { ...request, fields })) {
    const tags = [...chunk.tags].map(([k, v]) => `${k}=${v}`).join(',');
    for (let i = 0; i < chunk.length; i++) {
      const cells = fields.map((f) => {
        const c = chunk.fields.get(f);
        return `${f}=${c === undefined ? 'NULL' : cell(c, i)}`;
      });
      out.push(`${tags} | ${chunk.time[i]} | ${cells.join(' ')}`);
    }
  }
  return out;
}

/** The printed form of a double, as `dump` prints it. */
export function f64(v: number): string {
  return `f:${new BigUint64Array(Float64Array.of(v).buffer)[0]!.toString(16)}`;
}

/** Inverts the byte at `offset` of a file (a corruption the checksums must catch). */
export function flip(path: string, offset: number): void {
  const fd = openSync(path, 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, offset);
    b[0]! ^= 0xff;
    writeSync(fd, b, 0, 1, offset);
  } finally {
    closeSync(fd);
  }
}
