// The catalog's document as a file of the data directory, `<data_dir>/catalog.json`, replaced
// atomically (FORMAT.md §3): write a temporary file, fsync it, rename it over the old one, fsync
// the directory. A crash at any point leaves either the old or the new document, never a mix.

import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogFile } from '../meta/index.js';
import { FILE_MODE, fsyncDir } from './fs/index.js';

const FILE = 'catalog.json';

/** The catalog file of the data directory `dir`. */
export function catalogFile(dir: string): CatalogFile {
  const path = join(dir, FILE);
  const tmp = path + '.tmp';
  return {
    name: path,
    async read() {
      try {
        return await readFile(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        return undefined;
      }
    },
    async replace(text) {
      const fh = await open(tmp, 'w', FILE_MODE);
      try {
        await fh.writeFile(text, 'utf8');
        await fh.sync();
      } catch (e) {
        // On a full disk the partial file would hold on to the space the WAL needs to resume.
        await fh.close().catch(() => undefined);
        await unlink(tmp).catch(() => undefined);
        throw e;
      }
      await fh.close();
      await rename(tmp, path);
      await fsyncDir(dir);
    },
    async cleanup() {
      await unlink(tmp).catch(() => undefined);
    },
  };
}

/** The catalog document of an in-memory store (StorageOptions.memory): `name` only names it in messages. */
export function memoryCatalogFile(name: string): CatalogFile {
  let text: string | undefined;
  return {
    name,
    read: async () => text,
    replace: async (next) => void (text = next),
    cleanup: async () => undefined,
  };
}
