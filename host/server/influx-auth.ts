// Credentials as InfluxDB clients send them, checked against Sundial's users: the `u` and `p`
// query parameters (InfluxDB 1.x; node `influx` sends these), `Authorization: Token
// user:password` (InfluxDB 1.8's v2 compatibility; @influxdata/influxdb-client sends it), or
// Basic (python `influxdb`, the `influx` CLI). Failures are 401 with InfluxDB's wording; the
// InfluxDB routes authenticate here, before reading the body, instead of in the server's
// Basic-only onPreAuth.

import type { Request } from '@hapi/hapi';
import { UserError } from '../core/errors.js';
import type { UserDef } from '../meta/index.js';
import { parseBasic, type Credentials } from './auth.js';
import { queryParam } from './params.js';
import type { ServerContext } from './context.js';

/** The credentials of an InfluxDB request; UserError('auth') when there are none or they are malformed. */
export function influxCredentials(request: Request): Credentials {
  const u = queryParam(request, 'u');
  const p = queryParam(request, 'p');
  if (u !== undefined || p !== undefined) return { user: u ?? '', password: p ?? '' };
  const header = request.headers.authorization as string | undefined;
  const space = header === undefined ? -1 : header.indexOf(' ');
  if (header !== undefined && space > 0 && header.slice(0, space).toLowerCase() === 'token') {
    const token = header.slice(space + 1).trim();
    const colon = token.indexOf(':');
    if (colon < 0) throw new UserError('auth', 'unable to parse authentication credentials: want Token user:password');
    return { user: token.slice(0, colon), password: token.slice(colon + 1) };
  }
  try {
    return parseBasic(header);
  } catch (e) {
    if (e instanceof UserError)
      throw new UserError('auth', `unable to parse authentication credentials (${e.message})`);
    throw e;
  }
}

/** Authenticates the request (sets the user the write pipeline reads); 401 "authorization failed" for a wrong user or password. */
export async function authenticateInflux(ctx: ServerContext, request: Request): Promise<UserDef> {
  const credentials = influxCredentials(request);
  let user: UserDef;
  try {
    user = await ctx.services().authenticator.verify(credentials.user, credentials.password);
  } catch (e) {
    if (e instanceof UserError && e.kind === 'auth') throw new UserError('auth', `authorization failed: ${e.message}`);
    throw e;
  }
  request.app.user = user;
  return user;
}
