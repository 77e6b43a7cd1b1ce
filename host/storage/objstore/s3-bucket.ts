// One S3-compatible bucket under a key prefix, as the object store tier uses it: whole-object
// puts (multipart past PART_BYTES), byte-range gets, head, list, delete. Every failure is an
// ObjectStoreError naming the operation and the object (s3://bucket/key), so that a log line or a
// 503 says what was unreachable.

import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

// The SDK warns on stderr, once and in many lines, that Node 20 support ends in 2027: the server
// logs JSON lines, which that text would break. The engines field already says what Node we need.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Objects larger than this go up in parts of this size (S3's minimum part is 5 MiB). */
export const PART_BYTES = 8 * 1024 * 1024;

export interface BucketOptions {
  /** http(s)://host:port; '' for AWS's endpoint of the region. */
  endpoint: string;
  bucket: string;
  /** Prepended to every key, with a '/' (may be ''). */
  prefix: string;
  region: string;
  /** '' (both): the SDK's default chain (AWS_ACCESS_KEY_ID, profiles, instance roles). */
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style URLs (http://host/bucket/key), as MinIO, Ceph RGW, Garage and s3rver want. */
  pathStyle: boolean;
}

/** A failed bucket operation; `status` is the HTTP status when the store answered at all. */
export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  readonly status: number | undefined;
  readonly object: string;

  constructor(op: string, object: string, cause: unknown) {
    const c = cause as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
    const status = c.$metadata?.httpStatusCode;
    const what =
      c.code ?? (c.name !== undefined && c.name !== 'Error' && c.name !== 'UnknownError' ? c.name : undefined);
    super(
      `${op} ${object} failed: ${what ?? ''}${what !== undefined && status !== undefined ? ' ' : ''}${status !== undefined ? `(HTTP ${status})` : ''}${what === undefined && status === undefined ? (c.message ?? String(cause)) : ''}`,
      { cause },
    );
    this.status = status;
    this.object = object;
  }
}

export class S3Bucket {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(o: BucketOptions) {
    this.#bucket = o.bucket;
    this.#prefix = o.prefix.replace(/^\/+|\/+$/g, '');
    this.#client = new S3Client({
      region: o.region,
      ...(o.endpoint === '' ? {} : { endpoint: o.endpoint }),
      forcePathStyle: o.pathStyle,
      ...(o.accessKeyId === ''
        ? {}
        : { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } }),
      // Checksums only where S3 demands them: the flexible-checksum trailers of newer SDKs are
      // not understood by every S3-compatible store (s3rver, older MinIO); segment blocks carry
      // their own CRCs (FORMAT.md §5), which every read checks.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Retries are the caller's (with backoff and a metric): one attempt each here.
      maxAttempts: 1,
      requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    });
  }

  /** The key of a name relative to the prefix. */
  key(name: string): string {
    return this.#prefix === '' ? name : `${this.#prefix}/${name}`;
  }

  /** s3://bucket/key, for messages. */
  describe(name: string): string {
    return `s3://${this.#bucket}/${this.key(name)}`;
  }

  /** Resolves when the bucket is there and the credentials may read it. */
  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (e) {
      throw new ObjectStoreError('HeadBucket', `s3://${this.#bucket}`, e);
    }
  }

  /** Stores `body` as `name` (in parts when large); resolves once the store has it durably. */
  async put(name: string, body: Uint8Array): Promise<void> {
    const Key = this.key(name);
    if (body.length <= PART_BYTES) {
      await this.#run('PutObject', name, () =>
        this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: body })),
      );
      return;
    }
    const { UploadId } = await this.#run('CreateMultipartUpload', name, () =>
      this.#client.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key })),
    );
    try {
      const parts: Array<{ ETag: string; PartNumber: number }> = [];
      for (let at = 0, n = 1; at < body.length; at += PART_BYTES, n++) {
        const part = await this.#run('UploadPart', name, () =>
          this.#client.send(
            new UploadPartCommand({
              Bucket: this.#bucket,
              Key,
              UploadId,
              PartNumber: n,
              Body: body.subarray(at, at + PART_BYTES),
            }),
          ),
        );
        parts.push({ ETag: part.ETag!, PartNumber: n });
      }
      await this.#run('CompleteMultipartUpload', name, () =>
        this.#client.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.#bucket,
            Key,
            UploadId,
            MultipartUpload: { Parts: parts },
          }),
        ),
      );
    } catch (e) {
      // Parts of an abandoned upload cost storage until aborted (or a bucket lifecycle rule).
      await this.#client
        .send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key, UploadId }))
        .catch(() => undefined);
      throw e;
    }
  }

  /** Bytes [start, end) of `name`. */
  async get(name: string, start: number, end: number): Promise<Uint8Array> {
    const out = await this.#run('GetObject', name, () =>
      this.#client.send(
        new GetObjectCommand({ Bucket: this.#bucket, Key: this.key(name), Range: `bytes=${start}-${end - 1}` }),
      ),
    );
    const bytes = await out.Body!.transformToByteArray();
    if (bytes.length !== end - start)
      throw new ObjectStoreError(
        'GetObject',
        this.describe(name),
        new Error(`asked for bytes ${start}-${end - 1}, got ${bytes.length} bytes`),
      );
    return bytes;
  }

  /** The size of `name`, or undefined when there is no such object. */
  async size(name: string): Promise<number | undefined> {
    try {
      const h = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.key(name) }));
      return h.ContentLength ?? 0;
    } catch (e) {
      if ((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw new ObjectStoreError('HeadObject', this.describe(name), e);
    }
  }

  /** Names (relative to the prefix) of the objects whose name starts with `namePrefix`. */
  async list(namePrefix: string): Promise<string[]> {
    const out: string[] = [];
    const strip = this.key('').length;
    let ContinuationToken: string | undefined;
    do {
      const page = await this.#run('ListObjectsV2', namePrefix + '*', () =>
        this.#client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: this.key(namePrefix), ContinuationToken }),
        ),
      );
      for (const o of page.Contents ?? []) if (o.Key !== undefined) out.push(o.Key.slice(strip));
      ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (ContinuationToken !== undefined);
    return out;
  }

  /** Deletes `name`; a missing object is no error (S3 answers 204 either way). */
  async delete(name: string): Promise<void> {
    await this.#run('DeleteObject', name, () =>
      this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.key(name) })),
    );
  }

  close(): void {
    this.#client.destroy();
  }

  async #run<T>(op: string, name: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw new ObjectStoreError(op, this.describe(name), e);
    }
  }
}
