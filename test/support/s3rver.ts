// An S3-compatible store for the object-store tests: s3rver (npm) in this process, on a free
// loopback port, over a temporary folder, with one bucket. `stop` and `start` again keep the
// port and the objects, so a test can take the store away and bring it back.

import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** s3rver's one account (it checks the access key id; it does not verify SigV4 signatures). */
export const S3RVER_KEY = 'S3RVER';

export interface TestS3 {
  url: string;
  bucket: string;
  /** The server flags that point a Sundial server at this store. */
  args(extra?: { prefix?: string; cacheBytes?: string; cacheDir?: string }): string[];
  /** Object keys in the bucket (s3rver keeps one folder per object). */
  keys(prefix?: string): string[];
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops the store and removes its folder. */
  close(): Promise<void>;
}

export async function startS3(bucket = 'sundial'): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'sundial-s3-'));
  let port = 0;
  let server: S3rver | undefined;
  const start = async (): Promise<void> => {
    if (server !== undefined) return;
    server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    const addr = await server.run();
    port = addr.port;
  };
  await start();
  const url = `http://127.0.0.1:${port}`;
  const keys = (prefix = ''): string[] => {
    // s3rver stores object `a/b` as <dir>/<bucket>/a/b._S3rver_object (and metadata beside it).
    const out: string[] = [];
    const walk = (d: string, rel: string): void => {
      for (const e of readdirSync(d)) {
        const p = join(d, e);
        if (statSync(p).isDirectory()) walk(p, rel + e + '/');
        else if (e.endsWith('._S3rver_object')) out.push(rel + e.slice(0, -'._S3rver_object'.length));
      }
    };
    walk(join(dir, bucket), '');
    return out.filter((k) => k.startsWith(prefix)).sort();
  };
  return {
    url,
    bucket,
    args: (extra = {}) => [
      '--s3-bucket',
      bucket,
      '--s3-endpoint',
      url,
      '--s3-access-key-id',
      S3RVER_KEY,
      '--s3-secret-access-key',
      S3RVER_KEY,
      ...(extra.prefix === undefined ? [] : ['--s3-prefix', extra.prefix]),
      ...(extra.cacheBytes === undefined ? [] : ['--cache-bytes', extra.cacheBytes]),
      ...(extra.cacheDir === undefined ? [] : ['--cache-dir', extra.cacheDir]),
    ],
    keys,
    start,
    stop: async () => {
      await server?.close();
      server = undefined;
    },
    close: async () => {
      await server?.close();
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
