// CnosDB's COPY INTO (its ExtParser::parse_copy_into): `COPY INTO t [(cols)] FROM 'location'
// [CONNECTION = (...)]` or `COPY INTO 'location' FROM t | (query) [CONNECTION = (...)]`, then
// FILE_FORMAT = (...) and COPY_OPTIONS = (...) in any order. A quoted string after INTO is a location.

import type { CopyIntoLocation, CopyIntoTable, SqlOption } from './ast.js';
import type { Parser } from './parser-base.js';
import { parseOptionValue } from './parser-ddl.js';
import { parseQuery } from './parser-queries.js';

/** `= ( key = value [, ...] )`, CnosDB's parse_options over sqlparser's parse_sql_option. */
function parseOptions(p: Parser): SqlOption[] {
  p.expectOp('=');
  p.expectOp('(');
  const options = p.parseCommaSeparated((q) => {
    const name = q.parseIdentifier();
    q.expectOp('=');
    return { name, value: parseOptionValue(q, true) };
  });
  p.expectOp(')');
  return options;
}

export function parseCopy(p: Parser): CopyIntoTable | CopyIntoLocation {
  const pos = p.pos();
  p.expectKeyword('COPY');
  p.expectKeyword('INTO');
  let head: Omit<CopyIntoTable, 'fileFormat' | 'copyOptions'> | Omit<CopyIntoLocation, 'fileFormat' | 'copyOptions'>;
  if (p.peek().kind === 'string') {
    const location = p.parseStringLiteral();
    p.expectKeyword('FROM');
    let source: CopyIntoLocation['source'];
    if (p.consumeOp('(')) {
      source = { kind: 'query', query: parseQuery(p) };
      p.expectOp(')');
    } else source = { kind: 'table', name: p.parseObjectName() };
    const connection = p.parseKeyword('CONNECTION') ? parseOptions(p) : [];
    head = { kind: 'copyIntoLocation', pos, location, source, connection };
  } else {
    const table = p.parseObjectName();
    const columns = p.peekOp('(') ? p.parseIdentifierList() : [];
    p.expectKeyword('FROM');
    const location = p.parseStringLiteral();
    let connection: SqlOption[] = [];
    while (p.parseKeyword('CONNECTION')) connection = parseOptions(p);
    head = { kind: 'copyIntoTable', pos, table, columns, location, connection };
  }
  let fileFormat: SqlOption[] = [];
  let copyOptions: SqlOption[] = [];
  for (;;) {
    if (p.parseKeyword('FILE_FORMAT')) fileFormat = parseOptions(p);
    else if (p.parseKeyword('COPY_OPTIONS')) copyOptions = parseOptions(p);
    else break;
  }
  return { ...head, fileFormat, copyOptions } as CopyIntoTable | CopyIntoLocation;
}
