// text/table: Arrow 42's pretty_format_batches, which draws with comfy-table's ASCII preset:
//
//   +------+-----+
//   | a    | b   |
//   +------+-----+
//   | 1    | x   |
//   |      | y   |      NULL is an empty cell
//   +------+-----+      (no newline at the end)
//
// Cells are Arrow's display of the value, left-aligned with one space of padding; a cell with
// newlines spans several lines; widths are terminal columns (East Asian wide characters count 2,
// combining marks 0, as unicode-width does). No rows: the header and two closing borders, as
// comfy-table draws a table whose only row is the header. The table needs every width before
// its first line, so the whole result is held and written by end(), its cells charged to the
// query's memory pool when one is given (422 010011 past it: a text/table answer is as big as the
// query's memory budget allows; chunked or not, other formats stream).

import { ByteSink, displayValue, type RecordBatch, type Schema } from '../types/index.js';
import type { ResultWriter } from './result-writer.js';
import { type MemoryPool, Reservation, SLOT_BYTES, stringBytes } from '../memory/index.js';

const EMPTY = new Uint8Array(0);

export class TableWriter implements ResultWriter {
  readonly #names: string[];
  /** Every cell so far, row-major. */
  readonly #cells: string[] = [];
  /** Content width of each column (without padding). */
  readonly #widths: number[];
  /** Whether some cell holds a newline (then rows are laid out line by line). */
  #multiline = false;
  readonly #held: Reservation | undefined;

  constructor(schema: Schema, memory?: MemoryPool) {
    this.#held = memory === undefined ? undefined : new Reservation(memory, 'the text/table answer');
    this.#names = schema.fields.map((f) => f.name);
    this.#widths = this.#names.map(() => 0);
    for (let c = 0; c < this.#names.length; c++) this.#measure(c, this.#names[c]!);
  }

  write(batch: RecordBatch): Uint8Array {
    const cols = batch.columns;
    const cells = this.#cells;
    let bytes = 0;
    for (let r = 0; r < batch.length; r++) {
      for (let c = 0; c < cols.length; c++) {
        const text = displayValue(cols[c]!, r);
        this.#measure(c, text);
        cells.push(text);
        bytes += SLOT_BYTES + stringBytes(text);
      }
    }
    this.#held?.grow(bytes);
    return EMPTY;
  }

  #measure(c: number, text: string): void {
    let w = 0;
    if (text.includes('\n')) {
      this.#multiline = true;
      // Line by line, no array of lines: a cell of 2e8 newlines made one past V8's largest (issue 24).
      for (let from = 0; from <= text.length; ) {
        const nl = text.indexOf('\n', from);
        const end = nl < 0 ? text.length : nl;
        w = Math.max(w, displayWidth(text.slice(from, end)));
        from = end + 1;
      }
    } else w = displayWidth(text);
    if (w > this.#widths[c]!) this.#widths[c] = w;
  }

  end(): Uint8Array {
    const ncols = this.#names.length;
    if (ncols === 0) return EMPTY;
    const widths = this.#widths;
    const sink = new ByteSink();
    let border = '+';
    for (const w of widths) border += '-'.repeat(w + 2) + '+';
    const row = (cells: readonly string[], at: number): void => {
      if (!this.#multiline) return line(cells, at);
      // One cursor per cell, each line cut as it is written (no array of every line).
      const from = new Array<number>(ncols).fill(0);
      const parts = new Array<string>(ncols);
      for (let more = true; more; ) {
        more = false;
        for (let c = 0; c < ncols; c++) {
          const cell = cells[at + c]!;
          const f = from[c]!;
          if (f > cell.length) {
            parts[c] = '';
            continue;
          }
          const nl = cell.indexOf('\n', f);
          parts[c] = cell.slice(f, nl < 0 ? cell.length : nl);
          from[c] = nl < 0 ? cell.length + 1 : nl + 1;
          if (nl >= 0) more = true;
        }
        line(parts, 0);
      }
    };
    const line = (cells: readonly string[], at: number): void => {
      sink.byte(124); // '|'
      for (let c = 0; c < ncols; c++) {
        const cell = cells[at + c]!;
        sink.byte(32);
        sink.utf8(cell);
        const pad = widths[c]! - displayWidth(cell) + 1;
        sink.reserve(pad + 1);
        sink.buf.fill(32, sink.pos, sink.pos + pad);
        sink.pos += pad;
        sink.buf[sink.pos++] = 124;
      }
      sink.byte(10);
    };
    sink.ascii(border);
    sink.byte(10);
    row(this.#names, 0);
    sink.ascii(border);
    sink.byte(10);
    const cells = this.#cells;
    for (let at = 0; at < cells.length; at += ncols) row(cells, at);
    sink.ascii(border);
    cells.length = 0;
    return sink.take();
  }
}

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]$/u;
/** East Asian Wide and Fullwidth blocks, and the emoji blocks unicode-width counts as wide. */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18cff],
  [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f2ff],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

/** Terminal columns of a line of text (unicode-width's UnicodeWidthStr::width). */
export function displayWidth(s: string): number {
  let w = 0;
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) w++;
    else {
      ascii = false;
      break;
    }
  }
  if (ascii) return w;
  w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || (c >= 0x7f && c < 0xa0) || ZERO_WIDTH.test(ch)) continue;
    w += isWide(c) ? 2 : 1;
  }
  return w;
}

function isWide(c: number): boolean {
  if (c < 0x1100) return false;
  let lo = 0;
  let hi = WIDE.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = WIDE[mid]!;
    if (c < a) hi = mid - 1;
    else if (c > b) lo = mid + 1;
    else return true;
  }
  return false;
}
