// DCL: tenants, users, roles and privileges, as CnosDB's parser reads them. Option lists are
// `name = value, ...` (sqlparser-rs's parse_sql_option; the `=` may be left out); their names and
// values stay raw for host/server/dcl-options.ts to check.

import type {
  AlterTenant,
  AlterUser,
  CreateRole,
  CreateTenant,
  CreateUser,
  DropRole,
  DropTenant,
  DropUser,
  GrantRevoke,
  Privilege,
  RecoverTenant,
  SqlOption,
} from './ast.js';
import { checkObjectName, type Parser } from './parser-base.js';
import { parseOptionValue } from './parser-ddl.js';

function parseNewName(p: Parser): string {
  const pos = p.pos();
  return checkObjectName(p.parseIdentifier(), pos);
}

/**
 * `name = value`; CnosDB also takes `name 'value'` without the `=` (its assignment.slt), so a
 * name followed by neither is missing its value ("Expected a value, found: ;").
 */
function parseSqlOption(p: Parser): SqlOption {
  const name = p.parseIdentifier();
  const next = p.peek();
  const valueFollows = next.kind === 'string' || next.kind === 'number' || (next.kind === 'word' && ['TRUE', 'FALSE', 'NULL'].includes(next.upper));
  if (!valueFollows && !p.consumeOp('=')) return p.expected('a value');
  return { name, value: parseOptionValue(p, true) };
}

function parseWithOptions(p: Parser): SqlOption[] {
  return p.parseKeyword('WITH') ? p.parseCommaSeparated(parseSqlOption) : [];
}

export function parseCreateTenant(p: Parser): CreateTenant {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'TENANT');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewName(p);
  return { kind: 'createTenant', pos, name, ifNotExists, options: parseWithOptions(p) };
}

export function parseAlterTenant(p: Parser): AlterTenant {
  const pos = p.pos();
  p.expectKeywords('ALTER', 'TENANT');
  const name = p.parseIdentifier();
  const alter = (action: AlterTenant['action']): AlterTenant => ({ kind: 'alterTenant', pos, name, action });
  if (p.parseKeyword('ADD')) {
    p.expectKeyword('USER');
    const user = p.parseIdentifier();
    p.expectKeyword('AS');
    return alter({ kind: 'addUser', user, role: p.parseIdentifier() });
  }
  if (p.parseKeyword('REMOVE')) {
    p.expectKeyword('USER');
    return alter({ kind: 'removeUser', user: p.parseIdentifier() });
  }
  if (p.parseKeyword('SET')) {
    if (!p.parseKeyword('USER')) return alter({ kind: 'set', option: parseSqlOption(p) });
    const user = p.parseIdentifier();
    p.expectKeyword('AS');
    return alter({ kind: 'setUser', user, role: p.parseIdentifier() });
  }
  if (p.parseKeyword('UNSET')) return alter({ kind: 'unset', name: p.parseIdentifier() });
  return p.expected('ADD, REMOVE, SET, UNSET');
}

export function parseDropTenant(p: Parser): DropTenant {
  const pos = p.pos();
  p.expectKeywords('DROP', 'TENANT');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  const name = p.parseIdentifier();
  if (!p.parseKeyword('AFTER')) return { kind: 'dropTenant', pos, name, ifExists };
  return { kind: 'dropTenant', pos, name, ifExists, after: p.parseStringLiteral() };
}

export function parseRecoverTenant(p: Parser): RecoverTenant {
  const pos = p.pos();
  p.expectKeywords('RECOVER', 'TENANT');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  return { kind: 'recoverTenant', pos, name: p.parseIdentifier(), ifExists };
}

export function parseCreateUser(p: Parser): CreateUser {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'USER');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewName(p);
  return { kind: 'createUser', pos, name, ifNotExists, options: parseWithOptions(p) };
}

export function parseAlterUser(p: Parser): AlterUser {
  const pos = p.pos();
  p.expectKeywords('ALTER', 'USER');
  const name = p.parseIdentifier();
  if (p.parseKeyword('RENAME')) {
    p.expectKeyword('TO');
    return { kind: 'alterUser', pos, name, action: { kind: 'rename', newName: parseNewName(p) } };
  }
  if (p.parseKeyword('SET')) return { kind: 'alterUser', pos, name, action: { kind: 'set', option: parseSqlOption(p) } };
  return p.expected('RENAME,SET');
}

export function parseDropUser(p: Parser): DropUser {
  const pos = p.pos();
  p.expectKeywords('DROP', 'USER');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  return { kind: 'dropUser', pos, name: p.parseIdentifier(), ifExists };
}

export function parseCreateRole(p: Parser): CreateRole {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'ROLE');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewName(p);
  if (!p.parseKeyword('INHERIT')) return { kind: 'createRole', pos, name, ifNotExists };
  return { kind: 'createRole', pos, name, ifNotExists, inherit: p.parseIdentifier() };
}

export function parseDropRole(p: Parser): DropRole {
  const pos = p.pos();
  p.expectKeywords('DROP', 'ROLE');
  const ifExists = p.parseKeywords('IF', 'EXISTS');
  return { kind: 'dropRole', pos, name: p.parseIdentifier(), ifExists };
}

/** `READ | WRITE | ALL ON DATABASE db`. */
function parsePrivilege(p: Parser): Privilege {
  const token = p.peek();
  const action = token.kind === 'word' ? token.upper : '';
  if (action !== 'READ' && action !== 'WRITE' && action !== 'ALL') return p.expected('a privilege keyword [Read, Write, All]');
  p.next();
  p.expectKeywords('ON', 'DATABASE');
  return { action, database: p.parseIdentifier() };
}

/** GRANT privileges TO [ROLE] r, REVOKE privileges FROM [ROLE] r. */
export function parseGrantRevoke(p: Parser): GrantRevoke {
  const pos = p.pos();
  const kind = p.parseKeyword('GRANT') ? 'grant' : (p.expectKeyword('REVOKE'), 'revoke');
  const privileges = p.parseCommaSeparated(parsePrivilege);
  p.expectKeyword(kind === 'grant' ? 'TO' : 'FROM');
  p.parseKeyword('ROLE');
  return { kind, pos, privileges, role: p.parseIdentifier() };
}
