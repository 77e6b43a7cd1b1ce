// The options of CREATE/ALTER TENANT and CREATE/ALTER USER, read from the parser's raw
// `name = value` pairs with CnosDB's names and its "Expected option ..." text for an unknown one.
// Passwords are hashed here (scrypt, per-user salt: password.ts), never stored or logged as text.

import { UserError } from '../core/errors.js';
import type { OptionValue, SqlOption } from '../engine/sql/ast.js';
import {
  hashPassword,
  parseDropAfter,
  parseLimiterConfig,
  scramVerifier,
  type TenantOptions,
  type UserChange,
} from '../meta/index.js';

export const TENANT_OPTIONS = ['comment', '_limiter', 'drop_after'] as const;
export const USER_OPTIONS = ['password', 'must_change_password', 'rsa_public_key', 'comment', 'granted_admin'] as const;

function parseError(message: string): UserError {
  return new UserError('sqlParse', `sql parser error: ${message}`);
}

function expectedOption(names: readonly string[], found: string): UserError {
  return parseError(`Expected option ${names.map((n) => `[${n}]`).join(', ')} found [${found}]`);
}

function valueText(v: OptionValue): string {
  switch (v.kind) {
    case 'string':
      return `'${v.value}'`;
    case 'number':
      return v.text;
    case 'boolean':
      return v.value ? 'true' : 'false';
    case 'null':
      return 'NULL';
  }
}

/** A string option; NULL is `null` (unset). */
function stringOf(o: SqlOption): string | null {
  if (o.value.kind === 'null') return null;
  if (o.value.kind !== 'string') throw parseError(`option ${o.name} expects a string, found ${valueText(o.value)}`);
  return o.value.value;
}

function booleanOf(o: SqlOption): boolean {
  if (o.value.kind === 'boolean') return o.value.value;
  throw parseError(`option ${o.name} expects true or false, found ${valueText(o.value)}`);
}

/** Checks names (known, not repeated) and returns the options by lower-case name. */
function byName(options: readonly SqlOption[], known: readonly string[]): Map<string, SqlOption> {
  const out = new Map<string, SqlOption>();
  for (const o of options) {
    const name = o.name.toLowerCase();
    if (!known.includes(name)) throw expectedOption(known, o.name);
    if (out.has(name)) throw parseError(`option ${name} is given twice`);
    out.set(name, o);
  }
  return out;
}

/** One tenant option as a change (SET name = value; a NULL value unsets it). */
export function tenantOptionChange(o: SqlOption): Partial<TenantOptions> {
  const name = byName([o], TENANT_OPTIONS).keys().next().value!;
  const text = stringOf(o);
  switch (name) {
    case 'comment':
      return { comment: text };
    case 'drop_after':
      if (text !== null) parseDropAfter(text);
      return { dropAfter: text };
    default:
      return { limiter: text === null ? null : parseLimiterConfig(text) };
  }
}

/** UNSET name. */
export function tenantOptionUnset(name: string): Partial<TenantOptions> {
  const n = name.toLowerCase();
  if (!(TENANT_OPTIONS as readonly string[]).includes(n)) throw expectedOption(TENANT_OPTIONS, name);
  return n === 'comment' ? { comment: null } : n === 'drop_after' ? { dropAfter: null } : { limiter: null };
}

/** The WITH options of CREATE TENANT. */
export function tenantOptions(options: readonly SqlOption[]): TenantOptions {
  const out: TenantOptions = { comment: null, dropAfter: null, limiter: null };
  for (const o of byName(options, TENANT_OPTIONS).values()) Object.assign(out, tenantOptionChange(o));
  return out;
}

/** A user option as a change; the password is hashed. RSA keys are not supported (010005). */
/** The text of a PASSWORD option (NULL refused as userOptionChange refuses it). */
export function passwordOf(o: SqlOption): string {
  const p = stringOf(o);
  if (p === null) throw parseError('option password expects a string, found NULL');
  return p;
}

export async function userOptionChange(o: SqlOption): Promise<UserChange> {
  const name = byName([o], USER_OPTIONS).keys().next().value!;
  switch (name) {
    case 'password':
      return { passwordHash: await hashPassword(passwordOf(o)), scramVerifier: await scramVerifier(passwordOf(o)) };
    case 'must_change_password':
      return { mustChangePassword: booleanOf(o) };
    case 'granted_admin':
      return { admin: booleanOf(o) };
    case 'comment':
      return { comment: stringOf(o) ?? '' };
    default:
      throw new UserError(
        'notImplemented',
        'This feature is not implemented: RSA public key authentication (rsa_public_key)',
      );
  }
}

/**
 * The WITH options of CREATE USER. Without PASSWORD the user has the empty password (stored as
 * '', checked in auth.ts), as CnosDB's users do; only a loopback server accepts it.
 */
export async function userOptions(options: readonly SqlOption[]): Promise<Required<UserChange>> {
  const out: Required<UserChange> = {
    passwordHash: '',
    scramVerifier: '',
    admin: false,
    mustChangePassword: false,
    comment: '',
  };
  for (const o of byName(options, USER_OPTIONS).values()) Object.assign(out, await userOptionChange(o));
  return out;
}
