// Where the write-ahead log's segment files live (FORMAT.md §7): an interface, so that another store
// can stand in for the file system. Unlike a segment file, a WAL segment is appended to and cut back.

/** The segment the log appends to, open until `close`. */
export interface WalFile {
  /** Writes `chunks` one after another from `position`, all of them, or rejects; the log reuses none of them. */
  write(chunks: readonly Uint8Array[], position: number): Promise<void>;
  /**
   * Makes every byte written so far, and the file's size, durable (fdatasync). A rejection means
   * the written bytes may be lost even if they read back (the log goes on in a new segment).
   */
  datasync(): Promise<void>;
  /** Cuts the file to `size` bytes; durable after the next `datasync`. */
  truncate(size: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The contract. Durability: a new segment is `create`d, its header written and `datasync`ed, and
 * `syncDir` of the folder resolves before a record is appended to it; a record is acknowledged
 * only after the `datasync` that follows its write. Removals (`remove`, after a flush made the
 * records durable in segment files) are durable after `syncDir`. Errors keep the file system's
 * `code` (ENOSPC, EIO): the storage tells a full disk from other failures by it. A missing file
 * rejects `readAll`, `openAppend` and `remove` with code 'ENOENT'. One log owns its folder: no
 * two writers append to one file.
 */
export interface WalFiles {
  /** Creates the folder `dir` and its parents if missing. */
  makeDir(dir: string): Promise<void>;
  /** Names (not paths) of the files in `dir`, in no particular order. */
  list(dir: string): Promise<string[]>;
  /** The whole file, in a new array the caller owns (at byteOffset 0 of its buffer, or not: the log copies when it must). */
  readAll(path: string): Promise<Uint8Array>;
  /** Opens an existing file to append to and cut back. */
  openAppend(path: string): Promise<WalFile>;
  /** Creates an empty file at `path`, replacing any there. */
  create(path: string): Promise<WalFile>;
  remove(path: string): Promise<void>;
  /** Makes the creations and removals in `dir` so far durable. */
  syncDir(dir: string): Promise<void>;
  /** Removes the folder `dir` with everything in it, durably; a missing folder is no error (DROP DATABASE). */
  removeDir(dir: string): Promise<void>;
}
