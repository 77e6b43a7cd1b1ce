// Writes test/storage/golden/catalog-v2/catalog.json: a catalog (FORMAT.md §3, version 2) with a
// second tenant holding a limiter, drop_after, members of every kind and custom roles (one that
// inherits nothing), grants, and users with and without admin. test/meta/catalog-dcl.test.ts reads it in
// every run, so later versions keep reading what version 2 wrote (STYLE.md §19).
//
// Run once per catalog version: node --import tsx test/storage/golden/make-catalog-v2.ts

import { rmSync } from 'node:fs';
import { DEFAULT_DATABASE_OPTIONS } from '../../../host/core/schema.js';
import {
  addMemberDef,
  changePrivileges,
  createRoleDef,
  createTenantDef,
  createUserDef,
} from '../../../host/meta/catalog-dcl.js';
import { createDatabaseDef } from '../../../host/meta/catalog-ddl.js';
import { CatalogStore } from '../../../host/meta/catalog-store.js';
import { catalogFile } from '../../../host/storage/catalog-file.js';
import { parseLimiterConfig } from '../../../host/meta/limiter-config.js';

const dir = new URL('./catalog-v2', import.meta.url).pathname;
rmSync(`${dir}/catalog.json`, { force: true });
const store = await CatalogStore.open(catalogFile(dir), {
  rootPasswordHash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
});
const c = store.catalog;
const hash = 'scrypt$16384$8$1$AQEBAQEBAQEBAQEBAQEBAQ==$AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=';
createTenantDef(c, 'acme', {
  comment: 'a tenant',
  dropAfter: '7d',
  limiter: parseLimiterConfig(
    JSON.stringify({
      object_config: {
        max_users_number: 5,
        max_databases: 3,
        max_shard_number: 2,
        max_replicate_number: 1,
        max_retention_time: 30,
      },
      request_config: {
        http_writes: {
          remote_bucket: { max: 10, initial: 10, refill: 10, interval: 1000 },
          local_bucket: { max: 10, initial: 0 },
        },
        http_concurrent_queries: 2,
      },
    }),
  ),
});
createDatabaseDef(c, 'acme', 'metrics', { ...DEFAULT_DATABASE_OPTIONS });
createDatabaseDef(c, 'acme', 'logs', { ...DEFAULT_DATABASE_OPTIONS, precision: 'MS' });
createUserDef(c, 'alice', { passwordHash: hash, admin: false, mustChangePassword: false, comment: 'owner of acme' });
createUserDef(c, 'bob', { passwordHash: hash, admin: false, mustChangePassword: true, comment: '' });
createUserDef(c, 'carol', { passwordHash: '', admin: false, mustChangePassword: false, comment: '' });
createUserDef(c, 'dave', { passwordHash: hash, admin: true, mustChangePassword: false, comment: 'granted admin' });
createRoleDef(c, 'acme', 'writer', 'member');
createRoleDef(c, 'acme', 'nothing', null);
changePrivileges(c, 'acme', 'writer', 'grant', [{ level: 'write', database: 'metrics' }]);
changePrivileges(c, 'acme', 'nothing', 'grant', [
  { level: 'read', database: 'logs' },
  { level: 'all', database: 'metrics' },
]);
addMemberDef(c, 'acme', 'alice', 'owner');
addMemberDef(c, 'acme', 'bob', 'writer');
addMemberDef(c, 'acme', 'carol', 'nothing');
addMemberDef(c, 'cnosdb', 'bob', 'member');
await store.save();
