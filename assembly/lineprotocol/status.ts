// The state of one lp_scan call that every part of the scanner shares, the error codes
// (append-only: the host maps them to messages, assembly/README.md lists them) and `fail`, the
// single place where a problem is recorded. A parse function that fails returns 0 (never a valid
// position, since input buffers come from the heap) and its caller returns at once.

// Error codes (result field errCode).
export const E_UTF8: u32 = 1;
export const E_MEASUREMENT: u32 = 2;
export const E_ESCAPE: u32 = 3;
export const E_TAG_KEY: u32 = 4;
export const E_TAG_EQUALS: u32 = 5;
export const E_TAG_VALUE: u32 = 6;
export const E_FIELD_SET: u32 = 7;
export const E_FIELD_KEY: u32 = 8;
export const E_FIELD_EQUALS: u32 = 9;
export const E_FIELD_VALUE: u32 = 10;
export const E_BOOLEAN: u32 = 11;
export const E_NUMBER: u32 = 12;
export const E_BIGINT_RANGE: u32 = 13;
export const E_UNSIGNED_RANGE: u32 = 14;
export const E_UNTERMINATED: u32 = 15;
export const E_STRING_ESCAPE: u32 = 16;
export const E_AFTER_VALUE: u32 = 17;
export const E_TIMESTAMP: u32 = 18;
export const E_TIMESTAMP_RANGE: u32 = 19;
export const E_AFTER_TIMESTAMP: u32 = 20;
export const E_NAME_LENGTH: u32 = 21;
export const E_COLUMN_COUNT: u32 = 22;
export const E_TIME_RESERVED: u32 = 23;
export const E_TYPE_CONFLICT: u32 = 24;
export const E_TIMESTAMP_OVERFLOW: u32 = 25;

// What a name error is about (result field errWhat).
export const WHAT_MEASUREMENT: u32 = 1;
export const WHAT_TAG: u32 = 2;
export const WHAT_FIELD: u32 = 3;

// Outcome of the line loop.
export const S_OK: i32 = 0;
/** A reported error: the call fails. */
export const S_ERROR: i32 = 1;
/** The current line runs past the end of a non-final window: stop before it. */
export const S_INCOMPLETE: i32 = 2;
/** The current line would grow the batch past its limit: stop before it. */
export const S_FULL: i32 = 3;

export let status: i32 = S_OK;

// Per-call input description, set by lp_scan before the line loop.
/** Start of the input (offsets in the result are relative to it). */
export let inputBase: usize = 0;
/** End of the region being scanned; a '\n' sits at `stop` when `isLast` (a sentinel). */
export let stop: usize = 0;
export let isLast: bool = true;
/** Lines starting at or after this position are not scanned (they may be cut by the window). */
export let safeEnd: usize = 0;
/** Position of the first invalid UTF-8 byte, or `stop`. */
export let badUtf8: usize = 0;

// Where the current line starts, for line and column numbers of errors.
export let lineStart: usize = 0;
/** Newlines before `lineStart` (from inputBase). */
export let lineNumber: u32 = 0;
/** Newlines seen so far, including those inside quoted strings. */
export let newlines: u32 = 0;

// The recorded error.
export let errCode: u32 = 0;
export let errPos: usize = 0;
export let errLen: usize = 0;
export let errWhat: u32 = 0;
export let errTable: u32 = 0;
export let errColumn: u32 = 0;
export let errHave: u32 = 0;
export let errWant: u32 = 0;

export function beginScan(base: usize, end: usize, last: bool, safe: usize, utf8: usize): void {
  status = S_OK;
  inputBase = base;
  stop = end;
  isLast = last;
  safeEnd = safe;
  badUtf8 = utf8;
  lineStart = base;
  lineNumber = 0;
  newlines = 0;
  errCode = 0;
  errWhat = 0;
}

@inline
export function startLine(at: usize): void {
  lineStart = at;
  lineNumber = newlines;
}

@inline
export function countNewline(): void {
  newlines++;
}

/**
 * Records a problem at `pos` (token of `len` bytes; 0 shows "end of line") and returns 0.
 * An earlier invalid UTF-8 byte wins, as the first problem in the body. A problem past the
 * last newline of a non-final window may vanish with more input, so it only ends the window.
 */
export function fail(code: u32, pos: usize, len: usize): usize {
  if (badUtf8 < pos) {
    code = E_UTF8;
    pos = badUtf8;
    len = 1;
  }
  if (!isLast && pos >= safeEnd) {
    status = S_INCOMPLETE;
    return 0;
  }
  status = S_ERROR;
  errCode = code;
  errPos = pos;
  errLen = len;
  return 0;
}

/** `fail` for name errors, which say whether the name is a measurement, tag or field. */
export function failName(code: u32, pos: usize, len: usize, what: u32): usize {
  errWhat = what;
  return fail(code, pos, len);
}

/** `fail` for a column used with two types (or as tag and field) within the request. */
export function failConflict(pos: usize, len: usize, rtable: u32, rcol: u32, have: u32, want: u32): usize {
  errTable = rtable;
  errColumn = rcol;
  errHave = have;
  errWant = want;
  return fail(E_TYPE_CONFLICT, pos, len);
}

/** Ends the window before the current line (it runs past the end of the input). */
export function incomplete(): usize {
  status = S_INCOMPLETE;
  return 0;
}

/** Ends the batch before the current line (the batch is full). */
export function full(): usize {
  status = S_FULL;
  return 0;
}
