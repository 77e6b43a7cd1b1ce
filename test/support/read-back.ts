// Reads what a (stopped or killed) server stored, by opening its data directory with the real
// storage engine in-process: WAL replay, segment files and tombstones included. Used until SQL
// can read it over HTTP.

import type { StorageOptions } from '../../host/storage/storage.js';
import { storageCodecs } from '../../host/storage/segment/codecs.js';
import { Storage } from '../../host/storage/storage.js';
import { loadCore } from './core.js';
import { recordingLogger } from './logger.js';

export type StoredRow = Record<string, unknown> & { time: bigint };

export interface ReadBack {
  storage: Storage;
  logs: Array<Record<string, unknown>>;
  /** Rows of a table sorted by series key, then time; tags and fields by name, NULLs omitted. */
  rows(table: string, db?: string, tenant?: string): Promise<StoredRow[]>;
  close(): Promise<void>;
}

/** Opens `dataDir` in-process (no background work unless `options` asks for it). */
export async function readBack(dataDir: string, options: Partial<StorageOptions> = {}): Promise<ReadBack> {
  const { logger, lines } = recordingLogger();
  const storage = await Storage.open({
    dataDir,
    logger,
    codecs: storageCodecs(await loadCore()),
    rootPasswordHash: 'unused',
    memtableBytes: 1 << 30,
    walSegmentBytes: 64 << 20,
    walSync: true,
    maintenanceIntervalMs: 0,
    ...options,
  });
  await storage.recover();
  return {
    storage,
    logs: lines,
    rows: (table, db = 'public', tenant = 'cnosdb') => tableRows(storage, table, db, tenant),
    close: () => storage.close(),
  };
}

/** Every row of a table through the async scan: tags and fields by name, NULLs omitted, BOOLEAN as boolean. */
export async function tableRows(
  storage: Storage,
  table: string,
  db = 'public',
  tenant = 'cnosdb',
): Promise<StoredRow[]> {
  const def = storage.catalog.requireDatabase(tenant, db);
  const t = def.tables.get(table);
  if (t === undefined) return [];
  const out: StoredRow[] = [];
  for await (const chunk of storage.scan(def, table, { fields: t.fields.map((c) => c.name) })) {
    for (let i = 0; i < chunk.length; i++) {
      const row: StoredRow = { time: chunk.time[i]! };
      for (const [k, v] of chunk.tags) row[k] = v;
      for (const [name, c] of chunk.fields) {
        if (c.validity && c.validity[i] === 0) continue;
        const v = c.values[i]!;
        row[name] = c.values instanceof Uint8Array ? v === 1 : v;
      }
      out.push(row);
    }
  }
  return out;
}
