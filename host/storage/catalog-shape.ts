// What the data side must do when the catalog changed under it, on another node of a cluster
// (docs/cluster.md): the tables and columns by id before and after, and what went.
// Ids, not names: a rename keeps its rows, and a name dropped and made again is a new object.

import type { Catalog } from '../meta/index.js';

/** Every database with files (live and pending drops) -> its tables (live and pending) -> column ids. */
export type CatalogShape = Map<number, Map<number, Set<number>>>;

export function catalogShape(catalog: Catalog): CatalogShape {
  const shape: CatalogShape = new Map();
  for (const db of catalog.allDatabases()) {
    const tables = new Map<number, Set<number>>();
    for (const t of [...db.tables.values(), ...(db.pendingTables?.values() ?? [])])
      tables.set(t.id, new Set([...t.tags, ...t.fields].map((c) => c.id)));
    shape.set(db.id, tables);
  }
  return shape;
}

export interface ShapeChanges {
  /** Tables whose rows go: [database id, table id]. */
  droppedTables: Array<[number, number]>;
  /** Columns whose values go: [database id, table id, column id]. */
  droppedColumns: Array<[number, number, number]>;
}

/**
 * The tables and columns of databases still there that are gone from `before` (taken before
 * any change of this node's own: ids of a change that lost the race may be the winner's too) to
 * `catalog` as it is now. Databases come and go by their stores (Storage.#reconcile).
 */
export function shapeChanges(before: CatalogShape, catalog: Catalog): ShapeChanges {
  const after = catalogShape(catalog);
  const out: ShapeChanges = { droppedTables: [], droppedColumns: [] };
  for (const [dbId, tables] of before) {
    const now = after.get(dbId);
    if (now === undefined) continue;
    for (const [tableId, columns] of tables) {
      const cols = now.get(tableId);
      if (cols === undefined) out.droppedTables.push([dbId, tableId]);
      else for (const c of columns) if (!cols.has(c)) out.droppedColumns.push([dbId, tableId, c]);
    }
  }
  return out;
}
