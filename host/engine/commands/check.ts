// CHECK DATABASE <name> [REPAIR]: a row per problem found in the database's stored files (file
// relative to the data directory, byte offset, what failed, and with REPAIR what was done about
// it); no rows when every checksum holds. Catalogs without stored files (a browser's) find none.

import type { EngineCatalog } from '../catalog.js';
import { databaseNotFound } from '../planner/query-planner.js';
import type * as ast from '../sql/ast.js';
import { INT64, UTF8 } from '../types/index.js';
import type { Rows } from './show.js';

export async function checkDatabase(catalog: EngineCatalog, s: ast.CheckDatabase): Promise<Rows> {
  if (catalog.database(s.name) === undefined) throw databaseNotFound(s.name);
  const problems = (await catalog.checkDatabase?.(s.name, s.repair)) ?? [];
  return {
    fields: [
      { name: 'file', type: UTF8 },
      { name: 'offset', type: INT64 },
      { name: 'problem', type: UTF8 },
      { name: 'action', type: UTF8 },
    ],
    rows: problems.map((p) => [p.file, p.offset === null ? null : BigInt(p.offset), p.problem, p.action]),
  };
}
