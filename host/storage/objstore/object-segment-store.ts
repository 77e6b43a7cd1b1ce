// The segment store of storage.object_store (FORMAT.md §7): segment files live in an S3 bucket,
// the local disk only caches them (object-cache.ts); manifests, like the WAL, stay in the data
// directory. A segment file is written locally under its temporary name as on the file system;
// its `rename` into place uploads it first and renames the local copy only once the object is
// durable, so a file the manifest lists (it is listed only after that rename) is always in the
// bucket, and the local copy is a cache entry that may be evicted at once.
//
// Uploads retry with backoff until they succeed or the store closes: a flush waits for the
// store (its memtable stays in memory and the WAL, writes go on until storage.memtable_bytes,
// then 429). Reads that need bytes not in the cache fail at once with 503 naming the object.

import { mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { Logger } from 'pino';
import { UserError } from '../../core/errors.js';
import type { Metrics } from '../../core/metrics.js';
import { DIR_MODE, faultPoint, fsyncDir } from '../fs/index.js';
import {
  nodeSegmentStore,
  type SegmentFileReader,
  type SegmentFileWriter,
  type SegmentStore,
} from '../segment/index.js';
import { CHUNK_BYTES, ObjectCache } from './object-cache.js';
import { type BucketOptions, ObjectStoreError, S3Bucket } from './s3-bucket.js';

export interface ObjectStoreOptions extends BucketOptions {
  dataDir: string;
  /** Where the cache lives; '' for <dataDir>/object-cache. */
  cacheDir: string;
  cacheBytes: number;
  logger: Logger;
  metrics: Metrics;
}

/** Retries of an upload or delete pause this long, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;

/** The store is closing: an upload waiting for the bucket gives up (its flush or compaction is retried at the next start). */
export class ObjectStoreClosed extends Error {
  override readonly name = 'ObjectStoreClosed';
}

const enoent = (op: string, path: string): Error =>
  Object.assign(new Error(`ENOENT: no such file, ${op} '${path}'`), { code: 'ENOENT' });

export class ObjectSegmentStore implements SegmentStore {
  readonly #o: ObjectStoreOptions;
  readonly #bucket: S3Bucket;
  readonly #cache: ObjectCache;
  readonly #cacheDir: string;
  /** Object names whose delete failed: retried by `maintain`, forgotten if the name is uploaded again. */
  readonly #pendingDeletes = new Set<string>();
  #closed = false;
  #wake: (() => void) | undefined;
  /** The last failed operation while the bucket fails (ping's reason); cleared by a success. */
  failure: ObjectStoreError | undefined;

  private constructor(o: ObjectStoreOptions) {
    this.#o = o;
    this.#bucket = new S3Bucket(o);
    this.#cacheDir = o.cacheDir === '' ? join(o.dataDir, 'object-cache') : o.cacheDir;
    this.#cache = new ObjectCache(this.#cacheDir, o.cacheBytes);
  }

  /**
   * Checks the bucket (a wrong endpoint, bucket or credentials fail here, naming which) and
   * opens the cache.
   */
  static async open(o: ObjectStoreOptions): Promise<ObjectSegmentStore> {
    const store = new ObjectSegmentStore(o);
    try {
      await store.#bucket.check();
    } catch (e) {
      store.#bucket.close();
      const err = e as ObjectStoreError;
      const hint =
        err.status === 403
          ? 'check storage.object_store.s3_access_key_id and s3_secret_access_key'
          : err.status === 404
            ? 'check storage.object_store.s3_bucket (it must exist)'
            : 'check storage.object_store.s3_endpoint and that the store is running';
      throw new Error(`the object store is unusable: ${err.message}; ${hint}`, { cause: e });
    }
    await store.#cache.open();
    return store;
  }

  /** Bytes in the local cache now. */
  get cacheBytes(): number {
    return this.#cache.bytes;
  }

  // ---- Paths: a segment file `<dataDir>/db/<id>/seg/<file>` is object `db/<id>/seg/<file>`,
  // cached at `<cacheDir>/db/<id>/seg/<file>`; every other path is the file system's.

  #name(path: string): string | undefined {
    const rel = relative(this.#o.dataDir, path);
    if (rel.startsWith('..') || rel.startsWith(sep)) return undefined;
    const parts = rel.split(sep);
    return parts.length === 4 && parts[0] === 'db' && parts[2] === 'seg' ? parts.join('/') : undefined;
  }

  #isSegDir(dir: string): boolean {
    const parts = relative(this.#o.dataDir, dir).split(sep);
    return parts.length === 3 && parts[0] === 'db' && parts[2] === 'seg';
  }

  #local(path: string): string {
    return join(this.#cacheDir, relative(this.#o.dataDir, path));
  }

  // ---- SegmentStore.

  async makeDir(dir: string): Promise<void> {
    await nodeSegmentStore.makeDir(dir);
    if (this.#isSegDir(dir)) await mkdir(this.#local(dir), { recursive: true, mode: DIR_MODE });
  }

  async list(dir: string): Promise<string[]> {
    if (!this.#isSegDir(dir)) return nodeSegmentStore.list(dir);
    await this.#adoptLocalFiles(dir);
    const names = new Set(await nodeSegmentStore.list(this.#local(dir)));
    const prefix = relative(this.#o.dataDir, dir).split(sep).join('/') + '/';
    for (const n of await this.#bucket.list(prefix))
      if (!n.slice(prefix.length).includes('/')) names.add(n.slice(prefix.length));
    return [...names];
  }

  async openRead(path: string): Promise<SegmentFileReader> {
    const name = this.#name(path);
    if (name === undefined || name.endsWith('.tmp'))
      return nodeSegmentStore.openRead(name === undefined ? path : this.#local(path));
    const local = this.#local(path);
    let size: number | undefined;
    if (!this.#cache.has(local)) {
      // A whole copy a previous run left (the cache forgets them at a restart): adopt it.
      const s = await stat(local).catch(() => undefined);
      if (s !== undefined) await this.#cache.addFile(local, s.size);
    }
    size = this.#cache.has(local) ? (await stat(local).catch(() => undefined))?.size : undefined;
    if (size === undefined) {
      try {
        size = await this.#bucket.size(name);
      } catch (e) {
        throw this.#unavailable(e);
      }
      if (size === undefined) throw enoent('open', path);
    }
    const bytes = size;
    return {
      size: bytes,
      read: (position, length) => this.#read(name, local, bytes, position, length),
      close: async () => undefined,
    };
  }

  async create(path: string): Promise<SegmentFileWriter> {
    return nodeSegmentStore.create(this.#name(path) === undefined ? path : this.#local(path));
  }

  readText(path: string): Promise<string | undefined> {
    return nodeSegmentStore.readText(path);
  }

  async rename(from: string, to: string): Promise<void> {
    const name = this.#name(to);
    if (name === undefined) return nodeSegmentStore.rename(from, to);
    const tmp = this.#local(from);
    const size = (await stat(tmp)).size;
    await this.#upload(name, tmp, size);
    faultPoint('object:uploaded');
    await rename(tmp, this.#local(to));
    await this.#cache.addFile(this.#local(to), size);
  }

  async remove(path: string): Promise<void> {
    const name = this.#name(path);
    if (name === undefined) return nodeSegmentStore.remove(path);
    const local = this.#local(path);
    await this.#cache.drop(local);
    if (name.endsWith('.tmp')) return;
    const size = await this.#bucket.size(name).catch(() => undefined);
    if (size !== undefined) await this.#cache.dropChunks(name, size);
    await this.#delete(name);
  }

  async removeDir(dir: string): Promise<void> {
    await nodeSegmentStore.removeDir(dir);
    const rel = relative(this.#o.dataDir, dir);
    if (rel.startsWith('..') || rel === '') return;
    await rm(this.#local(dir), { recursive: true, force: true });
    const prefix = rel.split(sep).join('/') + '/';
    let names: string[];
    try {
      names = await this.#bucket.list(prefix);
    } catch (e) {
      this.#o.logger.error(
        { err: e, prefix: this.#bucket.describe(prefix) },
        'could not list the objects of a dropped database; they stay in the bucket',
      );
      return;
    }
    for (const n of names) await this.#delete(n);
  }

  async syncDir(dir: string): Promise<void> {
    if (this.#isSegDir(dir)) await fsyncDir(this.#local(dir));
    else await nodeSegmentStore.syncDir(dir);
  }

  // ---- Background work and shutdown.

  /** Retries the deletes that failed (the maintenance tick calls it). */
  async maintain(): Promise<void> {
    for (const name of [...this.#pendingDeletes]) {
      if (this.#closed) return;
      try {
        await this.#bucket.delete(name);
        this.#pendingDeletes.delete(name);
        this.failure = undefined;
      } catch (e) {
        this.failure = e as ObjectStoreError;
        this.#o.metrics.objectStoreRetried('delete');
        return;
      }
    }
  }

  /** Deletes the objects of databases the catalog no longer has (`live`: ids as strings). */
  async removeDroppedDatabases(live: ReadonlySet<string>): Promise<void> {
    const ids = new Set<string>();
    for (const n of await this.#bucket.list('db/')) ids.add(n.split('/')[1]!);
    for (const id of ids) if (!live.has(id)) await this.removeDir(join(this.#o.dataDir, 'db', id));
  }

  /** Uploads waiting for the bucket give up (ObjectStoreClosed); one under way finishes. */
  stopRetrying(): void {
    this.#closed = true;
    this.#wake?.();
  }

  close(): void {
    this.stopRetrying();
    this.#bucket.close();
  }

  // ---- Inside.

  /**
   * Segment files in the data directory itself, written before storage.object_store was set:
   * uploaded, then deleted there (the cache fetches what queries need). Leftover temporary files
   * are a crashed flush's, deleted as the file system store's start would.
   */
  async #adoptLocalFiles(dir: string): Promise<void> {
    const files = await nodeSegmentStore.list(dir);
    for (const file of files) {
      const path = join(dir, file);
      if (file.endsWith('.seg')) {
        const name = this.#name(path)!;
        await this.#upload(name, path, (await stat(path)).size);
        this.#o.logger.info(
          { file: name, object: this.#bucket.describe(name) },
          'uploaded a segment file written before storage.object_store was set',
        );
      }
      await unlink(path);
    }
    if (files.length > 0) await fsyncDir(dir);
  }

  /** Puts the local file as object `name`, retrying with backoff until it is durable or the store closes. */
  async #upload(name: string, path: string, size: number): Promise<void> {
    // A failed delete of this name (an orphan of a crashed flush reusing its file id) must not
    // run after the upload.
    this.#pendingDeletes.delete(name);
    const body = new Uint8Array(size);
    const fh = await open(path, 'r');
    try {
      for (let got = 0; got < size; ) {
        const { bytesRead } = await fh.read(body, got, size - got, got);
        if (bytesRead === 0) throw new Error(`${path} ends after ${got} of ${size} bytes`);
        got += bytesRead;
      }
    } finally {
      await fh.close();
    }
    for (let pause = RETRY_MIN_MS; ; pause = Math.min(RETRY_MAX_MS, pause * 2)) {
      if (this.#closed)
        throw new ObjectStoreClosed(`the object store closed before ${this.#bucket.describe(name)} was uploaded`);
      const started = performance.now();
      try {
        await this.#bucket.put(name, body);
        this.#o.metrics.objectUploaded(size, (performance.now() - started) / 1000);
        if (this.failure !== undefined)
          this.#o.logger.info({ object: this.#bucket.describe(name) }, 'the object store is reachable again');
        this.failure = undefined;
        return;
      } catch (e) {
        if (this.failure === undefined)
          this.#o.logger.error(
            { err: e },
            'uploading a segment file failed; retrying until the object store answers (the data stays in memory and the WAL)',
          );
        this.failure = e as ObjectStoreError;
        this.#o.metrics.objectStoreRetried('upload');
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pause);
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  async #delete(name: string): Promise<void> {
    try {
      await this.#bucket.delete(name);
    } catch (e) {
      this.#o.logger.warn({ err: e }, 'deleting an object failed; retrying in the background');
      this.failure = e as ObjectStoreError;
      this.#pendingDeletes.add(name);
    }
  }

  /** Bytes [position, position + length) of object `name` (`size` bytes), from the cache or the bucket. */
  async #read(name: string, local: string, size: number, position: number, length: number): Promise<Uint8Array> {
    if (position + length > size)
      throw new Error(`file ends after ${size} bytes, ${position + length - size} more wanted`);
    const whole = await this.#cache.use(local, () => readRange(local, position, length));
    if (whole !== undefined) {
      this.#o.metrics.objectCacheRead(true);
      return whole;
    }
    const out = new Uint8Array(length);
    const first = Math.floor(position / CHUNK_BYTES);
    const last = Math.floor((position + length - 1) / CHUNK_BYTES);
    for (let i = first; i <= last; i++) {
      const chunk = await this.#chunk(name, size, i);
      const start = i * CHUNK_BYTES;
      const from = Math.max(position, start);
      const to = Math.min(position + length, start + chunk.length);
      out.set(chunk.subarray(from - start, to - start), from - position);
    }
    return out;
  }

  readonly #fetching = new Map<string, Promise<Uint8Array>>();

  async #chunk(name: string, size: number, index: number): Promise<Uint8Array> {
    const path = this.#cache.chunkPath(name, index);
    const start = index * CHUNK_BYTES;
    const end = Math.min(size, start + CHUNK_BYTES);
    const hit = await this.#cache.readChunk(path, end - start);
    if (hit !== undefined) {
      this.#o.metrics.objectCacheRead(true);
      return hit;
    }
    let f = this.#fetching.get(path);
    if (f === undefined) {
      this.#o.metrics.objectCacheRead(false);
      f = (async () => {
        let bytes: Uint8Array;
        try {
          bytes = await this.#bucket.get(name, start, end);
        } catch (e) {
          throw this.#unavailable(e);
        }
        this.#o.metrics.objectDownloaded(bytes.length);
        await this.#cache
          .writeChunk(path, bytes)
          .catch((err: unknown) =>
            this.#o.logger.warn({ err, path }, 'could not keep a downloaded chunk in the cache'),
          );
        return bytes;
      })().finally(() => this.#fetching.delete(path));
      this.#fetching.set(path, f);
    }
    return f;
  }

  /** A bucket failure as a reader sees it: 503 naming the object, not a damaged file. */
  #unavailable(e: unknown): UserError {
    if (!(e instanceof ObjectStoreError)) return e as UserError;
    this.failure = e;
    return new UserError('unavailable', `the object store is unavailable: ${e.message}; retry later`, {
      retryAfterS: 5,
      cause: e,
    });
  }
}

async function readRange(path: string, position: number, length: number): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const out = new Uint8Array(length);
    for (let got = 0; got < length; ) {
      const { bytesRead } = await fh.read(out, got, length - got, position + got);
      if (bytesRead === 0) throw new Error(`file ends after ${position + got} bytes, ${length - got} more wanted`);
      got += bytesRead;
    }
    return out;
  } finally {
    await fh.close();
  }
}
