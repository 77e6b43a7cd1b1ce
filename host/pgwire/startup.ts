// The startup packet: protocol 3.0 and its parameters, or one of the special requests that share
// its framing (SSLRequest and GSSENCRequest, both answered 'N': this port has no TLS; and
// CancelRequest). `database` names the Sundial database, or `tenant/database` (names cannot hold
// '/', so the form is unambiguous); the tenant may also come as a `tenant` parameter or as
// `options=-c tenant=NAME` (libpq's PGOPTIONS); default: the tenant cnosdb, database public.

import { UserError } from '../core/errors.js';
import { DEFAULT_DATABASE, DEFAULT_TENANT } from '../meta/index.js';
import { BodyReader, protocolError } from './framing.js';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export type StartupPacket =
  | { kind: 'ssl' }
  | { kind: 'gssenc' }
  | { kind: 'cancel'; pid: number; secret: number }
  | { kind: 'startup'; minor: number; params: Map<string, string>; protocolOptions: string[] };

export function parseStartup(body: Buffer): StartupPacket {
  const r = new BodyReader(body, 'startup');
  const code = r.int32();
  if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
    r.end();
    return { kind: code === SSL_REQUEST ? 'ssl' : 'gssenc' };
  }
  if (code === CANCEL_REQUEST) {
    const pid = r.int32();
    const secret = r.int32();
    r.end();
    return { kind: 'cancel', pid, secret };
  }
  const major = code >>> 16;
  const minor = code & 0xffff;
  if (major !== 3)
    throw new UserError('pgProtocol', `unsupported frontend protocol ${major}.${minor}: server supports 3.0`);
  const params = new Map<string, string>();
  const protocolOptions: string[] = [];
  for (;;) {
    const name = r.cstring();
    if (name === '') break;
    const value = r.cstring();
    if (name.startsWith('_pq_.')) protocolOptions.push(name);
    else params.set(name, value);
  }
  r.end();
  if (!params.has('user')) throw new UserError('pgProtocol', 'no PostgreSQL user name specified in startup packet');
  return { kind: 'startup', minor, params, protocolOptions };
}

/** `-c name=value` and `--name=value` pairs of the `options` parameter (backslash escapes a space). */
export function parseOptions(options: string): Map<string, string> {
  const out = new Map<string, string>();
  const words: string[] = [];
  let cur = '';
  let any = false;
  for (let i = 0; i < options.length; i++) {
    const c = options[i]!;
    if (c === '\\' && i + 1 < options.length) {
      cur += options[++i];
      any = true;
    } else if (c === ' ' || c === '\t') {
      if (any) words.push(cur);
      cur = '';
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) words.push(cur);
  for (let i = 0; i < words.length; i++) {
    let pair = words[i]!;
    if (pair === '-c') pair = words[++i] ?? '';
    else if (pair.startsWith('-c')) pair = pair.slice(2);
    else if (pair.startsWith('--')) pair = pair.slice(2);
    else throw protocolError(`invalid command-line argument in options: ${JSON.stringify(pair)} (want -c name=value)`);
    const eq = pair.indexOf('=');
    if (eq <= 0) throw protocolError(`invalid option ${JSON.stringify(pair)} in options (want name=value)`);
    out.set(pair.slice(0, eq).replaceAll('-', '_').toLowerCase(), pair.slice(eq + 1));
  }
  return out;
}

export interface Target {
  user: string;
  tenant: string;
  database: string;
  /** Settings from `options` (other than tenant), applied like SET. */
  settings: Map<string, string>;
}

/** The user, tenant, database and settings a startup packet asks for. */
export function targetOf(params: ReadonlyMap<string, string>): Target {
  const user = params.get('user')!;
  const settings = parseOptions(params.get('options') ?? '');
  let database = params.get('database') || DEFAULT_DATABASE;
  let tenant: string | undefined;
  const slash = database.indexOf('/');
  if (slash >= 0) {
    tenant = database.slice(0, slash);
    database = database.slice(slash + 1);
  }
  for (const other of [params.get('tenant'), settings.get('tenant')]) {
    if (other === undefined) continue;
    if (tenant !== undefined && tenant !== other)
      throw new UserError('invalidParam', `the tenant is given twice: "${tenant}" and "${other}"`);
    tenant = other;
  }
  settings.delete('tenant');
  if (database === '' || tenant === '')
    throw new UserError('invalidParam', 'empty tenant or database name in the startup packet');
  return { user, tenant: tenant ?? DEFAULT_TENANT, database, settings };
}
