// The size check of every value a function builds (issue 24): a function that can make a
// string or list larger than its arguments computes the size first and asks its ResultBudget,
// which sums the batch's values and answers 422 010011 past the query's memory budget, before
// anything is allocated. Before it, `lpad('a', 2e9)` ended the process with V8's fatal "invalid
// size error" and `repeat('a', 6e8)` was a 500. Sizes are memory-size.ts's, the ones the
// operators charge to the pool, so that the check and the operators' accounting agree.

import type { Scalar } from '../types/index.js';
import { UserError } from '../../core/errors.js';
import { listBytes, stringUnitsBytes } from '../memory/index.js';
import type { MemoryBudget } from './function-types.js';

/** V8's String::kMaxLength on 64-bit platforms: a longer string throws "Invalid string length". */
export const MAX_STRING_UNITS = 2 ** 29 - 24;

/**
 * Below V8's FixedArray::kMaxLength (2^27 - 3 on 64-bit): an array that must grow past it ends
 * the process ("Fatal JavaScript invalid size error"), where a string only throws.
 */
export const MAX_LIST_ELEMENTS = 2 ** 27 - 64;

/** The bytes `v` adds when a function builds it: strings and lists; fixed-size values count nothing. */
export function builtBytes(v: Scalar): number {
  if (typeof v === 'string') return stringUnitsBytes(v.length);
  if (Array.isArray(v)) return listBytes(v.length);
  return 0;
}

/** The bytes of a value's strings and lists, nested ones included (a literal's footprint). */
export function valueBytes(v: Scalar): number {
  let bytes = builtBytes(v);
  if (Array.isArray(v)) for (const e of v as Scalar[]) bytes += valueBytes(e);
  return bytes;
}

/**
 * The values one function call builds for one batch. Create one per `evaluate`; call `string`
 * or `list` with the size of a value before building it, and `add` with each value built (the
 * function-wide wrapper, signature.ts rowwise, does the adding).
 */
export class ResultBudget {
  readonly #fn: string;
  readonly #memory: MemoryBudget | undefined;
  /** Bytes of the values built so far for this batch. */
  #batchBytes = 0;

  constructor(fn: string, memory: MemoryBudget | undefined) {
    this.#fn = fn;
    this.#memory = memory;
  }

  /** Throws 422 010011 naming the function unless a string of `units` UTF-16 units fits. */
  string(units: number): void {
    if (units > MAX_STRING_UNITS) {
      throw new UserError(
        'queryMemory',
        `query memory limit exceeded: ${this.#fn} would build a string of ${units} characters, more than the ${MAX_STRING_UNITS} a string can hold`,
      );
    }
    this.#check(stringUnitsBytes(units), `a string of ${units} characters`);
  }

  /** Throws 422 010011 naming the function unless a list of `elements` elements fits. */
  list(elements: number): void {
    if (elements > MAX_LIST_ELEMENTS) {
      throw new UserError(
        'queryMemory',
        `query memory limit exceeded: ${this.#fn} would build a list of ${elements} elements, more than the ${MAX_LIST_ELEMENTS} a list can hold`,
      );
    }
    this.#check(listBytes(elements), `a list of ${elements} elements`);
  }

  /** Counts a value built for this batch; throws when it took the batch past the budget. */
  add(v: Scalar): void {
    const bytes = builtBytes(v);
    if (bytes === 0) return;
    this.#check(
      bytes,
      typeof v === 'string' ? `a string of ${v.length} characters` : `a list of ${(v as unknown[]).length} elements`,
    );
    this.#batchBytes += bytes;
  }

  #check(bytes: number, what: string): void {
    const m = this.#memory;
    if (m === undefined) return;
    const held = m.usedBytes + this.#batchBytes;
    if (held + bytes <= m.limitBytes) return;
    if (m.holder !== undefined && m.usedBytes > this.#batchBytes + bytes) {
      // The operators filled the pool, not this call: `count(DISTINCT concat(...))` stops on a
      // 43-character concat once the DISTINCT set holds the budget; name the set.
      throw new UserError(
        'queryMemory',
        `query memory limit exceeded: ${m.holder} needs ${held + bytes} bytes, the limit is ${m.limitBytes} bytes (limits.query_memory_bytes)`,
      );
    }
    throw new UserError(
      'queryMemory',
      `query memory limit exceeded: ${this.#fn} would build ${what} (${bytes} bytes, ${held} bytes already held by the query and this batch), the limit is ${m.limitBytes} bytes (limits.query_memory_bytes)`,
    );
  }
}

/**
 * V8's own refusals of a size ("Invalid string length", "Invalid array length"), raised by a
 * builder no check covered, as the same 422 naming the function; anything else unchanged.
 */
export function sizeRefusal(fn: string, e: unknown): unknown {
  if (e instanceof RangeError && /^Invalid (string|array|typed array) length/.test(e.message)) {
    return new UserError(
      'queryMemory',
      `query memory limit exceeded: ${fn} would build a value larger than the engine can hold (${e.message})`,
      { cause: e },
    );
  }
  return e;
}
