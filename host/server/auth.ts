// HTTP Basic authentication: the Authorization header parsed, then checked by the Authenticator
// (authenticator.ts). Every failure is the same 401 (missing or malformed header, unknown user,
// wrong password).

import { UserError } from '../core/errors.js';
import type { Authenticator, UserDef } from '../meta/index.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface Credentials {
  user: string;
  password: string;
}

/** Parses `Authorization: Basic base64(user:password)`; the password may be empty or hold ':'. */
export function parseBasic(header: string | undefined): Credentials {
  if (header === undefined || header === '')
    throw new UserError('auth', 'missing Authorization header (want Basic credentials)');
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'basic')
    throw new UserError('auth', `unsupported authorization scheme '${scheme.slice(0, 20)}', want Basic`);
  const b64 = header.slice(space + 1).trim();
  if (b64.length % 4 !== 0 || !BASE64.test(b64)) throw new UserError('auth', 'malformed Basic credentials: not base64');
  let text: string;
  try {
    text = utf8.decode(Buffer.from(b64, 'base64'));
  } catch {
    throw new UserError('auth', 'malformed Basic credentials: not UTF-8');
  }
  const colon = text.indexOf(':');
  if (colon < 0) throw new UserError('auth', "malformed Basic credentials: no ':' between user and password");
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** The user of a request's `Authorization` header, or throws UserError('auth') for any failure. */
export function authenticate(authenticator: Authenticator, header: string | undefined): Promise<UserDef> {
  const { user, password } = parseBasic(header);
  return authenticator.verify(user, password);
}
