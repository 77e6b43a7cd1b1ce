// Replaying a stamped write after DDL (FORMAT.md §6): each batch table is applied to the table and
// columns whose ids it was written to, never to whatever carries the name today. An id missing
// from the catalog is either
//   - at or below the catalog's id watermark as saved: the table or column was dropped (every
//     drop saves the catalog before it returns), so its values are skipped; or
//   - above it: it was created by a write whose catalog save had not happened before the crash
//     (writes do not wait for that save), so it is created again, with the same id and the name
//     and type the batch carries.
// Ids are never reused, so a dropped-and-recreated column or table never receives old values.

import type { Logger } from 'pino';
import { ColumnKind, ValueType, type BatchTable } from '../../core/write-batch.js';
import {
  type Catalog,
  columnById,
  type ColumnDef,
  type DatabaseDef,
  findColumn,
  tableById,
  type TableDef,
} from '../../meta/index.js';
import type { TableStamp } from '../memtable/index.js';

export function reconcileStamps(
  catalog: Catalog,
  db: DatabaseDef,
  tables: readonly BatchTable[],
  stamps: readonly TableStamp[],
  watermark: number,
  logger: Logger,
  lsn: number,
): TableStamp[] {
  const skip = (why: string, t: BatchTable): TableStamp => {
    logger.warn({ db: db.name, lsn, table: t.name, why }, 'WAL replay: skipping a table of a write');
    return { tableId: 0, columnIds: [] };
  };
  return tables.map((t, ti) => {
    const stamp = stamps[ti]!;
    let def = tableById(db, stamp.tableId);
    if (def === undefined) {
      if (stamp.tableId <= watermark) return { tableId: 0, columnIds: [] }; // dropped
      if (db.tables.has(t.name)) return skip(`table id ${stamp.tableId} unknown and the name is taken`, t);
      def = { id: stamp.tableId, name: t.name, tags: [], fields: [], timeCodec: 'DEFAULT' };
      db.tables.set(t.name, def);
      catalog.reserveIds(stamp.tableId);
      catalog.changed();
    }
    const ids = new Uint32Array(t.columns.length);
    for (let ci = 0; ci < t.columns.length; ci++) {
      const col = t.columns[ci]!;
      const id = stamp.columnIds[ci]!;
      const kind = col.kind === ColumnKind.Tag ? 'tag' : 'field';
      const have = columnById(def, id);
      if (have !== undefined) {
        if (have.kind !== kind || have.type !== col.type)
          return skip(`column id ${id} is ${have.kind} type ${have.type}, the record has ${kind} type ${col.type}`, t);
        ids[ci] = id;
        continue;
      }
      if (id <= watermark) {
        // Dropped. Tags cannot be dropped, so a missing tag means the series cannot be told apart.
        if (kind === 'tag') return skip(`tag column id ${id} is gone`, t);
        continue;
      }
      if (findColumn(def, col.name) !== undefined)
        return skip(`column id ${id} unknown and the name ${col.name} is taken`, t);
      restoreColumn(def, {
        id,
        name: col.name,
        kind,
        type: kind === 'tag' ? ValueType.Tag : col.type,
        codec: 'DEFAULT',
      });
      catalog.reserveIds(id);
      catalog.changed();
      ids[ci] = id;
    }
    return { tableId: def.id, columnIds: ids };
  });
}

/** Inserts a column keeping each list in id (creation) order. */
function restoreColumn(table: TableDef, c: ColumnDef): void {
  const list = c.kind === 'tag' ? table.tags : table.fields;
  let i = list.length;
  while (i > 0 && list[i - 1]!.id > c.id) i--;
  list.splice(i, 0, c);
}
