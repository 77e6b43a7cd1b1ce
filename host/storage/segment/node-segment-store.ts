// The segment store on the local file system (node:fs): files and folders under their paths,
// created with the data directory's modes (fs-util.ts), durable by fsync of file and folder.

import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { DIR_MODE, FILE_MODE, fsyncDir, writeAllAt } from '../fs/index.js';
import type { SegmentFileReader, SegmentFileWriter, SegmentStore } from './segment-store.js';

export const nodeSegmentStore: SegmentStore = {
  async makeDir(dir) {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
  },

  async list(dir) {
    try {
      return await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  },

  async openRead(path): Promise<SegmentFileReader> {
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      return {
        size,
        async read(position, length) {
          const out = new Uint8Array(length);
          let got = 0;
          while (got < length) {
            const { bytesRead } = await fh.read(out, got, length - got, position + got);
            if (bytesRead === 0)
              throw new Error(`file ends after ${position + got} bytes, ${length - got} more wanted`);
            got += bytesRead;
          }
          return out;
        },
        close: () => fh.close(),
      };
    } catch (e) {
      await fh.close();
      throw e;
    }
  },

  async create(path): Promise<SegmentFileWriter> {
    const fh = await open(path, 'w', FILE_MODE);
    return {
      write: (chunks, position) => writeAllAt(fh, chunks, position),
      sync: () => fh.sync(),
      close: () => fh.close(),
    };
  },

  async readText(path) {
    try {
      return await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  },

  rename: (from, to) => rename(from, to),
  remove: (path) => unlink(path),
  removeDir: (dir) => rm(dir, { recursive: true, force: true }),
  syncDir: (dir) => fsyncDir(dir),
};
