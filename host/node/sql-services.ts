// The SQL side of the services: the engine over the storage (engine-catalog.ts), the DCL
// (dcl.ts) and the system views (system-info.ts), as statement.ts asks for them per statement.

import type { Core } from '../core/wasm.js';
import { SqlEngine } from '../engine/engine.js';
import type { Authenticator } from '../meta/index.js';
import type { Storage } from '../storage/index.js';
import { runDcl } from './dcl.js';
import { StorageCatalog } from './engine-catalog.js';
import { LocalExternalFiles } from './external-files.js';
import { ExternalLocations } from './external-locations.js';
import type { QueryRegistry, SqlServices, UsageMetrics } from '../server/index.js';
import type { SecretBox } from './secret-box.js';
import { systemInfo } from './system-info.js';

/** `externalDir`: storage.external_dir, where COPY INTO reads and writes local files ('' for nowhere; object stores still). */
export function sqlServices(
  core: Core,
  storage: Storage,
  usage: UsageMetrics,
  authenticator: Authenticator,
  runningQueries: QueryRegistry,
  secrets: SecretBox,
  externalDir = '',
): SqlServices {
  const files = new ExternalLocations(externalDir === '' ? undefined : new LocalExternalFiles(externalDir));
  return {
    catalog: (tenant) => new StorageCatalog(storage, tenant, usage, undefined, secrets),
    engine: (planCache, skipped) =>
      new SqlEngine({
        catalogFor: (name) => new StorageCatalog(storage, name, usage, skipped, secrets),
        core,
        planCache,
        ...(files === undefined ? {} : { files }),
      }),
    dcl: (user, tenant, statement) => runDcl({ storage, authenticator, user, tenant: tenant.name }, statement),
    system: (user, tenant) => systemInfo(storage.catalog, runningQueries, user, tenant),
  };
}
