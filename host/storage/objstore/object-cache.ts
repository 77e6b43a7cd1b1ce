// The local disk as a cache of the bucket, bounded by storage.object_store.cache_bytes: whole
// segment files (as flush and compaction wrote them, once uploaded) and chunks of evicted ones
// fetched by byte range. Least recently used first out; an entry being read (pinned) stays.
// Nothing here is needed for durability: any entry may vanish (a crash, an operator emptying
// the folder) and is fetched again, so chunks are written without fsync.

import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE } from '../fs/index.js';

/** Evicted files are fetched in chunks of this size (one range GET each; the reader's windows are 1 MiB too). */
export const CHUNK_BYTES = 1 << 20;

interface Entry {
  bytes: number;
  pins: number;
}

export class ObjectCache {
  readonly #chunkDir: string;
  readonly #limit: number;
  /** Local path -> entry, least recently used first (Map keeps insertion order; a use re-inserts). */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(dir: string, limitBytes: number) {
    this.#chunkDir = join(dir, 'chunks');
    this.#limit = limitBytes;
  }

  /** Bytes of the entries held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Registers the chunks a previous run left (their order of use is lost: oldest first by name). */
  async open(): Promise<void> {
    await mkdir(this.#chunkDir, { recursive: true, mode: DIR_MODE });
    for (const name of await readdir(this.#chunkDir)) {
      const path = join(this.#chunkDir, name);
      if (name.endsWith('.tmp')) {
        await unlink(path).catch(() => undefined);
        continue;
      }
      const s = await stat(path).catch(() => undefined);
      if (s !== undefined) this.#add(path, s.size);
    }
    await this.evict();
  }

  /** The local path of chunk `index` of object `name`. */
  chunkPath(name: string, index: number): string {
    return join(this.#chunkDir, `${createHash('sha1').update(name).digest('hex')}.${index}`);
  }

  has(path: string): boolean {
    return this.#entries.has(path);
  }

  /** Registers a whole file just put in place at `path` (its object is durable), then evicts. */
  async addFile(path: string, bytes: number): Promise<void> {
    this.#add(path, bytes);
    await this.evict();
  }

  /**
   * Runs `f` on the entry at `path` while it cannot be evicted; undefined (and `f` not run) when
   * there is no such entry. A use makes the entry the most recently used.
   */
  async use<T>(path: string, f: () => Promise<T>): Promise<T | undefined> {
    const e = this.#entries.get(path);
    if (e === undefined) return undefined;
    this.#entries.delete(path);
    this.#entries.set(path, e);
    e.pins++;
    try {
      return await f();
    } finally {
      e.pins--;
    }
  }

  /** Reads a cached chunk of the expected length; undefined when absent or cut short (fetched again). */
  async readChunk(path: string, length: number): Promise<Uint8Array | undefined> {
    const got = await this.use(path, () => readFile(path).catch(() => undefined));
    if (got === undefined || got.length !== length) {
      if (got !== undefined) await this.drop(path);
      return undefined;
    }
    return new Uint8Array(got.buffer, got.byteOffset, got.length);
  }

  /** Keeps a downloaded chunk (written aside and renamed, so that no reader sees half of it). */
  async writeChunk(path: string, bytes: Uint8Array): Promise<void> {
    if (bytes.length > this.#limit) return;
    const tmp = path + '.tmp';
    await writeFile(tmp, bytes, { mode: FILE_MODE });
    await rename(tmp, path);
    this.#add(path, bytes.length);
    await this.evict();
  }

  /** Forgets and deletes the entry at `path` (the object was deleted). */
  async drop(path: string): Promise<void> {
    const e = this.#entries.get(path);
    if (e !== undefined) {
      this.#entries.delete(path);
      this.#bytes -= e.bytes;
    }
    await unlink(path).catch(() => undefined);
  }

  /** Drops the cached chunks of object `name`, `size` bytes long. */
  async dropChunks(name: string, size: number): Promise<void> {
    for (let i = 0; i * CHUNK_BYTES < size; i++)
      if (this.has(this.chunkPath(name, i))) await this.drop(this.chunkPath(name, i));
  }

  /** Deletes least recently used unpinned entries until the cache fits its bound. */
  async evict(): Promise<void> {
    if (this.#bytes <= this.#limit) return;
    const victims: string[] = [];
    for (const [path, e] of this.#entries) {
      if (this.#bytes <= this.#limit) break;
      if (e.pins > 0) continue;
      // Out of the map at once (synchronously), so that no read starts on it from here on.
      this.#entries.delete(path);
      this.#bytes -= e.bytes;
      victims.push(path);
    }
    for (const p of victims) await unlink(p).catch(() => undefined);
  }

  #add(path: string, bytes: number): void {
    const old = this.#entries.get(path);
    if (old !== undefined) this.#bytes -= old.bytes;
    this.#entries.delete(path);
    this.#entries.set(path, { bytes, pins: old?.pins ?? 0 });
    this.#bytes += bytes;
  }
}
