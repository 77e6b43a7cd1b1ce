// A segment store in memory, every operation durable at once (no crash to survive): for a browser
// sandbox, and for tests that run the storage over a second store (test/storage/random-ops.test.ts).

import type { SegmentFileReader, SegmentFileWriter, SegmentStore } from './segment-store.js';

/** A file's bytes: [0, length) of `bytes`, grown by doubling as a writer adds to it. */
interface MemoryFile {
  bytes: Uint8Array;
  length: number;
}

function notFound(op: string, path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file, ${op} '${path}'`), { code: 'ENOENT' });
}

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

export class MemorySegmentStore implements SegmentStore {
  readonly #files = new Map<string, MemoryFile>();
  readonly #dirs = new Set<string>();

  async makeDir(dir: string): Promise<void> {
    for (let d = dir; d !== '' && !this.#dirs.has(d); d = parentOf(d)) this.#dirs.add(d);
  }

  async list(dir: string): Promise<string[]> {
    const prefix = dir + '/';
    const out: string[] = [];
    for (const path of this.#files.keys())
      if (path.startsWith(prefix) && !path.includes('/', prefix.length)) out.push(path.slice(prefix.length));
    return out;
  }

  async openRead(path: string): Promise<SegmentFileReader> {
    const f = this.#files.get(path);
    if (f === undefined) throw notFound('open', path);
    // The bytes as they are now: a file renamed into place is never written again, and a
    // removed one stays readable through this reader.
    const bytes = f.bytes.subarray(0, f.length);
    return {
      size: bytes.length,
      read: async (position, length) => {
        if (position + length > bytes.length) {
          const got = Math.max(0, bytes.length - position);
          throw new Error(`file ends after ${position + got} bytes, ${length - got} more wanted`);
        }
        return bytes.slice(position, position + length);
      },
      close: async () => undefined,
    };
  }

  async create(path: string): Promise<SegmentFileWriter> {
    if (!this.#dirs.has(parentOf(path))) throw notFound('open', path);
    const f: MemoryFile = { bytes: new Uint8Array(4096), length: 0 };
    this.#files.set(path, f);
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
      sync: async () => undefined,
      close: async () => undefined,
    };
  }

  async readText(path: string): Promise<string | undefined> {
    const f = this.#files.get(path);
    return f === undefined ? undefined : new TextDecoder().decode(f.bytes.subarray(0, f.length));
  }

  async rename(from: string, to: string): Promise<void> {
    const f = this.#files.get(from);
    if (f === undefined) throw notFound('rename', from);
    this.#files.delete(from);
    this.#files.set(to, f);
  }

  async remove(path: string): Promise<void> {
    if (!this.#files.delete(path)) throw notFound('unlink', path);
  }

  async removeDir(dir: string): Promise<void> {
    const prefix = dir + '/';
    for (const path of [...this.#files.keys()]) if (path.startsWith(prefix)) this.#files.delete(path);
    for (const d of [...this.#dirs]) if (d === dir || d.startsWith(prefix)) this.#dirs.delete(d);
  }

  async syncDir(): Promise<void> {}
}
