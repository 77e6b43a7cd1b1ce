// Sends the request of one .slt record to the server under test, over HTTP only (cnosdb-sql.md
// §7.5): SQL to /api/v1/sql, line protocol to /api/v1/write, OpenTSDB text and JSON to
// /api/v1/opentsdb/write and /put, with the file's client state as parameters and credentials.
//
// SQL asks for `application/json`: of Sundial's formats it loses least. Keys keep column order
// and duplicates, numbers keep their exact text (a DOUBLE always has `.` or an exponent, so it is
// told from an integer and re-rendered as Arrow displays it), NULL stays distinct from '', and
// structs stay structured; text/table would lose NULL and break on `|` and newlines in cells.
// JSON has no NaN or infinity (the contract writes them as null), so an answer with a null cell
// is asked again as CSV, which prints `NaN`, `inf` and `-inf`, and those cells take that text.

import { request as httpRequest, Agent } from 'node:http';
import type { ClientState } from './client-state.js';
import { parseJsonSequence, field, type JsonValue } from './json-values.js';
import type { RequestBody } from './slt-request.js';

export type Outcome =
  /** Success without a result set (DDL, writes, a record of instructions only). */
  | { kind: 'done' }
  /** A result set: each row's values in column order. */
  | { kind: 'rows'; rows: JsonValue[][] }
  /** The server reported an error: a status >= 400, or an error object ending a streamed body. */
  | { kind: 'error'; status: number; code: string; message: string }
  /** Not an answer the contract allows (404 without an error code, unparsable body, timeout). */
  | { kind: 'broken'; reason: string };

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function send(
  baseUrl: string,
  path: string,
  query: Record<string, string>,
  state: ClientState,
  body: string,
  accept?: string,
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const data = Buffer.from(body);
  const headers: Record<string, string> = {
    authorization: 'Basic ' + Buffer.from(`${state.user}:${state.password}`).toString('base64'),
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(data.length),
  };
  if (accept !== undefined) headers.accept = accept;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers, agent, signal: AbortSignal.timeout(state.timeoutMs) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The error a response reports, from its JSON body or the X-Sundial-Error headers; undefined if none. */
function reportedError(res: RawResponse): { code: string; message: string } | undefined {
  try {
    const values = parseJsonSequence(res.body);
    const code = values.length === 1 ? field(values[0]!, 'error_code') : undefined;
    const message = values.length === 1 ? field(values[0]!, 'error_message') : undefined;
    if (code?.t === 'string' && message?.t === 'string') return { code: code.v, message: message.v };
  } catch {
    // not a JSON body; try the headers
  }
  const code = res.headers['x-sundial-error-code'];
  if (typeof code === 'string') {
    const message = res.headers['x-sundial-error'];
    return { code, message: typeof message === 'string' ? message : '' };
  }
  return undefined;
}

function failure(res: RawResponse): Outcome {
  const err = reportedError(res);
  if (err !== undefined) return { kind: 'error', status: res.status, ...err };
  const text = res.body.length > 200 ? res.body.slice(0, 200) + '...' : res.body;
  return { kind: 'broken', reason: `HTTP ${res.status} without an error code; body ${JSON.stringify(text)}` };
}

/** Reads a 2xx /api/v1/sql body: empty (no result set), one array of row objects, maybe an error object after it. */
function sqlSuccess(res: RawResponse): Outcome {
  if (res.body === '') return { kind: 'done' };
  let values: JsonValue[];
  try {
    values = parseJsonSequence(res.body);
  } catch (e) {
    return { kind: 'broken', reason: `HTTP ${res.status} with a body that is not JSON: ${(e as Error).message}` };
  }
  const [first, second, ...rest] = values;
  if (first?.t !== 'array' || rest.length > 0)
    return { kind: 'broken', reason: `expected one JSON array of rows, got ${values.length} values` };
  const rows: JsonValue[][] = [];
  for (const row of first.items) {
    if (row.t !== 'object') return { kind: 'broken', reason: 'expected an array of row objects' };
    rows.push(row.entries.map(([, v]) => v));
  }
  if (second !== undefined) {
    const code = field(second, 'error_code');
    const message = field(second, 'error_message');
    if (code?.t === 'string' && message?.t === 'string')
      return { kind: 'error', status: res.status, code: code.v, message: message.v };
    return { kind: 'broken', reason: 'a value after the rows that is not an error object' };
  }
  return { kind: 'rows', rows };
}

const NON_FINITE = new Set(['NaN', 'inf', '-inf']);

/** Puts the CSV answer's `NaN`/`inf`/`-inf` into the JSON answer's null cells (same shape only). */
function restoreNonFinite(rows: JsonValue[][], csvRows: string[][]): void {
  if (csvRows.length !== rows.length) return;
  rows.forEach((row, i) => {
    const cells = csvRows[i]!;
    if (cells.length !== row.length) return;
    row.forEach((v, j) => {
      if (v.t === 'null' && NON_FINITE.has(cells[j]!)) row[j] = { t: 'number', raw: cells[j]! };
    });
  });
}

/** RFC 4180 records: fields split at commas, `"..."` with `""` for a quote, CRLF or LF. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let i = 0;
  while (i < text.length) {
    let value = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('CSV: unterminated quoted field');
        value += text.slice(i, q);
        i = q + 1;
        if (text[i] !== '"') break;
        value += '"';
        i++;
      }
    } else {
      let j = i;
      while (j < text.length && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
      value = text.slice(i, j);
      i = j;
    }
    fields.push(value);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    records.push(fields);
    fields = [];
  }
  return records;
}

const WRITE_PATHS: Readonly<Record<string, string>> = {
  'line-protocol': '/api/v1/write',
  opentsdb: '/api/v1/opentsdb/write',
  'opentsdb-json': '/api/v1/opentsdb/put',
};

/** Runs one request body with the client state; never throws. */
export async function execute(baseUrl: string, state: ClientState, body: RequestBody): Promise<Outcome> {
  try {
    switch (body.kind) {
      case 'none':
        return { kind: 'done' };
      case 'invalid':
        return { kind: 'broken', reason: body.reason };
      case 'sql': {
        const query: Record<string, string> = { db: state.database, tenant: state.tenant };
        if (state.chunked !== undefined) query.chunked = String(state.chunked);
        const res = await send(baseUrl, '/api/v1/sql', query, state, body.text, 'application/json');
        if (res.status < 200 || res.status >= 300) return failure(res);
        const outcome = sqlSuccess(res);
        if (outcome.kind === 'rows' && outcome.rows.some((r) => r.some((v) => v.t === 'null'))) {
          const csv = await send(baseUrl, '/api/v1/sql', query, state, body.text, 'text/csv');
          if (csv.status >= 200 && csv.status < 300) restoreNonFinite(outcome.rows, parseCsv(csv.body).slice(1));
        }
        return outcome;
      }
      default: {
        const query = { db: state.database, tenant: state.tenant, precision: state.precision };
        const res = await send(baseUrl, WRITE_PATHS[body.kind]!, query, state, body.text);
        return res.status >= 200 && res.status < 300 ? { kind: 'done' } : failure(res);
      }
    }
  } catch (e) {
    const err = e as Error;
    return {
      kind: 'broken',
      reason:
        err.name === 'TimeoutError' || err.name === 'AbortError'
          ? `no answer within ${state.timeoutMs} ms`
          : `request failed: ${err.message}`,
    };
  }
}

/** Closes the kept-alive connection (so that the process can exit). */
export function closeConnections(): void {
  agent.destroy();
}
