// The WAL's files in memory, for a storage that lives only as long as its process (library mode's
// in-memory store): every write and sync takes effect at once, and nothing survives `close`.

import type { WalFile, WalFiles } from './wal-files.js';

function notFound(op: string, path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file, ${op} '${path}'`), { code: 'ENOENT' });
}

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/** A file's bytes: [0, length) of `bytes`, grown by doubling as the log appends. */
interface MemoryFile {
  bytes: Uint8Array;
  length: number;
}

export class MemoryWalFiles implements WalFiles {
  readonly #files = new Map<string, MemoryFile>();
  readonly #dirs = new Set<string>();

  async makeDir(dir: string): Promise<void> {
    for (let d = dir; d !== '' && !this.#dirs.has(d); d = parentOf(d)) this.#dirs.add(d);
  }

  async list(dir: string): Promise<string[]> {
    if (!this.#dirs.has(dir)) throw notFound('scandir', dir);
    const prefix = dir + '/';
    const out: string[] = [];
    for (const path of this.#files.keys())
      if (path.startsWith(prefix) && !path.includes('/', prefix.length)) out.push(path.slice(prefix.length));
    return out;
  }

  async readAll(path: string): Promise<Uint8Array> {
    const f = this.#files.get(path);
    if (f === undefined) throw notFound('open', path);
    return f.bytes.slice(0, f.length);
  }

  async openAppend(path: string): Promise<WalFile> {
    const f = this.#files.get(path);
    if (f === undefined) throw notFound('open', path);
    return fileOf(f);
  }

  async create(path: string): Promise<WalFile> {
    if (!this.#dirs.has(parentOf(path))) throw notFound('open', path);
    const f: MemoryFile = { bytes: new Uint8Array(4096), length: 0 };
    this.#files.set(path, f);
    return fileOf(f);
  }

  async remove(path: string): Promise<void> {
    if (!this.#files.delete(path)) throw notFound('unlink', path);
  }

  /** Removes `dir`, its files and its folders (DROP DATABASE; the file system's `rm -r`). */
  async removeDir(dir: string): Promise<void> {
    const prefix = dir + '/';
    for (const path of [...this.#files.keys()]) if (path.startsWith(prefix)) this.#files.delete(path);
    for (const d of [...this.#dirs]) if (d === dir || d.startsWith(prefix)) this.#dirs.delete(d);
  }

  async syncDir(): Promise<void> {}
}

function fileOf(f: MemoryFile): WalFile {
  return {
    write: async (chunks, position) => {
      let end = position;
      for (const c of chunks) end += c.length;
      if (end > f.bytes.length) {
        const grown = new Uint8Array(Math.max(end, f.bytes.length * 2));
        grown.set(f.bytes.subarray(0, f.length));
        f.bytes = grown;
      }
      let at = position;
      for (const c of chunks) {
        f.bytes.set(c, at);
        at += c.length;
      }
      if (end > f.length) f.length = end;
    },
    datasync: async () => undefined,
    truncate: async (size) => {
      if (size < f.length) f.length = size;
    },
    close: async () => undefined,
  };
}
