// The two line-oriented log bodies of `/api/v1/es/_bulk`: Elasticsearch bulk (an action line
// `{"create":{...}}` or `{"index":{...}}` before each document; the action's metadata such as
// `_index` and `_id` is ignored, as in CnosDB) and NDJSON (one document per line). Blank lines
// are skipped in both (a trailing newline is required by Elasticsearch and common in NDJSON).
// Documents become rows through log-documents.ts. Runtime-agnostic.

import { UserError } from '../core/errors.js';
import { LogRowWriter, type LogOptions } from './log-documents.js';
import type { LogScanner } from './log-scan.js';
import { clip, describe } from './parse-errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const ascii = new TextDecoder('latin1');

export type BulkAction = 'create' | 'index';

export interface BulkResult {
  batches: Uint8Array[];
  /** The action of each document, in order (for the Elasticsearch-shaped reply). */
  actions: BulkAction[];
}

function decode(body: Uint8Array): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new UserError('logParse', 'the body is not valid UTF-8');
  }
}

/** Calls `each(line, lineNo)` for every non-blank line of `text`. */
function forEachLine(text: string, each: (line: string, lineNo: number) => void): void {
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end);
    start = end + 1;
    // JSON.parse tolerates surrounding whitespace (and a trailing \r); only skip blank lines.
    if (line.length === 0) continue;
    const c = line.charCodeAt(0);
    if ((c === 32 || c === 9 || c === 13) && line.trim().length === 0) continue;
    each(line, lineNo);
  }
}

function parseLine(line: string, lineNo: number): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new UserError('logParse', `line ${lineNo}: invalid JSON: ${(e as Error).message}`);
  }
}

/**
 * Parses an Elasticsearch bulk body. Throws UserError 'logParse' naming the line. With `scanner`
 * (the Wasm core's), a body whose action lines all repeat the first one goes through it first.
 */
export function parseBulk(body: Uint8Array, options: LogOptions, scanner?: LogScanner): BulkResult {
  if (scanner !== undefined) {
    const first = firstActionLine(body);
    if (first !== undefined) {
      const scanned = scanner.scan(body, options, first.text);
      if (scanned !== undefined) return { batches: scanned.batches, actions: new Array<BulkAction>(scanned.rows).fill(first.action) };
    }
  }
  const writer = new LogRowWriter(options);
  const actions: BulkAction[] = [];
  let pending: BulkAction | undefined;
  let pendingLine = 0;
  // Shippers repeat one action line (`{"create":{"_index":"logs"}}`) before every document.
  let lastActionText = '';
  let lastAction: BulkAction = 'create';
  forEachLine(decode(body), (line, lineNo) => {
    if (pending === undefined) {
      if (line !== lastActionText) {
        lastAction = parseAction(parseLine(line, lineNo), lineNo);
        lastActionText = line;
      }
      pending = lastAction;
      pendingLine = lineNo;
      return;
    }
    writer.addDocument(parseLine(line, lineNo), lineNo, line);
    actions.push(pending);
    pending = undefined;
  });
  if (pending !== undefined) throw new UserError('logParse', `line ${pendingLine}: the '${pending}' action has no document after it`);
  return { batches: writer.finish(), actions };
}

function parseAction(doc: unknown, lineNo: number): BulkAction {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UserError('logParse', `line ${lineNo}: expected an action object such as {"create":{}}, found ${describe(doc)}`);
  }
  const keys = Object.keys(doc);
  if (keys.length !== 1) throw new UserError('logParse', `line ${lineNo}: an action line must have exactly one key (create or index), found ${keys.length}`);
  const action = keys[0]!;
  if (action !== 'create' && action !== 'index') {
    throw new UserError('logParse', `line ${lineNo}: the bulk action '${clip(action)}' is not supported; use create or index`);
  }
  const meta = (doc as Record<string, unknown>)[action];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new UserError('logParse', `line ${lineNo}: the '${action}' action must hold an object, found ${describe(meta)}`);
  }
  return action;
}

/**
 * The first non-blank line of a bulk body and its action, when it is an ASCII line that is a
 * valid action; undefined otherwise (the reference then reads the body, and words any error).
 */
function firstActionLine(body: Uint8Array): { text: string; action: BulkAction } | undefined {
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(10, start);
    if (end < 0) end = body.length;
    let blank = true;
    for (let i = start; i < end; i++) {
      const c = body[i]!;
      if (c >= 0x80) return undefined;
      if (c !== 32 && c !== 9 && c !== 13) blank = false;
    }
    if (!blank) {
      const text = ascii.decode(body.subarray(start, end));
      try {
        return { text, action: parseAction(JSON.parse(text), 1) };
      } catch {
        return undefined;
      }
    }
    start = end + 1;
  }
  return undefined;
}

/**
 * Parses an NDJSON body (one document per line). Throws UserError 'logParse' naming the line.
 * With `scanner` (the Wasm core's), the body goes through it first.
 */
export function parseNdjson(body: Uint8Array, options: LogOptions, scanner?: LogScanner): Uint8Array[] {
  if (scanner !== undefined) {
    const scanned = scanner.scan(body, options);
    if (scanned !== undefined) return scanned.batches;
  }
  const writer = new LogRowWriter(options);
  forEachLine(decode(body), (line, lineNo) => writer.addDocument(parseLine(line, lineNo), lineNo, line));
  return writer.finish();
}
