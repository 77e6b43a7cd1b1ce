// The one place the ingest-side read routes (the Jaeger query API, Prometheus remote read) touch
// the storage read path. They see a table as an async stream of SeriesChunk (host/core/scan.ts),
// the type the storage engine's scan API hands out, so moving to `Storage.scan(db, table,
// ScanRequest): AsyncIterable<SeriesChunk>` is a change to this file alone.
//
// The storage scan does the field projection, the series filter and the time range, and prunes
// partitions, files and blocks by them.

import type { ScanRequest, SeriesChunk } from '../../core/scan.js';
import type { DatabaseDef } from '../../meta/index.js';
import type { Storage } from '../../storage/index.js';
import { tableNotFound } from '../../core/meta-errors.js';

/** Field names of a table (tags and time come with every chunk); 422 030019 if there is no such table. */
export function tableFields(db: DatabaseDef, table: string): string[] {
  const def = db.tables.get(table);
  if (def === undefined) throw tableNotFound(db.tenant, db.name, table);
  return def.fields.map((f) => f.name);
}

/** Streams the series of `table` that pass `request.seriesFilter`, restricted to the time range. */
export async function* readTable(
  storage: Storage,
  db: DatabaseDef,
  table: string,
  request: ScanRequest,
): AsyncIterable<SeriesChunk> {
  tableFields(db, table);
  yield* storage.scan(db, table, request);
}
