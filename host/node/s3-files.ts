// Object store locations of COPY INTO and external tables: `s3://<bucket>/<key or prefix>` on any
// S3-compatible store, through AWS's client with the statement's CONNECTION options (a client per
// distinct set of options, the last few kept). A key names one object; a prefix ending in `/`, or
// a key with objects under `<key>/`, names the objects directly under it (name order, hidden
// names and folder markers left out), as a local directory. Every failure of the store is
// CnosDB's ObjectStore error, 422 010047, with the store's own words.

import { randomBytes } from 'node:crypto';
import type { ListObjectsV2CommandOutput, S3Client } from '@aws-sdk/client-s3';
import { UserError } from '../core/errors.js';
import type { ExternalFile, ObjectStoreConnection } from '../engine/external/external-files.js';

function refused(message: string): UserError {
  return new UserError('externalLocation', `object store error: ${message}`);
}

interface S3File extends ExternalFile {
  readonly client: S3Client;
  readonly bucket: string;
  readonly key: string;
}

/** Bucket and key of `s3://bucket/key` (the key may be empty or end in `/`). */
function parseLocation(location: string): { bucket: string; key: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(location);
  if (m === null || m[1] === '') throw refused(`Lost bucket in url ${location}`);
  const key = decodeURIComponent(m[2]!);
  // A key is a name, not a path: `..` would mean nothing to the store, so it is refused as locally.
  if (key.split('/').includes('..')) throw refused(`location '${location}' contains '..'`);
  return { bucket: m[1]!, key };
}

type S3Module = typeof import('@aws-sdk/client-s3');
let s3Module: Promise<S3Module> | undefined;
/** AWS's client loads on first use: importing it costs 0.8 s, which a server without s3:// never pays. */
const loadS3 = (): Promise<S3Module> => (s3Module ??= import('@aws-sdk/client-s3'));

/** Clients by their options: each keeps a pool of connections, so one is made per set of options, not per statement. */
const clients = new Map<string, S3Client>();
const MAX_CLIENTS = 16;

async function clientFor(c: ObjectStoreConnection): Promise<S3Client> {
  const key = JSON.stringify(c);
  const known = clients.get(key);
  if (known !== undefined) {
    clients.delete(key);
    clients.set(key, known); // most recently used last
    return known;
  }
  const { S3Client } = await loadS3();
  const client = new S3Client({
    region: c.region,
    ...(c.endpointUrl === undefined ? {} : { endpoint: c.endpointUrl }),
    forcePathStyle: !c.virtualHostedStyle,
    ...(c.accessKeyId === undefined
      ? {}
      : {
          credentials: {
            accessKeyId: c.accessKeyId,
            secretAccessKey: c.secretKey ?? '',
            ...(c.token === undefined ? {} : { sessionToken: c.token }),
          },
        }),
    maxAttempts: 2,
  });
  clients.set(key, client);
  if (clients.size > MAX_CLIENTS) {
    const [oldest, evicted] = clients.entries().next().value!;
    clients.delete(oldest);
    // A statement may still read through it: its sockets close a minute later.
    setTimeout(() => evicted.destroy(), 60_000).unref();
  }
  return client;
}

function storeError(location: string, e: unknown): UserError {
  if (e instanceof UserError) return e;
  const err = e as { name?: string; message?: string };
  return refused(`'${location}': ${err.name ?? 'Error'}: ${err.message ?? String(e)}`);
}

/** An object's version for the parsed-file cache: its ETag (LastModified has whole seconds only). */
const version = (etag: string | undefined): { version?: string } => (etag === undefined ? {} : { version: etag });

const isMissing = (e: unknown): boolean => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NotFound' || err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404;
};

async function listPrefix(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<{ key: string; size: number; etag: string | undefined }[]> {
  const { ListObjectsV2Command } = await loadS3();
  const out: { key: string; size: number; etag: string | undefined }[] = [];
  let token: string | undefined;
  do {
    const page: ListObjectsV2CommandOutput = await client.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        Prefix: prefix,
        Delimiter: '/',
        ...(token === undefined ? {} : { ContinuationToken: token }),
      }),
    );
    for (const o of page.Contents ?? []) {
      const name = o.Key!.slice(prefix.length);
      if (name === '' || name.startsWith('.')) continue;
      out.push({ key: o.Key!, size: o.Size ?? 0, etag: o.ETag });
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export class S3Files {
  #sequence = 0;

  async list(location: string, connection: ObjectStoreConnection | undefined): Promise<S3File[]> {
    if (connection === undefined) throw refused(`location '${location}' needs CONNECTION = (region = ..., ...)`);
    const { bucket, key } = parseLocation(location);
    try {
      const client = await clientFor(connection);
      const { HeadObjectCommand } = await loadS3();
      if (key !== '' && !key.endsWith('/')) {
        try {
          const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
          return [
            {
              name: location,
              sizeBytes: head.ContentLength ?? 0,
              ...version(head.ETag),
              client,
              bucket,
              key,
            },
          ];
        } catch (e) {
          if (!isMissing(e)) throw e;
        }
        const under = await listPrefix(client, bucket, `${key}/`);
        if (under.length === 0) throw refused(`location '${location}' not found`);
        return under.map((o) => ({
          name: `s3://${bucket}/${o.key}`,
          sizeBytes: o.size,
          ...version(o.etag),
          client,
          bucket,
          key: o.key,
        }));
      }
      return (await listPrefix(client, bucket, key)).map((o) => ({
        name: `s3://${bucket}/${o.key}`,
        sizeBytes: o.size,
        ...version(o.etag),
        client,
        bucket,
        key: o.key,
      }));
    } catch (e) {
      throw storeError(location, e);
    }
  }

  async read(file: ExternalFile): Promise<Uint8Array> {
    const f = file as S3File;
    if (f.client === undefined) throw new Error(`BUG: ${file.name} did not come from S3Files.list`);
    try {
      const { GetObjectCommand } = await loadS3();
      const out = await f.client.send(new GetObjectCommand({ Bucket: f.bucket, Key: f.key }));
      return await out.Body!.transformToByteArray();
    } catch (e) {
      throw storeError(file.name, e);
    }
  }

  async write(
    location: string,
    extension: string,
    data: Uint8Array,
    connection: ObjectStoreConnection | undefined,
  ): Promise<string> {
    if (connection === undefined) throw refused(`location '${location}' needs CONNECTION = (region = ..., ...)`);
    const { bucket, key } = parseLocation(location);
    const directory = key === '' || key.endsWith('/');
    // A PUT replaces an object whole: readers see the old one or the new one.
    const target = directory
      ? `${key}${Date.now()}-${process.pid}-${++this.#sequence}-${randomBytes(4).toString('hex')}.${extension}`
      : key;
    try {
      const { PutObjectCommand } = await loadS3();
      await (await clientFor(connection)).send(new PutObjectCommand({ Bucket: bucket, Key: target, Body: data }));
    } catch (e) {
      throw storeError(location, e);
    }
    return `s3://${bucket}/${target}`;
  }
}
