// Admission limits that answer 429 instead of letting load grow memory without bound.

import { UserError } from '../core/errors.js';

/** A budget of units (bytes, or concurrent queries) shared by concurrent requests. */
export class Budget {
  readonly #limit: number;
  readonly #what: string;
  readonly #reason: string;
  #used = 0;

  /** `reason`: the 429's label in /metrics. */
  constructor(limit: number, what: string, reason: string) {
    this.#limit = limit;
    this.#what = what;
    this.#reason = reason;
  }

  get used(): number {
    return this.#used;
  }

  /**
   * Takes `n` units or throws 429. A single request larger than the whole budget is admitted when
   * nothing else runs, so a legal request can always make progress.
   */
  acquire(n: number): () => void {
    if (this.#used > 0 && this.#used + n > this.#limit) {
      throw new UserError('limitReached', `${this.#what} limit of ${this.#limit} reached; retry later`, {
        retryAfterS: 1,
        reason: this.#reason,
      });
    }
    this.#used += n;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#used -= n;
    };
  }
}
