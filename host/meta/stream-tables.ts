// The catalog side of CREATE STREAM TABLE and its continuous queries: stream tables share the
// name space of a database's tskv and external tables; a query belongs to the stream it reads and
// goes with it; its progress (the windows done) is saved with the catalog, so a restart resumes.

import { tableExists, tableNotFound } from '../core/meta-errors.js';
import type { Catalog, DatabaseDef, StreamQueryDef, StreamTableDef } from './catalog.js';
import { checkName } from './catalog-ddl.js';

export function streamTableProblem(t: StreamTableDef): string | undefined {
  if (
    typeof t.sourceDatabase !== 'string' ||
    typeof t.sourceTable !== 'string' ||
    typeof t.eventTimeColumn !== 'string'
  )
    return 'source';
  if (!Number.isSafeInteger(t.watermarkDelayMs) || t.watermarkDelayMs < 0)
    return `watermarkDelayMs ${JSON.stringify(t.watermarkDelayMs)}`;
  if (!Array.isArray(t.columns) || !Array.isArray(t.queries)) return 'columns or queries';
  for (const q of t.queries) {
    if (typeof q.sql !== 'string' || typeof q.database !== 'string' || typeof q.user !== 'string')
      return `query ${q.id}`;
    if (q.doneBeforeNs !== null && !/^-?\d+$/.test(String(q.doneBeforeNs)))
      return `query ${q.id} doneBeforeNs ${JSON.stringify(q.doneBeforeNs)}`;
  }
  return undefined;
}

export function createStreamTableDef(
  catalog: Catalog,
  db: DatabaseDef,
  def: Omit<StreamTableDef, 'id' | 'queries'>,
): StreamTableDef {
  checkName(def.name);
  if (db.tables.has(def.name) || db.externalTables?.has(def.name) === true || db.streamTables?.has(def.name) === true)
    throw tableExists(def.name);
  const table: StreamTableDef = { ...def, columns: [...def.columns], id: catalog.nextId(), queries: [] };
  (db.streamTables ??= new Map()).set(def.name, table);
  catalog.changed();
  return table;
}

export function dropStreamTableDef(catalog: Catalog, db: DatabaseDef, name: string): StreamTableDef {
  const t = db.streamTables?.get(name);
  if (t === undefined) throw tableNotFound(db.tenant, db.name, name);
  db.streamTables!.delete(name);
  catalog.changed();
  return t;
}

export function addStreamQueryDef(
  catalog: Catalog,
  db: DatabaseDef,
  stream: string,
  q: Omit<StreamQueryDef, 'id' | 'doneBeforeNs'>,
): StreamQueryDef {
  const t = db.streamTables?.get(stream);
  if (t === undefined) throw tableNotFound(db.tenant, db.name, stream);
  const query: StreamQueryDef = { ...q, id: catalog.nextId(), doneBeforeNs: null };
  t.queries.push(query);
  catalog.changed();
  return query;
}

/** Records that a query's windows before `doneBeforeNs` are stored; false when the query is gone. */
export function setStreamProgress(
  catalog: Catalog,
  db: DatabaseDef,
  stream: string,
  queryId: number,
  doneBeforeNs: bigint,
): boolean {
  const q = db.streamTables?.get(stream)?.queries.find((x) => x.id === queryId);
  if (q === undefined) return false;
  q.doneBeforeNs = String(doneBeforeNs);
  catalog.changed();
  return true;
}
