// The usage counters (host/server/usage-metrics.ts) before they reach storage: cumulative per
// series, reported again only when they change, and sent again when a report was not stored.

import { describe, expect, it } from 'vitest';
import { readWriteBatch } from '../../host/core/write-batch.js';
import { UsageMetrics } from '../../host/server/usage-metrics.js';

const source = { api: 'api/v1/write', tenant: 'cnosdb', database: 'public', user: 'root' };

/** table -> rows of a report. */
function rows(encoded: Uint8Array): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of readWriteBatch(encoded).tables) out[t.name] = t.rowCount;
  return out;
}

describe('UsageMetrics', () => {
  it('reports the bytes of a database when they change, not while it is idle', () => {
    const m = new UsageMetrics('h');
    const db = { id: 7, tenant: 'cnosdb', name: 'd', options: {}, tables: new Map() } as never;
    const first = m.batch(1n, [{ def: db, diskBytes: 10, cacheBytes: 5 }])!;
    expect(rows(first.encoded)).toEqual({ vnode_disk_storage: 1, vnode_cache_size: 1 });
    first.stored();
    expect(m.batch(2n, [{ def: db, diskBytes: 10, cacheBytes: 5 }])).toBeUndefined();
    expect(rows(m.batch(3n, [{ def: db, diskBytes: 10, cacheBytes: 6 }])!.encoded)).toEqual({
      vnode_disk_storage: 1,
      vnode_cache_size: 1,
    });
  });

  it('reports each changed counter once, with its total, and nothing when nothing changed', () => {
    const m = new UsageMetrics('127.0.0.1:8902');
    expect(m.batch(1n, [])).toBeUndefined();
    m.write(source, 100, 40);
    m.write(source, 50, 20);
    const first = m.batch(1n, [])!;
    expect(rows(first.encoded)).toEqual({ http_writes: 1, http_data_in: 1, coord_writes: 1, coord_data_in: 1 });
    first.stored();
    expect(m.batch(2n, [])).toBeUndefined();
    m.query({ ...source, api: 'api/v1/sql' }, 10, 20);
    expect(rows(m.batch(3n, [])!.encoded)).toEqual({
      http_queries: 1,
      http_data_in: 1,
      http_data_out: 1,
      coord_queries: 1,
      coord_data_out: 1,
    });
  });

  it('sends a report again until it is stored', () => {
    const m = new UsageMetrics('h');
    m.write(source, 1, 0);
    expect(m.batch(1n, [])).toBeDefined(); // not stored
    const again = m.batch(2n, [])!;
    expect(rows(again.encoded)).toEqual({ http_writes: 1, http_data_in: 1, coord_writes: 1 });
    again.stored();
    expect(m.batch(3n, [])).toBeUndefined();
  });
});
