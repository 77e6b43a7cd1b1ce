// `sundial import --resume`: a small JSON file beside the input (`<input>.sundial-import`, or
// --state) naming the batches the server acknowledged, rewritten (write, then rename) after each
// acknowledgement. Batches finish out of order, so it keeps the count of the acknowledged prefix
// and the numbers acknowledged beyond it. A resumed run cuts the same batches (same input, same
// options: both are checked) and skips the acknowledged ones, so each row is sent once; a batch
// acknowledged in the instant before a kill, and not yet in the file, is sent again, which stores
// nothing twice (a point with the same series and time replaces the earlier one).

import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { UsageError } from './usage.js';

interface StateFile {
  version: 1;
  input: { path: string; size: number; mtimeMs: number };
  /** The options that decide how the input is cut and converted. */
  options: string;
  prefix: number;
  beyond: number[];
  written: number;
  rejected: number;
}

export class ImportState {
  readonly #path: string | undefined;
  #s: StateFile;
  #beyond: Set<number>;
  /** Rows and rejected lines of the earlier runs. */
  readonly earlier: { written: number; rejected: number };

  private constructor(path: string | undefined, s: StateFile) {
    this.#path = path;
    this.#s = s;
    this.#beyond = new Set(s.beyond);
    this.earlier = { written: s.written, rejected: s.rejected };
  }

  /**
   * The state of importing `input` with `options`: read from `path` when resuming, else fresh.
   * `path` undefined: no state is kept (stdin without --state).
   */
  static open(path: string | undefined, input: string, options: string, resume: boolean): ImportState {
    const id =
      input === '-'
        ? { path: '-', size: 0, mtimeMs: 0 }
        : (({ size, mtimeMs }) => ({ path: input, size, mtimeMs }))(statSync(input));
    const fresh: StateFile = { version: 1, input: id, options, prefix: 0, beyond: [], written: 0, rejected: 0 };
    if (!resume || path === undefined || !existsSync(path)) return new ImportState(path, fresh);
    let s: StateFile;
    try {
      s = JSON.parse(readFileSync(path, 'utf8')) as StateFile;
    } catch (e) {
      throw new UsageError(`cannot read the resume state ${path}: ${(e as Error).message}; remove it to start over`);
    }
    if (s.version !== 1 || s.input.size !== id.size || s.input.mtimeMs !== id.mtimeMs) {
      throw new UsageError(
        `the resume state ${path} is of another version of ${input} (its size or time changed); remove it to start over`,
      );
    }
    if (s.options !== options)
      throw new UsageError(
        `the resume state ${path} was written with other options (${s.options}); give the same ones, or remove it to start over`,
      );
    return new ImportState(path, s);
  }

  /** Whether batch `seq` was acknowledged in an earlier run. */
  done(seq: number): boolean {
    return seq < this.#s.prefix || this.#beyond.has(seq);
  }

  /** Records batch `seq` as acknowledged, with its rows and rejected lines. */
  ack(seq: number, written: number, rejected: number): void {
    const s = this.#s;
    if (seq === s.prefix) {
      s.prefix++;
      while (this.#beyond.delete(s.prefix)) s.prefix++;
    } else this.#beyond.add(seq);
    s.written += written;
    s.rejected += rejected;
    if (this.#path === undefined) return;
    s.beyond = [...this.#beyond];
    const tmp = `${this.#path}.tmp`;
    writeFileSync(tmp, JSON.stringify(s));
    renameSync(tmp, this.#path);
  }

  /** The import finished: nothing to resume. */
  remove(): void {
    if (this.#path !== undefined) rmSync(this.#path, { force: true });
  }
}
