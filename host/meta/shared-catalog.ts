// The catalog shared by the nodes of a cluster (docs/cluster.md): the seam a store of it (etcd,
// node/etcd-catalog.ts) fills, and the document split into one value per tenant, user and
// database, so that a change rewrites only what it touched and no value grows with the catalog.

/** A CatalogFile's `replace` lost a race: another node changed the catalog since this one read it. */
export class CatalogConflict extends Error {
  constructor(
    /** The document as the store holds it now (which this node adopts before it retries). */
    readonly text: string,
  ) {
    super('the shared catalog changed meanwhile');
  }
}

/**
 * A catalog document several nodes change (CatalogFile's contract, plus): `replace` is a
 * compare-and-put against the document this node last read, adopted or wrote, and throws
 * CatalogConflict when another node changed it meanwhile.
 */
export interface SharedCatalogFile {
  readonly name: string;
  read(): Promise<string | undefined>;
  replace(text: string): Promise<void>;
  cleanup(): Promise<void>;
  /** Calls `changed` whenever another node may have changed the document (calls may come in bursts). */
  watch(changed: () => void): void;
  /** The document when another node changed it since this one last read, adopted or wrote it; else undefined. */
  refresh(): Promise<string | undefined>;
}

/** The key of the document's header: format, version, id counter, pending drops, drop statuses. */
export const META_KEY = 'meta';

interface Document {
  tenants: Array<{ id: number; name: string }>;
  users: Array<{ id: number; name: string }>;
  databases: Array<{ id: number }>;
  [field: string]: unknown;
}

/** The catalog document (catalog-store.ts' JSON) as key -> JSON text, keys relative to the catalog's prefix. */
export function splitCatalog(text: string): Map<string, string> {
  const { tenants, users, databases, ...meta } = JSON.parse(text) as Document;
  const out = new Map<string, string>([[META_KEY, JSON.stringify(meta)]]);
  for (const t of tenants) out.set(`tenants/${encodeURIComponent(t.name)}`, JSON.stringify(t));
  for (const u of users) out.set(`users/${encodeURIComponent(u.name)}`, JSON.stringify(u));
  for (const d of databases) out.set(`databases/${d.id}`, JSON.stringify(d));
  return out;
}

/**
 * The document from its values (splitCatalog's inverse); undefined when there is no header (no
 * catalog yet). Objects come in id order, the order they were created in, as on the node that made them.
 */
export function joinCatalog(values: ReadonlyMap<string, string>): string | undefined {
  const meta = values.get(META_KEY);
  if (meta === undefined) return undefined;
  const of = <T extends { id: number }>(folder: string): T[] =>
    [...values]
      .filter(([k]) => k.startsWith(folder))
      .map(([, v]) => JSON.parse(v) as T)
      .sort((a, b) => a.id - b.id);
  const doc: Document = {
    ...(JSON.parse(meta) as object),
    tenants: of('tenants/'),
    databases: of('databases/'),
    users: of('users/'),
  };
  return JSON.stringify(doc, null, 1) + '\n';
}
