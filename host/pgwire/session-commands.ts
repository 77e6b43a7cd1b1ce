// The statements a PostgreSQL session runs that are about the session, not the data: SET, SHOW
// of a setting, RESET, the transaction verbs, DISCARD, and the one-row SELECTs of functions
// that report the session (`version()`, `current_setting(...)`, `current_database()`, ...).
// Sundial has no transactions: BEGIN, COMMIT and ROLLBACK are accepted so that drivers which
// wrap statements in them (psycopg, JDBC without autocommit) work, every statement takes effect
// at once, and ROLLBACK undoes nothing (docs/postgresql.md says so). SHOW of anything but a
// setting (SHOW TABLES, SHOW DATABASES, ...) is CnosDB SQL and goes to the engine.

import { BOOLEAN, type DataType, type Field, INT64, type Scalar, UTF8 } from '../engine/types/index.js';
import { UserError } from '../core/errors.js';
import { leadingWords, type PgToken } from './sql-text.js';

/** The PostgreSQL version the port claims: clients choose their catalog queries by it. */
export const PG_VERSION = '15.0';
export const PG_VERSION_NUM = '150000';

/** A result the wire layer makes itself: rows (fields non-empty) or a command (fields empty). */
export interface LocalResult {
  fields: Field[];
  rows: Scalar[][];
  tag: string;
  /** ParameterStatus messages to send (a SET of a reported setting). */
  reported?: Array<[string, string]>;
}

export interface SessionState {
  user: string;
  tenant: string;
  /** The database unqualified names resolve in (the startup `database`; `SET search_path` changes it). */
  database: string;
  /** Settings by lower-case name. */
  settings: Map<string, string>;
  /** 'I' idle, 'T' in a transaction block, 'E' in a failed one. */
  tx: 'I' | 'T' | 'E';
  sundialVersion: string;
  pid: number;
  /** Whether `name` is a database of the tenant (search_path). */
  hasDatabase(name: string): boolean;
}

/** Settings PostgreSQL reports with ParameterStatus whenever they change (protocol-flow.html). */
export const REPORTED = [
  'server_version',
  'server_encoding',
  'client_encoding',
  'application_name',
  'default_transaction_read_only',
  'in_hot_standby',
  'is_superuser',
  'session_authorization',
  'datestyle',
  'intervalstyle',
  'timezone',
  'integer_datetimes',
  'standard_conforming_strings',
];

/** The names ParameterStatus uses (PostgreSQL's GUC spelling). */
const DISPLAY_NAMES: Record<string, string> = {
  datestyle: 'DateStyle',
  intervalstyle: 'IntervalStyle',
  timezone: 'TimeZone',
};

export function displayName(name: string): string {
  return DISPLAY_NAMES[name] ?? name;
}

