// The one write path every ingest route shares (CONTRACT.md "Writes"), in this order: the
// route's own parameters (checked by the route before calling in), credentials (the server's
// onPreAuth), tenant membership, Write privilege and database (meta/access.ts), the tenant's write
// rate (429), memtable capacity, Content-Encoding, the body (size limit on the wire and after
// decompression), optional snappy block framing, the tenant's data_in (429), the in-flight byte
// budget, then the format's parser and one atomic, durable store of all its batches. A failure
// anywhere stores nothing.

import type { Request } from '@hapi/hapi';
import type { TimeUnit } from '../../core/precision.js';
import { dbUnit } from '../../core/precision.js';
import { precisionOf } from '../params.js';
import { type DatabaseDef, requireDatabaseAccess, type TenantDef, type UserDef } from '../../meta/index.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { userOf, type ServerContext } from '../context.js';
import type { Services } from '../services.js';
import { decodeSnappyBlock } from './snappy-body.js';
import { writeBatchRowCount } from '../../core/write-batch.js';

/** Route payload settings for write routes: the raw stream, read by readBody. */
export const WRITE_PAYLOAD = {
  output: 'stream',
  parse: false,
  maxBytes: Number.MAX_SAFE_INTEGER,
  timeout: false,
} as const;

export interface WriteTarget {
  tenant: string;
  database: string;
}

export interface WriteOptions {
  /** The body's format, as /metrics labels rows and bytes written (the parsers' names: `line-protocol`, `otlp-json`, ...). */
  format: string;
  /** Largest body, compressed or not. */
  bodyLimitBytes: number;
  /**
   * The body is a snappy block (Prometheus, Loki protobuf). `Content-Encoding: snappy` then names
   * that framing (Prometheus sends it) rather than a second encoding.
   */
  snappy?: boolean;
}

/** What a format's parser gets. */
export interface WriteInput {
  /** The decoded body; valid until the parser returns (or hands it to services.parsers). */
  body: Buffer;
  db: DatabaseDef;
  /** The database precision. */
  dbUnit: TimeUnit;
  /** The request's clock (fixed for the request), milliseconds since the epoch. */
  nowMs: number;
  services: Services;
}

/** What a parser returns (or resolves with): the batches to store, and anything the route replies with. */
export type WriteOutput<T> = { batches: Uint8Array[] } & T;

/**
 * Runs the write pipeline for one request and resolves with the parser's output once its
 * batches are durable. Throws UserError for every rejection.
 */
export async function runWrite<T>(
  ctx: ServerContext,
  request: Request,
  target: WriteTarget,
  options: WriteOptions,
  parse: (input: WriteInput) => WriteOutput<T> | Promise<WriteOutput<T>>,
): Promise<WriteOutput<T>> {
  // `precision` is a parameter of every write route (CONTRACT.md "Writes"): checked here too for
  // the formats whose times carry their own unit (spans, logs, Prometheus), where it changes nothing.
  precisionOf(request);
  const services = ctx.services();
  const user = userOf(request);
  const admitted = admitWrite(services, user, target);
  const header = request.headers['content-encoding'] as string | undefined;
  const snappyHeader = options.snappy === true && header?.trim().toLowerCase() === 'snappy';
  const encoding = snappyHeader ? 'identity' : checkContentEncoding(header);
  let body = await readBody(request.payload as never, encoding, options.bodyLimitBytes, contentLength(request));
  if (options.snappy === true && body.length > 0) body = decodeSnappyBlock(body, options.bodyLimitBytes);
  return storeWrite(
    services,
    admitted,
    { api: request.path.slice(1), user: user.name, format: options.format },
    body,
    parse,
  );
}

/** A write admitted by admitWrite: its database and tenant. */
export interface AdmittedWrite {
  db: DatabaseDef;
  tenant: TenantDef;
  target: WriteTarget;
}

/**
 * The checks of a write before its body is read: membership, Write privilege and database, the
 * tenant's write rate (429), memtable capacity. For routes (runWrite) and library mode alike.
 */
export function admitWrite(services: Services, user: UserDef, target: WriteTarget): AdmittedWrite {
  const catalog = services.storage.catalog;
  const db = requireDatabaseAccess(catalog, user, target.tenant, target.database, 'write');
  const tenant = catalog.tenants.get(target.tenant)!;
  services.tenantLimits.admitWrite(tenant);
  services.storage.checkWriteCapacity();
  return { db, tenant, target };
}

/** Who wrote, for the usage counters and /metrics: the api label ('api/v1/write', 'library'), the user, the body's format. */
export interface WriteSource {
  api: string;
  user: string;
  format: string;
}

/**
 * The rest of the write after the body is read: the tenant's data_in (429), the in-flight byte
 * budget, the parser, one atomic durable store of all its batches, the counters. Resolves with
 * the parser's output once the batches are durable.
 */
export async function storeWrite<T>(
  services: Services,
  admitted: AdmittedWrite,
  source: WriteSource,
  body: Buffer,
  parse: (input: WriteInput) => WriteOutput<T> | Promise<WriteOutput<T>>,
): Promise<WriteOutput<T>> {
  const { db, tenant, target } = admitted;
  services.tenantLimits.chargeDataIn(tenant, body.length);
  const release = services.writeBytes.acquire(body.length);
  try {
    const parsed = parse({ body, db, dbUnit: dbUnit(db.options.precision), nowMs: services.nowMs(), services });
    // A parser that ran here (line protocol, OpenTSDB text) stores at once: awaiting its plain
    // result would let another request's parse run first and hold back this one's WAL append
    // and fsync (line protocol lost 5-10% of its rows/s over 2 connections).
    const out = parsed instanceof Promise ? await parsed : parsed;
    await services.storage.write(db, out.batches);
    services.metrics.written(source.format, batchRows(out.batches), body.length);
    services.usage.write(
      { api: source.api, tenant: target.tenant, database: target.database, user: source.user },
      body.length,
      out.batches.reduce((n, b) => n + b.length, 0),
    );
    return out;
  } finally {
    release();
  }
}

function batchRows(batches: readonly Uint8Array[]): number {
  let n = 0;
  for (const b of batches) n += writeBatchRowCount(b);
  return n;
}

export function contentLength(request: Request): number | undefined {
  const v = request.headers['content-length'];
  return v === undefined ? undefined : Number(v);
}
