// What CHECK DATABASE reports, shared by the storage that finds it and the engine that shows it.

/** A problem found in a stored file. */
export interface StoredFileProblem {
  /** The file, relative to the data directory. */
  file: string;
  /** Byte offset of the damage in the file; null when it concerns the whole file. */
  offset: number | null;
  problem: string;
  /** What REPAIR did about it ('' without REPAIR). */
  action: string;
}
