// The engine's description of a catalog table (TableInfo from meta's TableDef), shared by the
// engine's catalog over the storage (node/engine-catalog.ts) and pgwire's pg_catalog views.

import { ValueType } from '../core/write-batch.js';
import type { ColumnInfo, TableInfo } from '../engine/catalog.js';
import { precisionUnit, timestamp, typeOfValueType } from '../engine/types/index.js';
import type { ColumnDef, DatabaseDef, TableDef } from '../meta/index.js';

/** The engine's description of a stored table: time, then tags and fields in creation (id) order. */
export function tableInfo(db: DatabaseDef, t: TableDef): TableInfo {
  const columns: ColumnInfo[] = [
    { name: 'time', kind: 'time', type: timestamp(precisionUnit(db.options.precision)), codec: t.timeCodec },
  ];
  const stored: ColumnDef[] = [...t.tags, ...t.fields].sort((a, b) => a.id - b.id);
  for (const c of stored) {
    const valueType = c.kind === 'tag' ? ValueType.Tag : c.type;
    columns.push({
      name: c.name,
      kind: c.kind,
      type: typeOfValueType(valueType),
      valueType,
      codec: c.codec,
      ...(c.geometry === undefined ? {} : { geometry: c.geometry }),
    });
  }
  return { database: db.name, name: t.name, columns };
}
