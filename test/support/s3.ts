// An S3-compatible store on loopback for the tests of object store locations: s3rver (npm) on a
// free port with one bucket, its objects in a temporary directory, stopped (and removed) after.

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: { port: number; address: string; silent: boolean; directory: string; configureBuckets: { name: string }[] }) => S3rverInstance;

// s3rver ships CommonJS without types.
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface TestS3 {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly bucket: string;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'bkt'): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), 'sundial-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
