// DCL: tenants, users, roles and privileges, as CnosDB's parser reads them. Option lists are
// `name = value, ...` (sqlparser-rs's parse_sql_option; the `=` may be left out); their names and
// values stay raw for host/node/dcl-options.ts to check. A tenant's limiter groups
// (`object_config k = v ...`) are the one exception: read into `_limiter` JSON here, as CnosDB does.

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
import { UserError } from '../../core/errors.js';
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
  const valueFollows =
    next.kind === 'string' ||
    next.kind === 'number' ||
    (next.kind === 'word' && ['TRUE', 'FALSE', 'NULL'].includes(next.upper));
  if (!valueFollows && !p.consumeOp('=')) return p.expected('a value');
  return { name, value: parseOptionValue(p, true) };
}

function parseWithOptions(p: Parser): SqlOption[] {
  return p.parseKeyword('WITH') ? p.parseCommaSeparated(parseSqlOption) : [];
}

const OBJECT_LIMITS = [
  'max_users_number',
  'max_databases',
  'max_shard_number',
  'max_replicate_number',
  'max_retention_time',
];
const REQUEST_BUCKETS = [
  'coord_data_in',
  'coord_data_out',
  'coord_queries',
  'coord_writes',
  'http_data_in',
  'http_data_out',
  'http_queries',
  'http_writes',
];
const BUCKET_KEYS = ['remote_max', 'remote_initial', 'remote_refill', 'remote_interval', 'local_max', 'local_initial'];

/**
 * One group of CnosDB 2.4's limiter syntax after its name, `key = value ...` without commas
 * (parse_object_config / parse_request_config in its parser.rs): the values as JSON, a
 * bucket's `remote_x` / `local_x` keys as `remote_bucket.x` / `local_bucket.x`. A negative value
 * is refused with CnosDB's text; an unknown key names the keys (CnosDB's error is the bare key).
 */
function parseLimiterGroup(p: Parser, group: string): Record<string, unknown> {
  const keys = group === 'object_config' ? OBJECT_LIMITS : BUCKET_KEYS;
  const values: Record<string, unknown> = {};
  while (p.peek().kind === 'word' || p.peek().kind === 'quoted') {
    const key = p.parseIdentifier();
    const k = key.toLowerCase();
    if (!keys.includes(k)) throw parseErrorAt(`Expected one of ${keys.join(', ')} in ${group}, found ${key}`);
    p.expectOp('=');
    const v = parseOptionValue(p, true);
    let json: unknown =
      v.kind === 'null' ? null : v.kind === 'boolean' ? v.value : v.kind === 'string' ? v.value : Number(v.text);
    if (v.kind === 'number' && v.text.startsWith('-')) {
      if (Number(v.text) !== 0) throw parseErrorAt(`${key} cannot be negative`);
      json = 0;
    }
    values[k] = json;
  }
  if (group === 'object_config') return values;
  const bucket = (side: string): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(values).flatMap(([k, v]) => (k.startsWith(side + '_') ? [[k.slice(side.length + 1), v]] : [])),
    );
  return { remote_bucket: bucket('remote'), local_bucket: bucket('local') };
}

function parseErrorAt(message: string): never {
  throw new UserError('sqlParse', `sql parser error: ${message}`);
}

/**
 * The options of CREATE TENANT ... WITH and ALTER TENANT ... SET, as CnosDB 2.4's
 * parse_tenant_with_options reads them: `name [=] value` or a limiter group (`object_config
 * max_databases = 3 ...`, `coord_data_in remote_max = 100 ...`; the documented syntax), comma
 * separated. The groups make one `_limiter` option holding their JSON, as CnosDB builds it; a
 * `_limiter = '<json>'` option, which CnosDB 2.4's parser no longer reads, is still taken.
 */
function parseTenantOptions(p: Parser): SqlOption[] {
  const options: SqlOption[] = [];
  const objectConfig: Record<string, unknown>[] = [];
  const requestConfig: Record<string, unknown> = {};
  let groups = 0;
  do {
    const next = p.peek();
    const name = next.kind === 'word' || next.kind === 'quoted' ? next.value.toLowerCase() : '';
    if (name === 'object_config' || REQUEST_BUCKETS.includes(name)) {
      p.next();
      while (p.consumeOp('='));
      const values = parseLimiterGroup(p, name);
      if (name === 'object_config') objectConfig.push(values);
      else requestConfig[name] = values;
      groups++;
    } else options.push(parseSqlOption(p));
  } while (p.consumeOp(','));
  if (groups > 0) {
    const limiter: Record<string, unknown> = {};
    if (objectConfig.length > 0) limiter.object_config = Object.assign({}, ...objectConfig);
    if (Object.keys(requestConfig).length > 0) limiter.request_config = requestConfig;
    options.push({ name: '_limiter', value: { kind: 'string', value: JSON.stringify(limiter) } });
  }
  return options;
}

export function parseCreateTenant(p: Parser): CreateTenant {
  const pos = p.pos();
  p.expectKeywords('CREATE', 'TENANT');
  const ifNotExists = p.parseKeywords('IF', 'NOT', 'EXISTS');
  const name = parseNewName(p);
  return { kind: 'createTenant', pos, name, ifNotExists, options: p.parseKeyword('WITH') ? parseTenantOptions(p) : [] };
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
    if (!p.parseKeyword('USER')) {
      // One option at a time (CnosDB's alter_parse_limiter); the limiter groups make one.
      const options = parseTenantOptions(p);
      if (options.length > 1)
        parseErrorAt('Cannot set multiple options (comment, drop_after, _limiter) at the same time');
      return alter({ kind: 'set', option: options[0]! });
    }
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
  if (p.parseKeyword('SET'))
    return { kind: 'alterUser', pos, name, action: { kind: 'set', option: parseSqlOption(p) } };
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
  if (action !== 'READ' && action !== 'WRITE' && action !== 'ALL')
    return p.expected('a privilege keyword [Read, Write, All]');
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
