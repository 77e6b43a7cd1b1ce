// Status codes of the codec exports: a negative i32 instead of a byte count. Append-only
// (STYLE.md §7): the host maps each one to the check named in a CorruptionError
// (host/core/codecs.ts), so a number never changes meaning.

/** The output capacity is smaller than the result (never happens: outputs are sized first). */
export const ERR_CAPACITY: i32 = -1;
/** An argument is out of range: unknown mode, too many rows, bad offsets. Always a host bug. */
export const ERR_ARGUMENT: i32 = -2;
/** The block ends before a field that its header or earlier fields announce. */
export const ERR_TRUNCATED: i32 = -3;
/** Bytes are left after the last field of the block. */
export const ERR_TRAILING: i32 = -4;
/** The encoding id is unknown, not valid for the column type, or not valid where it is nested. */
export const ERR_CODEC: i32 = -5;
/** Reserved header bits are set. */
export const ERR_FLAGS: i32 = -6;
/** A field holds a value outside its range (a Rice k, a dictionary index, a run length...). */
export const ERR_VALUE: i32 = -7;
/** A stream decodes to a different number of values than the row count says. */
export const ERR_COUNT: i32 = -8;
/** Padding bits after the last value of a bit stream are not zero. */
export const ERR_PADDING: i32 = -9;
/** A varint is longer than 10 bytes or overflows 64 bits. */
export const ERR_VARINT: i32 = -10;

/** Start of the outermost block of the current export call; error offsets are relative to it. */
let errorBase: usize = 0;
/** Byte offset (from the block start) of the check that failed last. */
let errorOffset: u32 = 0;

/** Called by every decode export with the block it was given. */
export function setErrorBase(base: usize): void {
  errorBase = base;
  errorOffset = 0;
}

/** Records where a check failed (an absolute pointer) and returns its code: `return fail(...)`. */
export function fail(code: i32, at: usize): i32 {
  errorOffset = at >= errorBase ? <u32>(at - errorBase) : 0;
  return code;
}

export function lastErrorOffset(): u32 {
  return errorOffset;
}
