/// <reference types="@as-pect/assembly/types/as-pect" />
// The scanner stays inside the body: every prefix of a body full of escapes and quotes, and
// seeded random bodies, give success (everything consumed) or an error whose token lies inside
// the body; bytes before the body are never used; bodies fed through small windows and small
// batch limits give the same result as in one call; bad arguments return -1.
import { lp_input, lp_result, lp_scan } from '../lineprotocol/index';
import { Rng } from './codec-support';
import { CONTINUED, LAST, scanAt } from './lp-support';

@inline function word(i: usize): u32 {
  return load<u32>(lp_result() + (i << 2));
}

const NASTY = 'm\\ a\\,b,t\\=k=v\\ 1 s="q\\"x\\\\y\nz",f=-1.5e3,i=-9i,u=7u,b=TRUE 123\r\n# c\n\nm\\ a\\,b s="" -5\n';

/** The UTF-8 bytes of s in raw (non-GC) memory, so that no collection can reuse them mid-test. */
function utf8(s: string): usize {
  const buf = String.UTF8.encode(s);
  const p = heap.alloc(<usize>buf.byteLength + 1);
  memory.copy(p, changetype<usize>(buf), <usize>buf.byteLength);
  return p;
}

/** Checks the result of a final scan of `len` bytes: 0 consumed all, or an error inside the body. */
function checkInside(rc: i32, len: u32): string {
  if (rc < 0) return 'rc ' + rc.toString();
  if (rc == 0) return word(0) == len ? '' : 'consumed ' + word(0).toString() + ' of ' + len.toString();
  if (rc > 25) return 'unknown code ' + rc.toString();
  const end = word(10) + word(11);
  if (end > len) return 'token ends at ' + end.toString() + ' past ' + len.toString();
  if (word(8) < 1 || word(9) < 1) return 'no line or column';
  return '';
}

/** Scans [src, src + len) the way the host does: windows of `window` bytes, batches of at most maxBatch. */
function windowed(src: usize, len: u32, window: u32, maxBatch: u32): string {
  let pos: u32 = 0;
  let flags: u32 = 0;
  let rows: u32 = 0;
  while (pos < len) {
    const n = min(window, len - pos);
    const last = pos + n == len;
    const rc = scanAt(src + pos, n, flags | (last ? LAST : 0), 1, 1, 1000, maxBatch);
    if (rc != 0) return 'E' + rc.toString();
    flags = CONTINUED;
    const consumed = word(0);
    if (consumed == 0) {
      if (last) return 'stuck';
      window *= 2;
      continue;
    }
    rows += word(4);
    pos += consumed;
  }
  return 'rows ' + rows.toString();
}

function oneShot(src: usize, len: u32): string {
  const rc = scanAt(src, len, LAST, 1, 1, 1000, 0xffffffff);
  return rc != 0 ? 'E' + rc.toString() : 'rows ' + word(4).toString();
}

const heapFree = new Array<usize>();

describe('line protocol bounds', () => {
  it('keeps every prefix of a body with escapes and quotes inside the body', () => {
    const src = utf8(NASTY);
    const len = <u32>String.UTF8.byteLength(NASTY);
    for (let n: u32 = 0; n <= len; n++) {
      const problem = checkInside(scanAt(src, n, LAST, 1, 1, 1000, 0xffffffff), n);
      expect<string>(problem).toBe('', 'prefix of ' + n.toString() + ' bytes');
    }
  });

  it('never uses the bytes before the body', () => {
    const window = lp_input(64);
    const body = 'm f=1 5\n';
    const at = window + 16;
    memory.fill(window, 0x5c /* \ */, 16);
    store<u8>(window + 15, 0x0a);
    memory.copy(at, utf8(body), 8);
    expect<i32>(lp_scan(at, 8, LAST, 1, 1, 0, 0xffffffff)).toBe(0);
    expect<u32>(word(0)).toBe(8);
    expect<u32>(word(4)).toBe(1);
    // An error at the first byte points at offset 0 of the body, line 1.
    memory.copy(at, utf8(',f=1 5\n'), 7);
    expect<i32>(lp_scan(at, 7, LAST, 1, 1, 0, 0xffffffff)).toBe(2);
    expect<u32>(word(8)).toBe(1);
    expect<u32>(word(10)).toBe(0);
  });

  it('gives the same result through small windows and small batches (seeded random bodies)', () => {
    const alphabet = 'mf=,, \\"\n\n\r\tt1i2u-.e#xé';
    const chars = new Array<string>();
    for (let i = 0; i < alphabet.length; i++) chars.push(alphabet.charAt(i));
    const r = new Rng(2026);
    let errors = 0;
    let successes = 0;
    for (let t = 0; t < 3000; t++) {
      // Mostly valid lines with random damage, so that both outcomes are common.
      let body = '';
      const lines = 1 + <i32>r.below(5);
      for (let l = 0; l < lines; l++) {
        body += r.below(3) == 0 ? 'm,t=a f=1i' : 'm s="x\\"y",g=2.5 ' + r.below(100).toString();
        const noise = <i32>r.below(3);
        for (let k = 0; k < noise; k++) body += chars[<i32>r.below(chars.length)];
        body += '\n';
      }
      const src = utf8(body);
      const len = <u32>String.UTF8.byteLength(body);
      const whole = oneShot(src, len);
      heapFree.push(src);
      expect<string>(checkInside(scanAt(src, len, LAST, 1, 1, 1000, 0xffffffff), len)).toBe('', body);
      if (whole.startsWith('E')) errors++;
      else successes++;
      const window = 1 + <u32>r.below(24);
      const batch = 1 + <u32>r.below(200);
      expect<string>(windowed(src, len, window, batch)).toBe(whole, body);
    }
    expect<bool>(errors > 300 && successes > 300).toBe(true);
    for (let i = 0; i < heapFree.length; i++) heap.free(heapFree[i]);
  });

  it('ends a batch early at a line boundary when it outgrows the limit', () => {
    const body = 'm f=1 1\nm f=2 2\nm f=3 3\n';
    expect<i32>(scanAt(utf8(body), 24, LAST, 1, 1, 0, 1)).toBe(0);
    expect<u32>(word(0)).toBe(8);
    expect<u32>(word(4)).toBe(1);
  });

  it('rejects bad arguments with -1', () => {
    const window = lp_input(16);
    memory.copy(window, utf8('m f=1\n'), 6);
    expect<i32>(lp_scan(window - 1, 6, LAST, 1, 1, 0, 100)).toBe(-1);
    expect<i32>(lp_scan(window, 1 << 30, LAST, 1, 1, 0, 100)).toBe(-1);
    expect<i32>(lp_scan(window, 6, LAST, 0, 1, 0, 100)).toBe(-1);
    expect<i32>(lp_scan(window, 6, LAST, 10, 10, 0, 100)).toBe(-1);
    expect<i32>(lp_scan(window, 6, 4, 1, 1, 0, 100)).toBe(-1);
    expect<usize>(lp_input(0xffffffff)).toBe(0);
    expect<i32>(lp_scan(window, 6, LAST, 1, 1, 0, 100)).toBe(0);
  });
});
