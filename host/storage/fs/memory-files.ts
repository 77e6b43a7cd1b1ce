// Files and folders in memory, the part the in-memory WAL and segment store share. Not exported
// through fs/index.ts: that imports node:fs, and the browser sandbox bundles this file.

/** A file's bytes: [0, length) of `bytes`, grown by doubling as a writer adds to it. */
export interface MemoryFile {
  bytes: Uint8Array;
  length: number;
}

/** The error node:fs throws for a missing path, code included: callers test `code === 'ENOENT'`. */
export function notFound(op: string, path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file, ${op} '${path}'`), { code: 'ENOENT' });
}

const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));

/**
 * A tree of paths joined by '/', every operation durable at once (no crash to survive). The
 * methods the WAL's files and the segment store have in common; each adds its own file handles.
 */
export class MemoryFileTree {
  readonly #files = new Map<string, MemoryFile>();
  readonly #dirs = new Set<string>();

  async makeDir(dir: string): Promise<void> {
    for (let d = dir; d !== '' && !this.#dirs.has(d); d = parentOf(d)) this.#dirs.add(d);
  }

  /** The names of the files directly in `dir`; none for a folder that was never made. */
  async list(dir: string): Promise<string[]> {
    const prefix = dir + '/';
    const out: string[] = [];
    for (const path of this.#files.keys())
      if (path.startsWith(prefix) && !path.includes('/', prefix.length)) out.push(path.slice(prefix.length));
    return out;
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

  protected hasDir(dir: string): boolean {
    return this.#dirs.has(dir);
  }

  /** The file at `path`, or the ENOENT error of `op`. */
  protected file(path: string, op: string): MemoryFile {
    const f = this.#files.get(path);
    if (f === undefined) throw notFound(op, path);
    return f;
  }

  protected fileOrUndefined(path: string): MemoryFile | undefined {
    return this.#files.get(path);
  }

  /** A new empty file at `path` (replacing one there), in a folder that must exist. */
  protected newFile(path: string): MemoryFile {
    if (!this.#dirs.has(parentOf(path))) throw notFound('open', path);
    const f: MemoryFile = { bytes: new Uint8Array(4096), length: 0 };
    this.#files.set(path, f);
    return f;
  }

  protected moveFile(from: string, to: string): void {
    const f = this.file(from, 'rename');
    this.#files.delete(from);
    this.#files.set(to, f);
  }
}

/** Writes `chunks` one after another from `position`, growing the file (by doubling at least). */
export function writeChunks(f: MemoryFile, chunks: readonly Uint8Array[], position: number): void {
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
}
