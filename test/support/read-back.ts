// Reads what a (stopped or killed) server stored, by opening its data directory with the real
// storage engine in-process: WAL replay included. Used until SQL can read it over HTTP.

import { Storage } from '../../host/storage/storage.js';
import { recordingLogger } from './logger.js';

export type StoredRow = Record<string, unknown> & { time: bigint };

export interface ReadBack {
  storage: Storage;
  logs: Array<Record<string, unknown>>;
  /** Rows of a table sorted by series key, then time; tags and fields by name, NULLs omitted. */
  rows(table: string, db?: string, tenant?: string): StoredRow[];
  close(): Promise<void>;
}

export async function readBack(dataDir: string): Promise<ReadBack> {
  const { logger, lines } = recordingLogger();
  const storage = await Storage.open({
    dataDir,
    logger,
    rootPasswordHash: 'unused',
    memtableBytes: 1 << 30,
    walSegmentBytes: 64 << 20,
    walSync: true,
  });
  await storage.recover();
  return {
    storage,
    logs: lines,
    rows(table, db = 'public', tenant = 'cnosdb') {
      const def = storage.catalog.requireDatabase(tenant, db);
      const out: StoredRow[] = [];
      const series = storage.scan(def, table).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const s of series) {
        for (let i = 0; i < s.length; i++) {
          const row: StoredRow = { time: s.ts[i]! };
          for (const [k, v] of s.tags) row[k] = v;
          for (const [name, c] of s.columns) {
            if (c.validity && c.validity[i] === 0) continue;
            const v = c.values[i]!;
            row[name] = c.type === 4 ? v === 1 : v;
          }
          out.push(row);
        }
      }
      return out;
    },
    close: () => storage.close(),
  };
}
