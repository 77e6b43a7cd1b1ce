// The WAL's files in memory, for a storage that lives only as long as its process (library mode's
// in-memory store): every write and sync takes effect at once, and nothing survives `close`.

import { type MemoryFile, MemoryFileTree, notFound, writeChunks } from '../fs/memory-files.js';
import type { WalFile, WalFiles } from './wal-files.js';

export class MemoryWalFiles extends MemoryFileTree implements WalFiles {
  /** Unlike the segment store's, a missing folder is ENOENT, as readdir says on disk. */
  override async list(dir: string): Promise<string[]> {
    if (!this.hasDir(dir)) throw notFound('scandir', dir);
    return super.list(dir);
  }

  async readAll(path: string): Promise<Uint8Array> {
    const f = this.file(path, 'open');
    return f.bytes.slice(0, f.length);
  }

  async openAppend(path: string): Promise<WalFile> {
    return fileOf(this.file(path, 'open'));
  }

  async create(path: string): Promise<WalFile> {
    return fileOf(this.newFile(path));
  }
}

function fileOf(f: MemoryFile): WalFile {
  return {
    write: async (chunks, position) => writeChunks(f, chunks, position),
    datasync: async () => undefined,
    truncate: async (size) => {
      if (size < f.length) f.length = size;
    },
    close: async () => undefined,
  };
}
