// Parsed external files kept between statements: an external table queried again re-reads no
// file that has not changed. A file is known by its name, size and version (its modification time,
// an object's ETag: as the host listed it) and read the same way (format, schema); a file without
// a version (a store that gave none) is never cached. Bounded by the batches' bytes, least recently used
// first out; the cached batches are shared, never changed (readers cast into new vectors).

import { batchBytes } from '../memory/index.js';
import type { Field, RecordBatch } from '../types/index.js';
import type { FileFormat } from './file-format.js';

/** What one server keeps by default: a few external files of a dashboard's size. */
export const EXTERNAL_CACHE_BYTES = 64 * 1024 * 1024;

export class ExternalFileCache {
  readonly #entries = new Map<string, { batch: RecordBatch; bytes: number }>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(readonly maxBytes = EXTERNAL_CACHE_BYTES) {}

  /** The key of a file read one way; undefined when it cannot be cached. */
  key(
    file: { readonly name: string; readonly sizeBytes: number; readonly version?: string },
    format: FileFormat,
    schema: readonly Field[] | undefined,
  ): string | undefined {
    if (file.version === undefined) return undefined;
    const fields = schema === undefined ? '' : JSON.stringify(schema.map((f) => [f.name, f.type]));
    return JSON.stringify([
      file.name,
      file.sizeBytes,
      file.version,
      format.type,
      format.delimiter,
      format.withHeader,
      fields,
    ]);
  }

  get(key: string): RecordBatch | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.#entries.delete(key);
    this.#entries.set(key, e); // most recently used last
    return e.batch;
  }

  set(key: string, batch: RecordBatch): void {
    const bytes = batchBytes(batch);
    if (bytes > this.maxBytes / 4) return; // one file does not empty the cache of all others
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#bytes -= old.bytes;
      this.#entries.delete(key);
    }
    this.#entries.set(key, { batch, bytes });
    this.#bytes += bytes;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(k);
      this.#bytes -= e.bytes;
    }
  }

  get bytes(): number {
    return this.#bytes;
  }
}
