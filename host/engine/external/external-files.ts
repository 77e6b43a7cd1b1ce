// What COPY INTO needs from the world: the files a location names, their bytes, and a place to
// write a new one. The node layer implements it over a directory (node/external-files.ts, confined
// to storage.external_dir) and S3-compatible object stores (node/s3-files.ts); the engine itself
// touches no file system or network, so it still runs in a browser.

import type { ObjectStoreConnection } from '../catalog.js';
import type { ExternalFileCache } from './file-cache.js';

export type { ObjectStoreConnection };

/** One file a location named, as the host resolved it. */
export interface ExternalFile {
  /** The location text the user wrote, or for a file found in a directory, that text plus its name. */
  readonly name: string;
  readonly sizeBytes: number;
  /**
   * What changes whenever its content does, as the host knows it (a local file's modification
   * time, an object's ETag); absent: it cannot tell, and the file is never cached.
   */
  readonly version?: string;
}

export interface ExternalFiles {
  /** Parsed files kept between statements (file-cache.ts); none: every read parses. */
  readonly cache?: ExternalFileCache;
  /**
   * The files `location` names: the file itself, or the files directly inside a directory (sorted
   * by name; hidden ones left out). Throws UserError externalLocation when the location is refused
   * or missing; an empty directory gives an empty list. `connection`: for an object store location.
   */
  list(location: string, connection?: ObjectStoreConnection): Promise<ExternalFile[]>;
  /** The whole content of a file `list` returned. The caller owns the array. */
  read(file: ExternalFile): Promise<Uint8Array>;
  /**
   * Writes a new file: into the directory `location` names when it ends with `/` or is a
   * directory (created if missing), under a fresh name ending in `.${extension}`; else at
   * `location` itself, replacing what was there. Atomic: readers see the old file or the whole
   * new one. Returns the name written.
   */
  write(location: string, extension: string, data: Uint8Array, connection?: ObjectStoreConnection): Promise<string>;
}
