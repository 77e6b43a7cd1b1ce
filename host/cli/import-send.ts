// Sends `sundial import`'s batches, `concurrency` at a time over keep-alive connections, and
// turns the server's refusals into rejected lines. The server takes a body whole or not at all
// (CONTRACT.md, "Writes") and names the first bad line (`x-sundial-error: line N, ...`), so a
// refused batch is re-sent without that line: the lines before it, then the lines after it (which
// may hold more bad lines); a refusal that names no line (a type conflict with the stored schema)
// halves the batch until the line is found. Nothing else of the batch is lost. 429 and 503 are
// retried after Retry-After; a dropped connection a few times; every other refusal (unknown
// database, authentication, ...) ends the import: no later batch could be stored either.

import { setTimeout as sleep } from 'node:timers/promises';
import { errorOf, NetworkError, post, type Connection, type Reply } from './connection.js';
import { isRowLine, splitLines, type Batch, type Rejection } from './import-lines.js';

/** The server's codes of refusals that are about a line of the body. */
const LINE_CODES = new Set(['040004', '040010', '020010', '020011', '020012']);
const NETWORK_RETRIES = 5;
/** How long 429/503 answers are retried before the import gives up. */
const BUSY_LIMIT_MS = 120_000;

export class FatalImportError extends Error {}

export interface BatchResult {
  written: number;
  rejected: Rejection[];
}

function lineOfError(message: string): number | undefined {
  const m = /^line (\d+)\b/.exec(message);
  return m === null ? undefined : Number(m[1]);
}

/** Strips the server's `line N, ` prefix (the report gives the input's own line). */
function reasonOf(message: string): string {
  return message.replace(/^line \d+(, |: )?/, '');
}

export class Sender {
  #inFlight = new Set<Promise<void>>();
  #failure: unknown;

  constructor(
    readonly conn: Connection,
    readonly url: URL,
    readonly concurrency: number,
    readonly onDone: (batch: Batch, result: BatchResult) => void,
  ) {}

  /** Starts sending `batch` once a slot is free; throws the first fatal failure. */
  async submit(batch: Batch): Promise<void> {
    while (this.#inFlight.size >= this.concurrency) await Promise.race(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure;
    const p: Promise<void> = this.#send(batch)
      .then(
        (r) => this.onDone(batch, r),
        (e: unknown) => {
          this.#failure ??= e;
        },
      )
      .finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }

  /** Waits for every batch in flight; throws the first fatal failure. */
  async drain(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #send(batch: Batch): Promise<BatchResult> {
    const rejected = [...batch.rejected];
    if (batch.rows === 0) return { written: 0, rejected };
    const r = await this.#post(batch.body);
    if (r.status >= 200 && r.status < 300) return { written: batch.rows, rejected };
    const lines = splitLines(batch.body);
    const numbers = lines.map((_, i) => batch.lineOf?.[i] ?? batch.firstLine + i);
    const written = await this.#isolate(lines, numbers, rejected, r);
    rejected.sort((a, b) => a.line - b.line);
    return { written, rejected };
  }

  /** Sends `lines` (input line `numbers`), given the reply to sending them all; the rows written. */
  async #isolate(lines: Buffer[], numbers: number[], rejected: Rejection[], reply?: Reply): Promise<number> {
    const rows = lines.filter(isRowLine).length;
    if (rows === 0) return 0;
    const r = reply ?? (await this.#post(Buffer.concat(lines.flatMap((l) => [l, NEWLINE]))));
    if (r.status >= 200 && r.status < 300) return rows;
    const { code, message } = errorOf(r);
    if (!LINE_CODES.has(code) && r.status !== 413)
      throw new FatalImportError(`${r.status} ${code} ${message}`.replace('  ', ' '));
    const at = lineOfError(message);
    if (at !== undefined && at >= 1 && at <= lines.length) {
      // A string field with line feeds spans body lines: the whole input line goes.
      const input = numbers[at - 1]!;
      let first = at - 1;
      while (first > 0 && numbers[first - 1] === input) first--;
      let end = at;
      while (end < lines.length && numbers[end] === input) end++;
      if (code === '020010' && first > 0) {
        // A type conflict "in this request" blames the later of two lines, but the earlier one
        // may be the line at fault (it conflicts with the stored schema, which the server checks
        // second): settle the lines before first, then retry the named line with the rest.
        const before = await this.#isolate(lines.slice(0, first), numbers.slice(0, first), rejected);
        return before + (await this.#isolate(lines.slice(first), numbers.slice(first), rejected));
      }
      rejected.push({ line: input, reason: reasonOf(message), text: lines.slice(first, end).join('\n') });
      return (
        (await this.#isolate(lines.slice(0, first), numbers.slice(0, first), rejected)) +
        (await this.#isolate(lines.slice(end), numbers.slice(end), rejected))
      );
    }
    if (rows === 1) {
      const i = lines.findIndex(isRowLine);
      rejected.push({ line: numbers[i]!, reason: message, text: lines[i]!.toString() });
      return 0;
    }
    let half = lines.length >> 1;
    while (half < lines.length - 1 && numbers[half] === numbers[half - 1]) half++;
    return (
      (await this.#isolate(lines.slice(0, half), numbers.slice(0, half), rejected)) +
      (await this.#isolate(lines.slice(half), numbers.slice(half), rejected))
    );
  }

  async #post(body: Buffer): Promise<Reply> {
    let failures = 0;
    const busySince = Date.now();
    for (;;) {
      let r: Reply;
      try {
        r = await post(this.conn, this.url, body, { 'content-type': 'text/plain; charset=utf-8' });
      } catch (e) {
        if (!(e instanceof NetworkError) || ++failures > NETWORK_RETRIES)
          throw new FatalImportError((e as Error).message);
        await sleep(200 * 2 ** failures);
        continue;
      }
      if (r.status !== 429 && r.status !== 503) return r;
      if (Date.now() - busySince > BUSY_LIMIT_MS) return r;
      const after = Number(r.headers['retry-after']);
      await sleep(Number.isFinite(after) && after > 0 ? Math.min(after, 10) * 1000 : 500);
    }
  }
}

const NEWLINE = Buffer.from('\n');
