// Every location COPY INTO and external tables may name, by scheme: `s3://` to an S3-compatible
// store (s3-files.ts, with the statement's connection), a path or `file://` to storage.external_dir
// (external-files.ts), which without the setting is refused; other schemes are refused as CnosDB
// refuses them ("Unsupported url schema [gcs]").

import { UserError } from '../core/errors.js';
import type { ExternalFile, ExternalFiles, ObjectStoreConnection } from '../engine/external/external-files.js';
import { locationScheme } from '../engine/external/connection.js';
import { ExternalFileCache } from '../engine/external/file-cache.js';
import type { LocalExternalFiles } from './external-files.js';
import { S3Files } from './s3-files.js';

const NO_DIR = 'object store error: local locations need storage.external_dir, which is not set on this server';

export class ExternalLocations implements ExternalFiles {
  readonly #local: LocalExternalFiles | undefined;
  readonly #s3 = new S3Files();
  readonly cache = new ExternalFileCache();

  constructor(local: LocalExternalFiles | undefined) {
    this.#local = local;
  }

  #route(location: string): 's3' | LocalExternalFiles {
    const scheme = locationScheme(location);
    if (scheme === 's3') return 's3';
    if (scheme !== undefined && scheme !== 'file')
      throw new UserError('externalLocation', `object store error: Unsupported url schema [${scheme}]`);
    if (this.#local === undefined) throw new UserError('externalLocation', NO_DIR);
    return this.#local;
  }

  list(location: string, connection?: ObjectStoreConnection): Promise<ExternalFile[]> {
    const to = this.#route(location);
    return to === 's3' ? this.#s3.list(location, connection) : to.list(location);
  }

  read(file: ExternalFile): Promise<Uint8Array> {
    return this.#route(file.name) === 's3' ? this.#s3.read(file) : this.#local!.read(file);
  }

  write(location: string, extension: string, data: Uint8Array, connection?: ObjectStoreConnection): Promise<string> {
    const to = this.#route(location);
    return to === 's3' ? this.#s3.write(location, extension, data, connection) : to.write(location, extension, data);
  }
}
