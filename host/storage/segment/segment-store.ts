// Where segment files and manifests live (FORMAT.md §7): an interface, so that memory (a browser)
// or an object store (a cluster) can stand in for the file system. Paths are split only at '/'.

/** One stored file opened for reading: random reads, until `close`. */
export interface SegmentFileReader {
  /** The file's size in bytes when it was opened (files are immutable once renamed into place). */
  readonly size: number;
  /**
   * `length` bytes from `position`, in a new array the caller owns. Rejects with an Error saying
   * where the file ended when it holds fewer (the reader turns it into a CorruptionError).
   */
  read(position: number, length: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A new file being written, at positions the writer chooses; invisible to readers until renamed. */
export interface SegmentFileWriter {
  /** Writes `chunks` one after another from `position`; the writer may reuse them once it resolves. */
  write(chunks: readonly Uint8Array[], position: number): Promise<void>;
  /** Makes every byte written so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The contract. Durability: a file is written under a temporary name, `sync`ed, closed, then
 * `rename`d to its final name, and the rename is durable only once `syncDir` of its folder
 * resolved; a manifest may list a file only after that. `remove` is durable after `syncDir` too.
 * Atomicity: `rename` replaces its target at once (a reader sees the old file or the new one),
 * which is how a manifest is replaced. Ownership: a reader keeps its file readable until it is
 * closed, even if the file is removed meanwhile (a compaction retires its inputs while scans
 * still read them). Errors: a missing file rejects `openRead`, `rename` and `remove` with an
 * Error whose `code` is 'ENOENT'; `readText` answers undefined instead. Concurrency: callers
 * never write one path from two places at once; a store need not lock.
 */
export interface SegmentStore {
  /** Creates the folder `dir` and its parents if missing. */
  makeDir(dir: string): Promise<void>;
  /** Names (not paths) of the files in `dir`, in no particular order; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  openRead(path: string): Promise<SegmentFileReader>;
  /** Creates the file at `path`, replacing any there. */
  create(path: string): Promise<SegmentFileWriter>;
  /** The whole file as UTF-8 text; undefined when there is no file at `path`. */
  readText(path: string): Promise<string | undefined>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Removes `dir` and everything under it; nothing when it does not exist. */
  removeDir(dir: string): Promise<void>;
  /** Makes the creations, renames and removals in `dir` so far durable. */
  syncDir(dir: string): Promise<void>;
}
