// The messages between the sandbox page and its Web Worker (worker.ts): every request has an id,
// every answer names it, with a result or an error as the server reports errors (code, message).

import type { SqlAnswer, SandboxError } from '../sandbox.js';
import type { LoadSummary } from '../sandbox-store.js';

export type Request =
  | { id: number; kind: 'sql'; sql: string; database: string }
  | { id: number; kind: 'export'; url: string; authorization: string }
  | { id: number; kind: 'file'; name: string; bytes: Uint8Array; database: string }
  | { id: number; kind: 'demo'; hosts: number; hours: number; database: string }
  | { id: number; kind: 'status' };

export interface Status {
  bytes: number;
  limitBytes: number;
  tables: Array<{ database: string; table: string }>;
}

export type Result =
  | SqlAnswer
  | LoadSummary
  | { table: string; rows: number; format: string }
  | { rows: number }
  | Status;

export type Answer =
  | { id: number; ok: true; result: Result; ms: number }
  | { id: number; ok: false; error: SandboxError };

/** The first message: the worker is ready, or why it is not. */
export type Ready = { id: 0; ok: true } | { id: 0; ok: false; error: SandboxError };
