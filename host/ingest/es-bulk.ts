// The two line-oriented log bodies of `/api/v1/es/_bulk`: Elasticsearch bulk (an action line
// `{"create":{...}}` or `{"index":{...}}` before each document) and NDJSON (one document per
// line). Blank lines are skipped in both (a trailing newline is required by Elasticsearch and
// common in NDJSON). Documents become rows through log-documents.ts. Called as CnosDB documents
// it (a `table` parameter), a request is atomic like every write: one bad document fails it.
// Called as Elasticsearch (no `table`: the action's `_index` or the path's index names each
// document's table, LogOptions.indexTables), it answers as Elasticsearch does: a malformed action
// line fails the whole body, a document that cannot be stored fails only its own item (a shipper
// drops it and goes on; a whole-body 400 for one bad line made Filebeat and Logstash send the
// same batch again forever). `_id` and other metadata are ignored, as in CnosDB. Runtime-agnostic.

import { UserError } from '../core/errors.js';
import { objectNameProblem } from '../core/object-names.js';
import { LogRowWriter, type LogOptions } from './log-documents.js';
import type { LogScanner } from './log-scan.js';
import { clip, describe } from './parse-errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const ascii = new TextDecoder('latin1');

export type BulkAction = 'create' | 'index';

/** A document that was not stored: its item (from 0) and Elasticsearch's error for it. */
export interface BulkFailure {
  item: number;
  /** Elasticsearch's error type (`document_parsing_exception`, `invalid_index_name_exception`). */
  type: string;
  reason: string;
}

export interface BulkResult {
  batches: Uint8Array[];
  /** The action of each document, in order (for the Elasticsearch-shaped reply). */
  actions: BulkAction[];
  /**
   * With LogOptions.indexTables: the table of each document, as an index into `tableNames`
   * (a failed item's too, when it named one). Absent: every document went to options.table.
   */
  tables?: { names: string[]; of: Uint32Array };
  /** The documents that were not stored, in item order (absent: none). */
  failures?: BulkFailure[];
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
 * Parses an Elasticsearch bulk body. Throws UserError 'logParse' naming the line for a body
 * Elasticsearch refuses whole (a malformed action line, an action without its document, no
 * index for a document); a document that cannot become a row is a failed item. With `scanner`
 * (the Wasm core's), a body whose action lines all repeat the first one goes through it first.
 */
export function parseBulk(body: Uint8Array, options: LogOptions, scanner?: LogScanner): BulkResult {
  if (scanner !== undefined) {
    const first = firstActionLine(body, options);
    if (first !== undefined) {
      const scanned = scanner.scan(body, { ...options, table: first.table }, first.text);
      if (scanned !== undefined) {
        const out: BulkResult = {
          batches: scanned.batches,
          actions: new Array<BulkAction>(scanned.rows).fill(first.action),
        };
        if (options.indexTables === true) out.tables = { names: [first.table], of: new Uint32Array(scanned.rows) };
        return out;
      }
    }
  }
  const writer = new LogRowWriter(options);
  const actions: BulkAction[] = [];
  const tables = options.indexTables === true ? new TableList() : undefined;
  const failures: BulkFailure[] = [];
  let pending: Action | undefined;
  let pendingLine = 0;
  // Shippers repeat one action line (`{"create":{"_index":"logs"}}`) before every document.
  let lastActionText = '';
  let lastAction: Action = { action: 'create', index: undefined };
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
    const item = actions.length;
    actions.push(pending.action);
    const table = tables === undefined ? options.table : (pending.index ?? options.table);
    if (table === '')
      throw new UserError(
        'logParse',
        `line ${pendingLine}: the document has no index: name it in the action's _index, in the path (/{index}/_bulk) or with the table parameter`,
      );
    tables?.add(table);
    pending = undefined;
    if (tables === undefined) {
      // CnosDB's form (a `table` parameter): the request is atomic, as every write is.
      writer.addDocument(parseLine(line, lineNo), lineNo, line, table);
      return;
    }
    const badName = objectNameProblem(table);
    if (badName !== undefined) {
      failures.push({
        item,
        type: 'invalid_index_name_exception',
        reason: `Invalid index name [${clip(table)}]: ${badName}`,
      });
      return;
    }
    try {
      // Invalid JSON fails the item too: Elasticsearch parses each document's source on its own.
      writer.addDocument(parseLine(line, lineNo), lineNo, line, table);
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      failures.push({ item, type: 'document_parsing_exception', reason: e.message });
    }
  });
  if (pending !== undefined)
    throw new UserError('logParse', `line ${pendingLine}: the '${pending.action}' action has no document after it`);
  const out: BulkResult = { batches: writer.finish(), actions };
  if (tables !== undefined) out.tables = tables.finish();
  if (failures.length > 0) out.failures = failures;
  return out;
}

/** Table names in first-seen order, and each document's. */
class TableList {
  readonly #ids = new Map<string, number>();
  readonly #of: number[] = [];

  add(table: string): void {
    let id = this.#ids.get(table);
    if (id === undefined) this.#ids.set(table, (id = this.#ids.size));
    this.#of.push(id);
  }

  finish(): { names: string[]; of: Uint32Array } {
    return { names: [...this.#ids.keys()], of: Uint32Array.from(this.#of) };
  }
}

interface Action {
  action: BulkAction;
  /** The action's `_index`, when it has one. */
  index: string | undefined;
}

function parseAction(doc: unknown, lineNo: number): Action {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UserError(
      'logParse',
      `line ${lineNo}: expected an action object such as {"create":{}}, found ${describe(doc)}`,
    );
  }
  const keys = Object.keys(doc);
  if (keys.length !== 1)
    throw new UserError(
      'logParse',
      `line ${lineNo}: an action line must have exactly one key (create or index), found ${keys.length}`,
    );
  const action = keys[0]!;
  if (action !== 'create' && action !== 'index') {
    throw new UserError(
      'logParse',
      `line ${lineNo}: the bulk action '${clip(action)}' is not supported; use create or index`,
    );
  }
  const meta = (doc as Record<string, unknown>)[action];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new UserError(
      'logParse',
      `line ${lineNo}: the '${action}' action must hold an object, found ${describe(meta)}`,
    );
  }
  const index = (meta as Record<string, unknown>)._index;
  if (index !== undefined && (typeof index !== 'string' || index === '')) {
    throw new UserError(
      'logParse',
      `line ${lineNo}: the action's _index must be a non-empty string, found ${describe(index)}`,
    );
  }
  return { action, index };
}

/**
 * The first non-blank line of a bulk body, its action and its documents' table, when it is an
 * ASCII line that is a valid action naming a valid table; undefined otherwise (the reference
 * then reads the body, and words any error).
 */
function firstActionLine(
  body: Uint8Array,
  options: LogOptions,
): { text: string; action: BulkAction; table: string } | undefined {
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
      let parsed: Action;
      try {
        parsed = parseAction(JSON.parse(text), 1);
      } catch {
        return undefined;
      }
      const table = options.indexTables === true ? (parsed.index ?? options.table) : options.table;
      if (table === '' || objectNameProblem(table) !== undefined) return undefined;
      return { text, action: parsed.action, table };
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
