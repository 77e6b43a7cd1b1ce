// A query's memory pool: what its operators hold against limits.query_memory_bytes, and which
// of them reserved last, so that a function that finds the pool full can name the holder.

import { UserError } from '../../core/errors.js';

/** Bytes held by the operators of one query, against its limit. */
export class MemoryPool {
  readonly limitBytes: number;
  #used = 0;
  #peak = 0;
  #holder: string | undefined;

  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  get usedBytes(): number {
    return this.#used;
  }

  /** What last reserved from the pool (an operator's name), to name when a function finds it full. */
  get holder(): string | undefined {
    return this.#holder;
  }

  get peakBytes(): number {
    return this.#peak;
  }

  /** Takes `bytes` for `what`, or throws 422 010011 leaving the pool unchanged. */
  reserve(bytes: number, what: string): void {
    this.#holder = what;
    if (this.#used + bytes > this.limitBytes) {
      throw new UserError(
        'queryMemory',
        `query memory limit exceeded: ${what} needs ${this.#used + bytes} bytes, the limit is ${this.limitBytes} bytes (limits.query_memory_bytes)`,
      );
    }
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
  }

  /** Takes `bytes` if they fit under the limit; false (and nothing taken) if not. */
  tryReserve(bytes: number): boolean {
    if (this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
    return true;
  }

  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
