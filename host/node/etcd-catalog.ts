// The catalog of a cluster in etcd (meta/shared-catalog.ts' seam, docs/cluster.md): one key per
// tenant, user and database under `/<cluster>/catalog/`, plus `meta`, which every change rewrites,
// so that its mod revision is the catalog's version: a change is a transaction that compares it
// with the one this node last saw, and one that loses gets the winner's catalog in the same answer.

import type { Etcd3, IKeyValue } from 'etcd3';
import { bug, UserError } from '../core/errors.js';
import { CatalogConflict, joinCatalog, META_KEY, type SharedCatalogFile, splitCatalog } from '../meta/index.js';

/** etcd's answers as a 503 that names it; CatalogConflict and UserErrors go through. */
function etcdUnavailable(endpoints: string, what: string, e: unknown): unknown {
  if (e instanceof CatalogConflict || e instanceof UserError) return e;
  return new UserError(
    'unavailable',
    `etcd at ${endpoints} is unreachable (${(e as Error).message}): ${what} until it is back`,
    { retryAfterS: 1 },
  );
}

export class EtcdCatalogFile implements SharedCatalogFile {
  readonly name: string;
  readonly #client: Etcd3;
  readonly #prefix: string;
  readonly #endpoints: string;
  /** The values of the catalog as this node last read, adopted or wrote them, by key below the prefix. */
  #seen = new Map<string, string>();
  /** The mod revision of `meta` in #seen: what a change compares ('0': no catalog yet). */
  #metaRevision = '0';
  /** The store's revision when #seen was read: a watch starts after it. */
  #readRevision = '0';
  #closed = false;
  #stopWatch: (() => Promise<void>) | undefined;

  /** `prefix` is the cluster's (`/sundial/`); the catalog's keys are below `<prefix>catalog/`. */
  constructor(client: Etcd3, prefix: string, endpoints: string) {
    this.#client = client;
    this.#prefix = `${prefix}catalog/`;
    this.#endpoints = endpoints;
    this.name = `etcd ${endpoints} ${this.#prefix}`;
  }

  async read(): Promise<string | undefined> {
    const res = await this.#client
      .getAll()
      .prefix(this.#prefix)
      .exec()
      .catch((e: unknown) => {
        throw etcdUnavailable(this.#endpoints, 'the catalog cannot be read', e);
      });
    this.#take(res.kvs, res.header.revision);
    return joinCatalog(this.#seen);
  }

  async refresh(): Promise<string | undefined> {
    const res = await this.#client
      .getAll()
      .prefix(this.#prefix)
      .exec()
      .catch((e: unknown) => {
        throw etcdUnavailable(this.#endpoints, "other nodes' catalog changes are not seen", e);
      });
    const meta = res.kvs.find((kv) => this.#key(kv) === META_KEY);
    if (meta === undefined || meta.mod_revision === this.#metaRevision) return undefined;
    this.#take(res.kvs, res.header.revision);
    return joinCatalog(this.#seen);
  }

  async replace(text: string): Promise<void> {
    const next = splitCatalog(text);
    const ops = [];
    // meta always: its mod revision is the catalog's version.
    for (const [key, value] of next)
      if (key === META_KEY || this.#seen.get(key) !== value)
        ops.push(this.#client.put(this.#prefix + key).value(value));
    for (const key of this.#seen.keys()) if (!next.has(key)) ops.push(this.#client.delete().key(this.#prefix + key));
    const res = await this.#client
      .if(this.#prefix + META_KEY, 'Mod', '==', this.#metaRevision)
      .then(...ops)
      .else(this.#client.getAll().prefix(this.#prefix))
      .commit()
      .catch((e: unknown) => {
        throw etcdUnavailable(this.#endpoints, 'DDL and DCL are refused', e);
      });
    if (!res.succeeded) {
      this.#take(res.responses[0]!.response_range.kvs, res.header.revision);
      const now = joinCatalog(this.#seen);
      if (now === undefined) throw bug(`the catalog in ${this.name} has no ${META_KEY} key after a change of it`);
      throw new CatalogConflict(now);
    }
    this.#seen = next;
    this.#metaRevision = res.header.revision;
  }

  /** Nothing to clean: a transaction leaves nothing half done. */
  async cleanup(): Promise<void> {}

  watch(changed: () => void): void {
    if (this.#closed) return;
    const newer = (kv: IKeyValue): void => {
      if (BigInt(kv.mod_revision) > BigInt(this.#metaRevision)) changed();
    };
    const creating = this.#client
      .watch()
      .prefix(this.#prefix)
      .startRevision(String(BigInt(this.#readRevision) + 1n))
      .create();
    void creating.then(
      (watcher) => {
        watcher.on('put', newer);
        watcher.on('delete', newer);
        // After etcd was away: what changed meanwhile may have come before the watch resumed.
        watcher.on('connected', () => changed());
        watcher.on('error', () => changed());
      },
      () => undefined, // closed before it connected
    );
    this.#stopWatch = async () => (await creating).cancel();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#stopWatch?.().catch(() => undefined);
  }

  #key(kv: IKeyValue): string {
    const key = kv.key.toString();
    return key.startsWith(this.#prefix) ? key.slice(this.#prefix.length) : key;
  }

  #take(kvs: readonly IKeyValue[], revision: string): void {
    this.#seen = new Map(kvs.map((kv) => [this.#key(kv), kv.value.toString()]));
    this.#metaRevision = kvs.find((kv) => this.#key(kv) === META_KEY)?.mod_revision ?? '0';
    this.#readRevision = revision;
  }
}
