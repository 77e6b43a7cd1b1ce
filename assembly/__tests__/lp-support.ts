// Helpers for the line-protocol specs: scan a body held in the core's input window, print the
// resulting write batch (host/storage/FORMAT.md §1) as text, and print the error fields of the
// result record, so that cases compare one string (STYLE.md §18).
import { lp_input, lp_result, lp_scan } from '../lineprotocol/index';

export const LAST: u32 = 1;
export const CONTINUED: u32 = 2;

@inline function word(i: usize): u32 {
  return load<u32>(lp_result() + (i << 2));
}

/** Where the body of the last scan was written. */
export let inputPtr: usize = 0;

/** Scans UTF-8 text; see scanBytes. */
export function scan(body: string, flags: u32 = LAST, mul: i64 = 1, div: i64 = 1, dflt: i64 = 1000, maxBatch: u32 = 0xffffffff): i32 {
  const buf = String.UTF8.encode(body);
  return scanAt(changetype<usize>(buf), <usize>buf.byteLength, flags, mul, div, dflt, maxBatch);
}

/** Scans raw bytes (invalid UTF-8 included). */
export function scanBytes(bytes: u8[], flags: u32 = LAST): i32 {
  const p = heap.alloc(bytes.length + 1);
  for (let i = 0; i < bytes.length; i++) store<u8>(p + i, bytes[i]);
  return scanAt(p, bytes.length, flags, 1, 1, 1000, 0xffffffff);
}

export function scanAt(src: usize, len: usize, flags: u32, mul: i64, div: i64, dflt: i64, maxBatch: u32): i32 {
  inputPtr = lp_input(len);
  memory.copy(inputPtr, src, len);
  return lp_scan(inputPtr, len, flags, mul, div, dflt, maxBatch);
}

/** The error of the last scan: `E<code> <line>:<column> @<offset>+<length>` and the name kind. */
export function errorText(rc: i32): string {
  if (rc <= 0) return 'rc ' + rc.toString();
  const what = ['', ' measurement', ' tag', ' field'][<i32>word(12)];
  return 'E' + rc.toString() + ' ' + word(8).toString() + ':' + word(9).toString() + ' @' + word(10).toString() + '+' + word(11).toString() + what;
}

/** consumed, lines and rows of the last successful scan. */
export function progress(): string {
  return 'consumed=' + word(0).toString() + ' lines=' + word(1).toString() + ' rows=' + word(4).toString();
}

/** Type conflict details: table, column, have, want. */
export function conflictText(): string {
  const t = String.UTF8.decodeUnsafe(word(13), word(14));
  const c = String.UTF8.decodeUnsafe(word(15), word(16));
  return t + '.' + c + ' ' + word(17).toString() + '->' + word(18).toString();
}

@inline function pad8(base: usize, p: usize): usize {
  return base + ((p - base + 7) & ~(<usize>7));
}

function str(p: usize, n: usize): string {
  return String.UTF8.decodeUnsafe(p, n);
}

const TYPES = ['tag', 'f64', 'i64', 'u64', 'bool', 'str'];

/**
 * The batch of the last scan as text: per table its columns (name:type, `?` when it has a
 * validity), per series its key and rows `ts name=value...`. DOUBLEs left to the host are shown
 * as `fix(<token>)`.
 */
