// A full file system as the storage reports it: the test for ENOSPC (or a used-up quota) through
// an error's causes, and what a client is told (core/errors.ts noSpace: 507, code 020058).

export const NO_SPACE_MESSAGE =
  "no space left on the data directory's file system; writes are refused until space is freed (reads go on)";

/** Retry-After of a request refused for want of space: a failed WAL is probed about once a second. */
export const NO_SPACE_RETRY_S = 5;

/** Whether an error (or one of its causes) is the file system's "full" or a used-up quota. */
export function isNoSpace(err: unknown): boolean {
  let e = err as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    if (e.code === 'ENOSPC' || e.code === 'EDQUOT') return true;
    e = e.cause as typeof e;
  }
  return false;
}
