// The write-time check of a GEOMETRY(<sub_type>, 0) column, shared by INSERT (engine) and line
// protocol (storage): the value must be WKT of exactly the declared sub type. The texts are
// CnosDB's (its AssertGeomType): "Invalid geometry type, error: expect Point, got <geo Debug>".

import { UserError } from '../errors.js';
import { GEOMETRY_SUB_TYPES, type GeometryColumnType } from './geometry.js';
import { geoDebug, rustDebugStr, toPlanar } from './rust-format.js';
import { readWkt, WktError } from './wkt-reader.js';

/** Throws UserError 'invalidGeometry' unless `text` is WKT of the column's sub type. */
export function checkGeometryValue(column: GeometryColumnType, text: string): void {
  const want = GEOMETRY_SUB_TYPES[column.subType];
  if (want === undefined) throw new Error(`BUG: geometry sub type ${column.subType} in the catalog`);
  let g: ReturnType<typeof toPlanar>;
  try {
    g = toPlanar(readWkt(text));
  } catch (e) {
    if (!(e instanceof WktError)) throw e;
    throw new UserError(
      'invalidGeometry',
      `Invalid geometry type, error: ${e.message}, expect ${want}, got ${rustDebugStr(text)}`,
    );
  }
  if (g.kind !== want)
    throw new UserError('invalidGeometry', `Invalid geometry type, error: expect ${want}, got ${geoDebug(g)}`);
}