export function printBatch(): string {
  const base = <usize>word(2);
  if (base == 0) return '(no batch)';
  const lines = new Array<string>();
  const tables = load<u32>(base, 8);
  let p = base + 16;
  for (let t: u32 = 0; t < tables; t++) {
    p = pad8(base, p);
    const blockStart = p;
    const rows = <i32>load<u32>(p, 4);
    const seriesCount = load<u32>(p, 8);
    const colCount = <i32>load<u16>(p, 12);
    const nameLen = <usize>load<u16>(p, 14);
    let line = 'table ' + str(p + 16, nameLen);
    p += 16 + nameLen;
    const kinds = new Array<u8>(colCount);
    const types = new Array<u8>(colCount);
    const hasValidity = new Array<bool>(colCount);
    const names = new Array<string>(colCount);
    for (let c = 0; c < colCount; c++) {
      kinds[c] = load<u8>(p);
      types[c] = load<u8>(p, 1);
      hasValidity[c] = (load<u8>(p, 2) & 1) != 0;
      const n = <usize>load<u16>(p, 4);
      names[c] = str(p + 6, n);
      line += ' ' + names[c] + ':' + TYPES[types[c]] + (hasValidity[c] ? '?' : '');
      p += 6 + n;
    }
    lines.push(line);
    p = pad8(base, p);
    const keys = new Array<string>();
    const counts = new Array<i32>();
    for (let s: u32 = 0; s < seriesCount; s++) {
      const count = <i32>load<u32>(p, 16);
      const tagCount = <i32>load<u16>(p, 22);
      const keyLen = <usize>load<u32>(p, 24);
      keys.push(str(p + 28, keyLen));
      counts.push(count);
      p += 28 + keyLen;
      for (let k = 0; k < tagCount; k++) p += 8 + <usize>load<u32>(p, 4);
      p = pad8(base, p);
    }
    const ts = p;
    p += <usize>rows << 3;
    // Field vectors, in column order.
    const valid = new Array<usize>(colCount);
    const values = new Array<usize>(colCount);
    const strBytes = new Array<usize>(colCount);
    for (let c = 0; c < colCount; c++) {
      if (kinds[c] != 2) continue;
      if (hasValidity[c]) {
        valid[c] = p;
        p = pad8(base, p + <usize>rows);
      }
      values[c] = p;
      const type = types[c];
      if (type == 4) {
        p = pad8(base, p + <usize>rows);
      } else if (type == 5) {
        p = pad8(base, p + (((<usize>rows) + 1) << 2));
        strBytes[c] = p;
        p = pad8(base, p + <usize>load<u32>(values[c] + ((<usize>rows) << 2)));
      } else {
        p += <usize>rows << 3;
      }
    }
    let row = 0;
    for (let s = 0; s < keys.length; s++) {
      lines.push('  ' + keys[s]);
      for (let r = 0; r < counts[s]; r++, row++) {
        let text = '    ' + load<i64>(ts + (<usize>row << 3)).toString();
        for (let c = 0; c < colCount; c++) {
          if (kinds[c] != 2) continue;
          if (hasValidity[c] && load<u8>(valid[c] + row) == 0) continue;
          text += ' ' + names[c] + '=' + value(types[c], values[c], strBytes[c], row, base);
        }
        lines.push(text);
      }
    }
    p = blockStart + <usize>load<u32>(blockStart);
  }
  return lines.join('\n');
}

function value(type: u8, at: usize, bytes: usize, row: i32, base: usize): string {
  if (type == 1) {
    const bits = load<u64>(at + (<usize>row << 3));
    const fixup = fixupAt(at + (<usize>row << 3) - base);
    if (fixup != null) return fixup;
    if (bits == 0x8000000000000000) return '-0';
    return reinterpret<f64>(bits).toString();
  }
  if (type == 2) return load<i64>(at + (<usize>row << 3)).toString() + 'i';
  if (type == 3) return load<u64>(at + (<usize>row << 3)).toString() + 'u';
  if (type == 4) return load<u8>(at + row) != 0 ? 'true' : 'false';
  const o = load<u32>(at + (<usize>row << 2));
  const e = load<u32>(at + ((<usize>row + 1) << 2));
  return '"' + str(bytes + o, e - o) + '"';
}

/** `fix(<token>)` if the DOUBLE at batch offset `dest` is left to the host. */
function fixupAt(dest: usize): string | null {
  const list = <usize>word(5);
  const n = word(6);
  for (let i: u32 = 0; i < n; i++) {
    const f = list + <usize>i * 12;
    if (<usize>load<u32>(f, 8) == dest) return 'fix(' + str(inputPtr + load<u32>(f), load<u32>(f, 4)) + ')';
  }
  return null;
}
