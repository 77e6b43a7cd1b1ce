// CHECK DATABASE <name> [REPAIR]: Sundial's own statement (CnosDB has none) that verifies every
// checksum of a database's stored files and, with REPAIR, moves damaged segment files to the
// quarantine folder (host/storage/FORMAT.md §6). Kept apart from the DDL parser it resembles.

import type { CheckDatabase } from './ast.js';
import type { Parser } from './parser-base.js';

export function parseCheckDatabase(p: Parser): CheckDatabase {
  const pos = p.pos();
  p.expectKeywords('CHECK', 'DATABASE');
  const name = p.parseIdentifier();
  return { kind: 'checkDatabase', pos, name, repair: p.parseKeyword('REPAIR') };
}
