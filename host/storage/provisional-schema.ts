// Tables and columns a write created (meta applyBatchSchema) before its WAL record is durable.
// When the record fails they are taken out of the catalog again (issue 24: a failed write leaves
// nothing behind), but only once no other write that uses them is in flight: a write queued in
// the same WAL group or the next one may have found them made and stamped their ids into its own
// record. The first write using them that succeeds makes them permanent.

import type { BatchTable } from '../core/write-batch.js';
import { type CreatedSchema, type DatabaseDef, findColumn } from '../meta/index.js';

interface Item {
  db: DatabaseDef;
  tableId: number;
  /** undefined: the whole table. */
  columnId: number | undefined;
  /** Writes in flight that use it. */
  users: number;
}

/** What a failed write's rollback takes back: per table, the whole table or some of its columns. */
export interface Forget {
  db: DatabaseDef;
  tableId: number;
  columnIds: number[] | 'table';
}

const key = (tableId: number, columnId: number | undefined): string =>
  columnId === undefined ? `${tableId}` : `${tableId}:${columnId}`;

export class ProvisionalSchema {
  readonly #items = new Map<string, Item>();

  /** Records what a write just created (before it claims). */
  add(db: DatabaseDef, created: readonly CreatedSchema[]): void {
    for (const c of created) {
      if (c.newTable)
        this.#items.set(key(c.table.id, undefined), { db, tableId: c.table.id, columnId: undefined, users: 0 });
      else
        for (const id of c.columnIds)
          this.#items.set(key(c.table.id, id), { db, tableId: c.table.id, columnId: id, users: 0 });
    }
  }

  /** The provisional items a write's tables use, counted as in use until `settle` (none: the common case, at the cost of one size check). */
  claim(db: DatabaseDef, tables: readonly BatchTable[]): Item[] {
    if (this.#items.size === 0) return [];
    const out: Item[] = [];
    const use = (k: string): void => {
      const item = this.#items.get(k);
      if (item === undefined || item.db !== db) return;
      item.users++;
      out.push(item);
    };
    for (const t of tables) {
      const def = db.tables.get(t.name);
      if (def === undefined) continue;
      use(key(def.id, undefined));
      for (const c of t.columns) {
        const col = findColumn(def, c.name);
        if (col !== undefined) use(key(def.id, col.id));
      }
    }
    return out;
  }

  /**
   * The write that claimed `items` is over. Succeeded: they are permanent. Failed: returns those no
   * other write uses, which the caller takes out of the catalog.
   */
  settle(items: readonly Item[], ok: boolean): Forget[] {
    const out = new Map<string, Forget>();
    for (const item of items) {
      item.users--;
      const k = key(item.tableId, item.columnId);
      if (this.#items.get(k) !== item) continue; // made permanent by another write
      if (ok) {
        this.#items.delete(k);
      } else if (item.users === 0) {
        this.#items.delete(k);
        const f = out.get(`${item.tableId}`) ?? { db: item.db, tableId: item.tableId, columnIds: [] };
        if (item.columnId === undefined) f.columnIds = 'table';
        else if (f.columnIds !== 'table') f.columnIds.push(item.columnId);
        out.set(`${item.tableId}`, f);
      }
    }
    return [...out.values()];
  }
}
