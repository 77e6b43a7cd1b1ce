// Cuts a stream of text into batches of whole lines for `sundial import`: what is sent in one
// request, and the unit `--resume` counts. Cuts depend only on the bytes and the batch size, so
// a resumed run cuts the same batches as the interrupted one and can skip those acknowledged.

/** One request's worth of input. */
export interface Batch {
  /** 0, 1, ...: the batch's place in its input (resume state). */
  seq: number;
  /** Line protocol or OpenTSDB text, whole lines. */
  body: Buffer;
  /** Input line (1-based) of the body's first line. */
  firstLine: number;
  /** Input line of each body line, when they are not consecutive (converted formats). */
  lineOf?: number[];
  /** Lines of the body that hold a point (not blank, not a comment). */
  rows: number;
  /** Lines the conversion refused, with their reason. */
  rejected: Rejection[];
}

export interface Rejection {
  line: number;
  reason: string;
  text: string;
}

const NL = 0x0a;

/** Whether the line starting at `at` holds a point: not empty, not CR alone, not a # comment. */
function holdsRow(buf: Buffer, at: number, end: number): boolean {
  while (at < end && (buf[at] === 0x20 || buf[at] === 0x09)) at++;
  if (at >= end) return false;
  const c = buf[at];
  return c !== NL && c !== 0x0d && c !== 0x23;
}

/** Line-protocol and OpenTSDB text as batches of `lines` lines (fewer when they exceed `maxBytes`). */
export async function* lineBatches(
  chunks: AsyncIterable<Buffer>,
  lines: number,
  maxBytes: number,
): AsyncGenerator<Batch> {
  let seq = 0;
  let line = 1; // input line of the next batch's first line
  let parts: Buffer[] = [];
  let partBytes = 0;
  let count = 0; // lines in parts
  let rows = 0;
  const cut = (): Batch => {
    const b: Batch = {
      seq: seq++,
      body: parts.length === 1 ? parts[0]! : Buffer.concat(parts, partBytes),
      firstLine: line,
      rows,
      rejected: [],
    };
    line += count;
    parts = [];
    partBytes = 0;
    count = 0;
    rows = 0;
    return b;
  };
  for await (const chunk of chunks) {
    let start = 0; // first byte of chunk not yet in parts
    let at = 0; // start of the current line
    for (;;) {
      const nl = chunk.indexOf(NL, at);
      if (nl < 0) break;
      if (at > 0 || partBytes === 0 ? holdsRow(chunk, at, nl) : holdsRowAcross(parts, chunk, at, nl)) rows++;
      count++;
      at = nl + 1;
      if (count >= lines || partBytes + (at - start) >= maxBytes) {
        parts.push(chunk.subarray(start, at));
        partBytes += at - start;
        start = at;
        yield cut();
      }
    }
    if (start < chunk.length) {
      // Copied: the chunk's buffer may be reused by the stream once we yield.
      parts.push(Buffer.from(chunk.subarray(start)));
      partBytes += chunk.length - start;
    }
  }
  if (partBytes > 0) {
    const tail = Buffer.concat(parts, partBytes);
    if (tail[tail.length - 1] !== NL) {
      count++;
      if (holdsRow(tail, lastLineStart(tail), tail.length)) rows++;
    }
    parts = [tail];
    yield cut();
  }
}

/** Whether a line that began in `parts` (the end of earlier chunks) and ends at `nl` of `chunk` holds a row. */
function holdsRowAcross(parts: Buffer[], chunk: Buffer, at: number, nl: number): boolean {
  const tail = parts[parts.length - 1]!;
  for (let i = lastLineStart(tail); i < tail.length; i++) {
    const c = tail[i];
    if (c !== 0x20 && c !== 0x09) return c !== 0x0d && c !== 0x23;
  }
  return holdsRow(chunk, at, nl);
}

/** Where the last (unterminated) line of `buf` starts. */
function lastLineStart(buf: Buffer): number {
  return buf.lastIndexOf(NL) + 1;
}

/** The lines of a body, without their line feeds (a last line without one included). */
export function splitLines(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const nl = body.indexOf(NL, at);
    const end = nl < 0 ? body.length : nl;
    out.push(body.subarray(at, end));
    at = end + 1;
  }
  return out;
}

export function isRowLine(line: Buffer): boolean {
  return holdsRow(line, 0, line.length);
}
