// Runs the DCL statements the engine hands over (QuerySession.dcl): who may run each is decided
// by meta/access.ts, the change itself by meta/catalog-dcl.ts, saved durably by Storage before the
// statement is answered. Privileges, following CnosDB's model:
// - tenants (CREATE / DROP / RECOVER, ALTER TENANT SET / UNSET) and users (CREATE / DROP, and
//   ALTER USER of someone else): admins; only root may change root;
// - a user may change its own password and comment (a password change also clears
//   must_change_password);
// - members (ALTER TENANT t ADD / SET / REMOVE USER): admins and t's owners;
// - roles and grants (CREATE / DROP ROLE, GRANT, REVOKE) of the session's tenant: admins and its
//   owners.

import {
  addMemberDef,
  alterTenantDef,
  alterUserDef,
  type Authenticator,
  changePrivileges,
  createRoleDef,
  createTenantDef,
  createUserDef,
  dropAfterMs,
  dropRoleDef,
  dropUserDef,
  findPendingDrop,
  isTenantOwner,
  removeMemberDef,
  renameUserDef,
  requireAdmin,
  requireOwner,
  requireSystemMaintainer,
  ROOT_USER,
  setMemberDef,
  type UserDef,
  verifyPassword,
} from '../meta/index.js';
import type { DclStatement } from '../engine/query.js';
import { semanticError } from '../engine/errors.js';
import { tenantNotFound, userNotFound } from '../core/meta-errors.js';
import { UserError } from '../core/errors.js';
import type { Storage } from '../storage/index.js';
import {
  passwordOf,
  tenantOptionChange,
  tenantOptions,
  tenantOptionUnset,
  userOptionChange,
  userOptions,
} from './dcl-options.js';

export interface DclContext {
  storage: Storage;
  authenticator: Authenticator;
  /** Who runs the statement (as authenticated for this request). */
  user: UserDef;
  /** The session's tenant: roles and grants are of this tenant. */
  tenant: string;
}

const LEVELS = { READ: 'read', WRITE: 'write', ALL: 'all' } as const;

function requireRootFor(user: UserDef, target: string): void {
  if (target === ROOT_USER && user.name !== ROOT_USER)
    throw new UserError('privilege', 'Insufficient privileges, expected [root user]');
}

