// Helpers for the text formats' error messages: where (line N) and what (a clipped excerpt).
// Runtime-agnostic.

import { UserError, type ErrorKind } from '../core/errors.js';

const CLIP_CHARS = 60;

/** `s` cut to a readable length for an error message. */
export function clip(s: string): string {
  return s.length > CLIP_CHARS ? s.slice(0, CLIP_CHARS) + '...' : s;
}

/**
 * Prefixes a UserError with `where` (once). A 'badParameter' from the batch builder (a row
 * without fields, an empty name) becomes the format's own parse error `kind`; other kinds (type
 * conflicts 422, timestamp overflow 422) keep their status.
 */
export function locate(e: unknown, where: string, kind: ErrorKind): unknown {
  if (!(e instanceof UserError)) return e;
  const prefix = `${where}: `;
  if (e.message.startsWith(prefix)) return e;
  return new UserError(e.kind === 'badParameter' ? kind : e.kind, prefix + e.message, { cause: e });
}

/** A JSON value for an error message: its type, and the value itself when short. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return `${typeof v} ${clip(text)}`;
}
