// A node's part in a cluster (server.cluster, docs/cluster.md): the etcd client, the catalog kept
// in it (etcd-catalog.ts), and membership: `/<cluster>/nodes/<node id>` under a lease this node
// keeps alive, so that a node that dies or loses etcd for longer than LEASE_TTL_S drops out.

import { hostname } from 'node:os';
import { Etcd3, type Lease } from 'etcd3';
import type { Logger } from 'pino';
import type { ServerMetrics } from '../server/index.js';
import type { Config } from './config.js';
import { EtcdCatalogFile } from './etcd-catalog.js';

/** A node's membership outlives it by at most this (etcd's lease TTL; keep-alives every third of it). */
const LEASE_TTL_S = 10;
/**
 * Each call to etcd gives up after this: a DDL while etcd is down answers 503 within it (plus
 * the client's 3 attempts) rather than hanging. Watches, which are streams, have none.
 */
const CALL_TIMEOUT_MS = 3000;
/** A lost lease (etcd away longer than its TTL) is taken again this often until etcd answers. */
const REJOIN_MS = 1000;
/**
 * The live nodes are counted again this often as well as on every change the watch reports: a
 * watch that is reconnecting after etcd was away reports nothing for a while.
 */
const RECOUNT_MS = 2000;

/** etcd did not answer at start: the message names the endpoints and the setting. */
export class ClusterUnreachable extends Error {}

export class Cluster {
  readonly catalog: EtcdCatalogFile;
  readonly endpoints: string;
  readonly #client: Etcd3;
  readonly #prefix: string;
  readonly #logger: Logger;
  #lease: Lease | undefined;
  #closed = false;
  #rejoin: NodeJS.Timeout | undefined;
  #recount: NodeJS.Timeout | undefined;
  #stopWatch: (() => Promise<void>) | undefined;

  private constructor(client: Etcd3, prefix: string, endpoints: string, logger: Logger) {
    this.#client = client;
    this.#prefix = prefix;
    this.endpoints = endpoints;
    this.#logger = logger;
    this.catalog = new EtcdCatalogFile(client, prefix, endpoints);
  }

  /** Connects to etcd and checks that it answers; ClusterUnreachable when it does not. */
  static async connect(config: Config, logger: Logger): Promise<Cluster> {
    const endpoints = config['server.cluster.etcd_endpoints'];
    const hosts = endpoints
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '');
    const client = new Etcd3({
      hosts,
      dialTimeout: CALL_TIMEOUT_MS,
      defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
    });
    const cluster = new Cluster(client, `/${config['server.cluster.name']}/`, hosts.join(','), logger);
    try {
      await client.get(`${cluster.#prefix}catalog/meta`).string();
    } catch (e) {
      client.close();
      throw new ClusterUnreachable(
        `cannot reach etcd at ${cluster.endpoints} (server.cluster.etcd_endpoints): ${(e as Error).message}`,
      );
    }
    return cluster;
  }

  /**
   * Registers this node (`nodeId`, or `<host name>:<port of address>`) at `address` under a lease
   * kept alive from here on, and keeps `metrics`' count of live nodes.
   */
  async join(nodeId: string, address: string, metrics: ServerMetrics): Promise<string> {
    const id = nodeId !== '' ? nodeId : `${hostname()}:${new URL(address).port}`;
    const key = `${this.#prefix}nodes/${encodeURIComponent(id)}`;
    const value = JSON.stringify({ id, address, startedAt: new Date().toISOString() });
    const rejoin = (): void => {
      if (this.#closed || this.#rejoin !== undefined) return;
      this.#rejoin = setTimeout(() => {
        this.#rejoin = undefined;
        if (!this.#closed) register().catch(rejoin);
      }, REJOIN_MS);
    };
    const register = async (): Promise<void> => {
      const lease = this.#client.lease(LEASE_TTL_S, { autoKeepAlive: true });
      this.#lease = lease;
      lease.on('lost', (err) => {
        if (this.#closed || lease !== this.#lease) return;
        this.#logger.warn({ err, node: id }, 'lost the cluster membership lease; taking a new one');
        rejoin();
      });
      await lease.put(key).value(value);
    };
    await register();
    const count = async (): Promise<void> => {
      const n = await this.#client.getAll().prefix(`${this.#prefix}nodes/`).count();
      metrics.clusterNodes(n);
    };
    await count();
    const creating = this.#client.watch().prefix(`${this.#prefix}nodes/`).create();
    void creating.then(
      (watcher) => {
        const recount = (): void => void count().catch(() => undefined);
        watcher.on('put', recount);
        watcher.on('delete', recount);
        watcher.on('connected', recount);
      },
      () => undefined,
    );
    this.#stopWatch = async () => (await creating).cancel();
    this.#recount = setInterval(() => void count().catch(() => undefined), RECOUNT_MS);
    this.#recount.unref();
    this.#logger.info({ node: id, cluster: this.#prefix, etcd: this.endpoints }, 'joined the cluster');
    return id;
  }

  /** Leaves the cluster (the lease revoked: the node drops out at once) and closes the client. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#rejoin !== undefined) clearTimeout(this.#rejoin);
    if (this.#recount !== undefined) clearInterval(this.#recount);
    await this.#stopWatch?.().catch(() => undefined);
    await this.catalog.close();
    await this.#lease?.revoke().catch(() => undefined);
    this.#client.close();
  }
}
