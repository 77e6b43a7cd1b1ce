// The WAL's files on the local file system (node:fs), created with the data directory's modes.

import { mkdir, open, readdir, readFile, rm, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DIR_MODE, FILE_MODE, fsyncDir, writeAllAt } from '../fs/index.js';
import type { WalFile, WalFiles } from './wal-files.js';

export const nodeWalFiles: WalFiles = {
  async makeDir(dir) {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
  },
  list: (dir) => readdir(dir),
  readAll: (path) => readFile(path),
  openAppend: async (path) => walFile(await open(path, 'r+')),
  create: async (path) => walFile(await open(path, 'w+', FILE_MODE)),
  remove: (path) => unlink(path),
  syncDir: (dir) => fsyncDir(dir),
  async removeDir(dir) {
    await rm(dir, { recursive: true, force: true });
    await fsyncDir(dirname(dir)).catch(() => undefined);
  },
};

function walFile(fh: FileHandle): WalFile {
  return {
    write: (chunks, position) => writeAllAt(fh, chunks, position),
    datasync: () => fh.datasync(),
    truncate: (size) => fh.truncate(size),
    close: () => fh.close(),
  };
}
