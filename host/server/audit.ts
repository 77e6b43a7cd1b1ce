// The audit line of a denied request: failed authentication (401), a tenant the user may not use
// (030010), a missing privilege (010004) and a tenant's request limit (429). One JSON log line
// each, `"audit":"denied"`, with the user, the tenant, the route and the reason; never a password
// or a credential (the user name of a failed Basic login is the one claimed, cut to 64 chars).

import type { Request } from '@hapi/hapi';
import type { Logger } from 'pino';
import type { UserError } from '../core/errors.js';
import { parseBasic } from './auth.js';
import { requestLog } from './monitoring/index.js';
import { tenantOf } from './params.js';
import { TENANT_LIMIT } from './tenant-limits.js';

const AUDITED = new Set(['auth', 'tenantNotFound', 'privilege']);
const MAX_NAME = 64;

function claimedUser(request: Request): string | null {
  const known = request.app.user?.name;
  if (known !== undefined) return known;
  try {
    return parseBasic(request.headers.authorization as string | undefined).user.slice(0, MAX_NAME);
  } catch {
    return null;
  }
}

function requestTenant(request: Request): string | null {
  try {
    return tenantOf(request).slice(0, MAX_NAME);
  } catch {
    return null;
  }
}

/** Logs `err` when it denies the request (see above); other errors are not audit events. */
export function auditDenied(logger: Logger, request: Request, err: UserError): void {
  if (!AUDITED.has(err.kind) && !(err.kind === 'limitReached' && err.cause === TENANT_LIMIT)) return;
  requestLog(logger, request).warn(
    {
      audit: 'denied',
      user: claimedUser(request),
      tenant: requestTenant(request),
      method: request.method.toUpperCase(),
      route: request.route.path,
      status: err.status,
      code: err.code,
      reason: err.message,
    },
    'request denied',
  );
}