export async function runDcl(ctx: DclContext, s: DclStatement): Promise<void> {
  const { storage, user } = ctx;
  const catalog = storage.catalog;
  switch (s.kind) {
    case 'createTenant': {
      requireAdmin(user, 'tenants');
      if (s.ifNotExists && catalog.tenants.has(s.name)) return;
      const options = tenantOptions(s.options);
      await storage.changeCatalog((c) => createTenantDef(c, s.name, options));
      return;
    }
    case 'alterTenant': {
      const a = s.action;
      if (a.kind === 'addUser' || a.kind === 'setUser' || a.kind === 'removeUser') {
        requireOwner(catalog, user, s.name, 'members');
        if (a.kind === 'addUser')
          await storage.changeCatalog((c) => addMemberDef(c, s.name, a.user, a.role, ctx.tenant));
        else if (a.kind === 'setUser')
          await storage.changeCatalog((c) => setMemberDef(c, s.name, a.user, a.role, ctx.tenant));
        else await storage.changeCatalog((c) => removeMemberDef(c, s.name, a.user));
        return;
      }
      // CnosDB: a tenant's own owner may change its comment and drop_after; _limiter is the system's.
      const option = (a.kind === 'set' ? a.option.name : a.name).toLowerCase();
      const t = catalog.tenants.get(s.name);
      if (option === '_limiter' || t === undefined || !isTenantOwner(user, t)) requireAdmin(user, 'tenants');
      const change = a.kind === 'set' ? tenantOptionChange(a.option) : tenantOptionUnset(a.name);
      await storage.changeCatalog((c) => alterTenantDef(c, s.name, change));
      return;
    }
    case 'dropTenant': {
      requireAdmin(user, 'tenants');
      // A tenant whose drop is pending is dropped again: rescheduled with AFTER, else at once.
      const pending = findPendingDrop(catalog, 'tenant', [s.name]) !== undefined;
      if (!catalog.tenants.has(s.name) && !pending) {
        if (s.ifExists) return;
        throw tenantNotFound(s.name);
      }
      await storage.dropTenant(s.name, s.after === undefined ? undefined : dropAfterMs(s.after));
      return;
    }
    case 'recoverTenant':
      // A pending drop undone; a live tenant with no drop pending is left as it is.
      requireAdmin(user, 'tenants');
      if (findPendingDrop(catalog, 'tenant', [s.name]) !== undefined) await storage.recoverDropped('tenant', [s.name]);
      else if (!catalog.tenants.has(s.name) && !s.ifExists) throw tenantNotFound(s.name);
      return;
    case 'createUser': {
      requireAdmin(user, 'users');
      if (s.ifNotExists && catalog.users.has(s.name)) return;
      const options = await userOptions(s.options);
      await storage.changeCatalog((c) => createUserDef(c, s.name, options));
      return;
    }
    case 'alterUser': {
      const a = s.action;
      if (a.kind === 'rename') {
        // CnosDB: a user may rename itself; others only admins.
        if (s.name !== user.name) requireAdmin(user, 'users');
        requireRootFor(user, s.name);
        await storage.changeCatalog((c) => renameUserDef(c, s.name, a.newName));
        ctx.authenticator.forget(s.name);
        return;
      }
      const option = a.option.name.toLowerCase();
      const self = s.name === user.name;
      if (option === 'granted_admin') requireSystemMaintainer(user);
      else if (!(self && (option === 'password' || option === 'comment'))) requireAdmin(user, 'users');
      requireRootFor(user, s.name);
      const target = catalog.users.get(s.name);
      if (target === undefined) throw userNotFound(s.name);
      // As CnosDB's: a new password must differ from the old (a forced change cannot keep it).
      if (option === 'password' && (await samePassword(passwordOf(a.option), target.passwordHash))) {
        throw new UserError('privilege', 'Insufficient privileges, expected [input different password]');
      }
      const change = await userOptionChange(a.option);
      if (self && change.passwordHash !== undefined) change.mustChangePassword = false;
      await storage.changeCatalog((c) => alterUserDef(c, s.name, change));
      if (change.passwordHash !== undefined) ctx.authenticator.forget(s.name);
      return;
    }
    case 'dropUser':
      requireAdmin(user, 'users');
      if (!catalog.users.has(s.name)) {
        if (s.ifExists) return;
        throw userNotFound(s.name);
      }
      await storage.changeCatalog((c) => dropUserDef(c, s.name));
      ctx.authenticator.forget(s.name);
      return;
    case 'createRole': {
      const t = requireOwner(catalog, user, ctx.tenant, 'roles');
      const inherit = s.inherit?.toLowerCase();
      if (inherit !== undefined && inherit !== 'owner' && inherit !== 'member')
        throw semanticError(`Expected [owner,member], found ${s.inherit}`);
      if (s.ifNotExists && t.roles.has(s.name)) return;
      await storage.changeCatalog((c) => createRoleDef(c, ctx.tenant, s.name, inherit ?? null));
      return;
    }
    case 'dropRole': {
      const t = requireOwner(catalog, user, ctx.tenant, 'roles');
      if (s.ifExists && !t.roles.has(s.name)) return;
      await storage.changeCatalog((c) => dropRoleDef(c, ctx.tenant, s.name));
      return;
    }
    case 'grant':
    case 'revoke': {
      requireOwner(catalog, user, ctx.tenant, 'roles');
      if (s.role === 'owner' || s.role === 'member')
        throw new UserError('systemRoleModification', 'Semantic error: System roles are not allowed to be modified');
      const changes = s.privileges.map((p) => ({ level: LEVELS[p.action], database: p.database }));
      await storage.changeCatalog((c) => changePrivileges(c, ctx.tenant, s.role, s.kind, changes));
      return;
    }
  }
}

/** Whether `password` is the one `stored` holds ('' is the empty password, as auth.ts reads it). */
async function samePassword(password: string, stored: string): Promise<boolean> {
  return stored === '' ? password === '' : verifyPassword(password, stored);
}