export function initialSettings(
  user: string,
  admin: boolean,
  database: string,
  version: string,
  startup: ReadonlyMap<string, string>,
): Map<string, string> {
  const s = new Map<string, string>([
    ['server_version', `${PG_VERSION} (Sundial ${version})`],
    ['server_version_num', PG_VERSION_NUM],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['application_name', ''],
    ['default_transaction_read_only', 'off'],
    ['in_hot_standby', 'off'],
    ['is_superuser', admin ? 'on' : 'off'],
    ['session_authorization', user],
    ['datestyle', 'ISO, MDY'],
    ['intervalstyle', 'postgres'],
    ['timezone', 'UTC'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['search_path', quoteIdent(database)],
    ['transaction_isolation', 'read committed'],
    ['default_transaction_isolation', 'read committed'],
    ['max_identifier_length', '63'],
    ['statement_timeout', '0'],
    ['lc_messages', 'C'],
    ['lc_monetary', 'C'],
    ['lc_numeric', 'C'],
    ['lc_time', 'C'],
    ['extra_float_digits', '1'],
    ['bytea_output', 'hex'],
    ['max_index_keys', '32'],
  ]);
  for (const [k, v] of startup) {
    const name = k.toLowerCase();
    if (['user', 'database', 'options', 'tenant', 'replication'].includes(name) || name.startsWith('_pq_.')) continue;
    s.set(name, name === 'client_encoding' ? clientEncoding(v) : v);
  }
  return s;
}

export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** Only UTF-8 is served; SQL_ASCII (libpq's choice in a C locale) passes bytes through as UTF-8 does. */
export function clientEncoding(value: string): string {
  const v = value.trim().replace(/^'|'$/g, '').toUpperCase().replace(/[-_]/g, '');
  if (v === 'UTF8' || v === 'UNICODE') return 'UTF8';
  if (v === 'SQLASCII') return 'SQL_ASCII';
  throw new UserError(
    'invalidParam',
    `invalid value for parameter "client_encoding": "${value}" (this server speaks UTF8 only)`,
  );
}

const field = (name: string, type: DataType = UTF8): Field => ({ name, type, nullable: true });
const command = (tag: string, reported?: Array<[string, string]>): LocalResult => ({
  fields: [],
  rows: [],
  tag,
  reported,
});

/** The text of a statement's tokens from `from` on, as a setting's value. */
function valueText(sql: string, tokens: readonly PgToken[], from: number): string {
  const rest = tokens.slice(from);
  if (rest.length === 1 && (rest[0]!.kind === 'string' || rest[0]!.kind === 'quoted')) return rest[0]!.value;
  return rest
    .map((t) => (t.kind === 'string' ? t.value : t.kind === 'quoted' ? t.value : sql.slice(t.start, t.end)))
    .join(rest.some((t) => t.value === ',') ? '' : ' ')
    .replace(/,/g, ', ');
}

/** The answer to a session statement, or undefined when the statement is not one. */
export function sessionCommand(sql: string, tokens: readonly PgToken[], state: SessionState): LocalResult | undefined {
  const [w0, w1, w2] = leadingWords(tokens, 3);
  switch (w0) {
    case 'begin':
    case 'start':
      if (w0 === 'start' && w1 !== 'transaction') return undefined;
      state.tx = 'T';
      return command(w0 === 'begin' ? 'BEGIN' : 'START TRANSACTION');
    case 'commit':
    case 'end':
      state.tx = 'I';
      return command('COMMIT');
    case 'abort':
    case 'rollback':
      if (w1 === 'to') return command('ROLLBACK');
      state.tx = 'I';
      return command('ROLLBACK');
    case 'savepoint':
      return command('SAVEPOINT');
    case 'release':
      return command('RELEASE');
    case 'discard':
      return command(`DISCARD ${(w1 || 'ALL').toUpperCase()}`);
    case 'deallocate':
      return command('DEALLOCATE');
    case 'set':
      return set(sql, tokens, state);
    case 'reset':
      if (w1 === 'all') return command('RESET');
      state.settings.delete(w1 ?? '');
      return command('RESET');
    case 'show': {
      const name = tokens
        .slice(1)
        .map((t) => t.value)
        .join(' ')
        .toLowerCase();
      if (name === 'all') {
        return {
          fields: [field('name'), field('setting'), field('description')],
          rows: [...state.settings].sort().map(([k, v]) => [displayName(k), v, '']),
          tag: 'SHOW',
        };
      }
      const value = showValue(name, state);
      if (value === undefined) return undefined;
      return {
        fields: [
          field(
            tokens
              .slice(1)
              .map((t) => t.value)
              .join(' '),
          ),
        ],
        rows: [[value]],
        tag: 'SHOW',
      };
    }
    case 'select':
      return selectFunctions(tokens, state);
  }
  void w2;
  return undefined;
}

function showValue(name: string, state: SessionState): string | undefined {
  if (name === 'transaction isolation level') return 'read committed';
  if (name === 'session authorization') return state.user;
  if (name === 'time zone') return state.settings.get('timezone');
  return state.settings.get(name);
}

function set(sql: string, tokens: readonly PgToken[], state: SessionState): LocalResult {
  let k = 1;
  const scope = tokens[k]?.value;
  if (scope === 'session' || scope === 'local') k++;
  const w = tokens[k]?.value ?? '';
  if (w === 'transaction' || w === 'characteristics') return command('SET');
  if (w === 'time' && tokens[k + 1]?.value === 'zone') return assign('timezone', valueText(sql, tokens, k + 2), state);
  if (w === 'names') return assign('client_encoding', valueText(sql, tokens, k + 1), state);
  if (w === 'session' && tokens[k + 1]?.value === 'authorization') return command('SET');
  const name = tokens.slice(k).findIndex((t) => t.value === '=' || t.value === 'to');
  if (name <= 0) throw new UserError('sqlParse', `syntax error in SET: ${sql.slice(0, 200)}`);
  const setting = tokens
    .slice(k, k + name)
    .map((t) => t.value)
    .join('')
    .toLowerCase();
  return assign(setting, valueText(sql, tokens, k + name + 1), state);
}

function assign(name: string, raw: string, state: SessionState): LocalResult {
  let value = raw;
  if (value.toLowerCase() === 'default') {
    state.settings.delete(name);
    return command('SET');
  }
  if (name === 'client_encoding') value = clientEncoding(value);
  if (name === 'search_path') {
    // A schema is a database of the tenant (docs/postgresql.md): the first one that exists
    // becomes the database that unqualified names resolve in.
    const names = value
      .split(',')
      .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
      .filter((s) => s !== '' && s !== '$user' && s !== 'pg_catalog');
    const db = names.find((n) => state.hasDatabase(n));
    if (db !== undefined) state.database = db;
  }
  state.settings.set(name, value);
  const reported: Array<[string, string]> = REPORTED.includes(name) ? [[displayName(name), value]] : [];
  return command('SET', reported);
}

/**
 * `SELECT f(), g('x') [AS a], ...` where every item is a session function PostgreSQL clients ask
 * for, optionally cast (`::int`) and divided (Grafana's `current_setting('server_version_num')::int/100`).
 * Anything else (a FROM, an unknown function) is the engine's.
 */
function selectFunctions(tokens: readonly PgToken[], state: SessionState): LocalResult | undefined {
  const items: Array<{ name: string; value: Scalar; type: DataType }> = [];
  let k = 1;
  const at = (i: number): PgToken | undefined => tokens[i];
  while (k < tokens.length) {
    let t = at(k);
    if (t?.kind === 'word' && t.value === 'pg_catalog' && at(k + 1)?.value === '.') {
      k += 2;
      t = at(k);
    }
    if (t?.kind !== 'word') return undefined;
    const fn = t.value;
    k++;
    let arg: string | undefined;
    if (at(k)?.value === '(') {
      if (at(k + 1)?.kind === 'string' && at(k + 2)?.value === ')') {
        arg = at(k + 1)!.value;
        k += 3;
      } else if (at(k + 1)?.kind === 'string' && at(k + 2)?.value === ',' && at(k + 4)?.value === ')') {
        arg = at(k + 1)!.value; // current_setting('x', true)
        k += 5;
      } else if (at(k + 1)?.value === ')') k += 2;
      else return undefined;
    } else if (
      !['current_user', 'session_user', 'user', 'current_catalog', 'current_schema', 'current_role'].includes(fn)
    )
      return undefined;
    let item = sessionFunction(fn, arg, state);
    if (item === undefined) return undefined;
    if (at(k)?.value === '::') {
      const type = at(k + 1)?.value;
      k += 2;
      if (type === 'int' || type === 'integer' || type === 'int4' || type === 'int8' || type === 'bigint') {
        const n = Number(item.value);
        if (!Number.isInteger(n)) return undefined;
        item = { value: BigInt(n), type: INT64 };
      } else if (type !== 'text' && type !== 'varchar' && type !== 'name') return undefined;
    }
    if (at(k)?.value === '/' && at(k + 1)?.kind === 'number' && item.type === INT64) {
      item = { value: (item.value as bigint) / BigInt(at(k + 1)!.value), type: INT64 };
      k += 2;
    }
    let name = fn;
    if (at(k)?.value === 'as') k++;
    const alias = at(k);
    if (alias !== undefined && (alias.kind === 'quoted' || (alias.kind === 'word' && alias.value !== 'from'))) {
      name = alias.value;
      k++;
    }
    items.push({ name, value: item.value, type: item.type });
    if (at(k)?.value === ',') k++;
    else if (k < tokens.length) return undefined;
  }
  if (items.length === 0) return undefined;
  return { fields: items.map((i) => field(i.name, i.type)), rows: [items.map((i) => i.value)], tag: 'SELECT 1' };
}

function sessionFunction(
  fn: string,
  arg: string | undefined,
  state: SessionState,
): { value: Scalar; type: DataType } | undefined {
  const text = (value: string | null): { value: Scalar; type: DataType } => ({ value, type: UTF8 });
  switch (fn) {
    case 'version':
      return text(
        `PostgreSQL ${PG_VERSION} (Sundial ${state.sundialVersion}), a time-series database speaking the PostgreSQL protocol`,
      );
    case 'current_setting':
      if (arg === undefined) return undefined;
      return text(showValue(arg.toLowerCase(), state) ?? null);
    case 'current_database':
    case 'current_catalog':
    case 'current_schema':
      return text(state.database);
    case 'current_user':
    case 'session_user':
    case 'user':
    case 'current_role':
      return text(state.user);
    case 'pg_backend_pid':
      return { value: BigInt(state.pid), type: INT64 };
    case 'pg_is_in_recovery':
      return { value: false, type: BOOLEAN };
    default:
      return undefined;
  }
}
