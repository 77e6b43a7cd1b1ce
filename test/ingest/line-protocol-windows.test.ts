// Windowing: a body scanned through a small window (and batches cut by size) yields the same
// points as one window, with global line numbers and type checks across windows.
import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { readWriteBatch } from '../../host/core/write-batch.js';
import { bytes, encode, f, hex, i, NS, printAll, pt, rowsBySeries, s, scanner, type Point } from './lp-support.js';

/** The wrapper's windowing, for bodies without quoted newlines: lines grouped per batch. */
function expectedGroups(lines: string[], windowBytes: number): number[][] {
  const groups: number[][] = [];
  const total = lines.reduce((n, l) => n + l.length, 0);
  let pos = 0;
  let next = 0;
  let w = windowBytes;
  while (pos < total) {
    const n = Math.min(w, total - pos);
    const last = pos + n === total;
    const group: number[] = [];
    let used = 0;
    while (
      next < lines.length &&
      used + lines[next]!.length <= n - (last ? 0 : 0) &&
      (last || used + lines[next]!.length <= n)
    ) {
      const complete = lines[next]!.endsWith('\n') || last;
      if (!complete) break;
      used += lines[next]!.length;
      group.push(next++);
    }
    if (used === 0) {
      w *= 2;
      continue;
    }
    groups.push(group);
    pos += used;
  }
  return groups;
}

describe('LineProtocolScanner windows', () => {
  it('cuts a body into one batch per window of complete lines', async () => {
    const points: Point[] = [];
    const lines: string[] = [];
    for (let k = 0; k < 40; k++) {
      points.push(pt('m', [['h', `h${k % 3}`]], BigInt(k), f('v', k)));
      lines.push(`m,h=h${k % 3} v=${k} ${k}\n`);
    }
    for (const windowBytes of [16, 33, 100, 257]) {
      const sc = await scanner({ windowBytes });
      const got = sc.scan(bytes(lines.join('')), NS);
      const want = expectedGroups(lines, windowBytes).flatMap((g) => encode(g.map((k) => points[k]!)));
      expect(got.length).toBeGreaterThan(1);
      expect(printAll(got)).toBe(printAll(want));
      expect(hex(got)).toEqual(hex(want));
    }
  });

  it('grows the window for a line longer than it', async () => {
    const long = `m,t=${'x'.repeat(300)} s="${'y'.repeat(500)}",v=1i 5\n`;
    const body = bytes(`m v=1i 1\n${long}m v=2i 2\n`);
    const one = (await scanner()).scan(body, NS);
    const tiny = (await scanner({ windowBytes: 8 })).scan(body, NS);
    expect(rowsBySeries(tiny)).toBe(rowsBySeries(one));
    expect(tiny.length).toBe(2); // the grown window keeps its size for the rest of the body
  });

  it('keeps a quoted newline across every window boundary', async () => {
    const body = bytes('m s="ab\ncd\n\nef" 1\nm,t=a s="x\ny",n=2i 2\n# c\nm s="\n" 3');
    const want = rowsBySeries((await scanner()).scan(body, NS));
    for (let windowBytes = 1; windowBytes <= body.length; windowBytes++) {
      const got = (await scanner({ windowBytes })).scan(body, NS);
      for (const batch of got) readWriteBatch(batch);
      expect(rowsBySeries(got), `window ${windowBytes}`).toBe(want);
    }
  });

  it('reports global line numbers from later windows', async () => {
    const body = bytes(`${'m v=1i 1\n'.repeat(49)}m v="unterminated\nx\n`);
    for (const windowBytes of [7, 64, 1 << 20]) {
      const sc = await scanner({ windowBytes });
      expect(() => sc.scan(body, NS)).toThrow(
        new UserError('lineProtocol', "line 50, column 5: unterminated quoted string, found '\"unterminated\\nx\\n'"),
      );
    }
  });

  it('catches a type conflict between windows at its line', async () => {
    const body = bytes(`${'m,h=a v=1i 1\n'.repeat(20)}m,h=b w=1,v=1.5 2\n`);
    const sc = await scanner({ windowBytes: 32 });
    expect(() => sc.scan(body, NS)).toThrow(
      new UserError(
        'schemaConflict',
        "line 21, column 11: column 'v' of table 'm' is BIGINT in this request, written as DOUBLE",
      ),
    );
  });

  it('catches tag against field between windows', async () => {
    const body = bytes('m,h=a v=1 1\nm h=2 2\n');
    const sc = await scanner({ windowBytes: 12 });
    expect(() => sc.scan(body, NS)).toThrow(
      new UserError(
        'schemaConflict',
        "line 2, column 3: column 'h' of table 'm' is TAG in this request, written as DOUBLE",
      ),
    );
  });

  it('ends a batch early when it grows past maxBatchBytes', async () => {
    const body = bytes(
      Array.from({ length: 300 }, (_, k) => `m,h=${k % 7} v=${k}i,s="${'z'.repeat(k % 5)}" ${k}\n`).join(''),
    );
    const one = (await scanner()).scan(body, NS);
    const small = (await scanner({ maxBatchBytes: 2000 })).scan(body, NS);
    expect(one.length).toBe(1);
    expect(small.length).toBeGreaterThan(3);
    expect(rowsBySeries(small)).toBe(rowsBySeries(one));
  });

  it('ends a batch before a line whose new columns would widen every row past the limit', async () => {
    const narrow = Array.from({ length: 100 }, (_, k) => `m a=${k}i ${k}\n`).join('');
    const wide = `m ${Array.from({ length: 50 }, (_, k) => `c${k}=${k}i`).join(',')} 100\n`;
    const sc = await scanner({ maxBatchBytes: 4000 });
    const got = sc.scan(bytes(narrow + wide), NS);
    expect(got.map((x) => readWriteBatch(x).rowCount)).toEqual([100, 1]);
    const points: Point[] = Array.from({ length: 100 }, (_, k) => pt('m', [], BigInt(k), i('a', BigInt(k))));
    expect(hex(got.slice(0, 1))).toEqual(hex(encode(points)));
    expect(hex(got.slice(1))).toEqual(
      hex(encode([pt('m', [], 100n, ...Array.from({ length: 50 }, (_, k) => i(`c${k}`, BigInt(k))))])),
    );
  });

  it('puts one very wide first line in a batch of its own', async () => {
    const wide = `m ${Array.from({ length: 3000 }, (_, k) => `c${k}=${k}i`).join(',')} 1\nm c0=1i 2\n`;
    const got = (await scanner({ maxBatchBytes: 100 })).scan(bytes(wide), NS);
    expect(got.map((x) => readWriteBatch(x).rowCount)).toEqual([1, 1]);
  });

  it('scans strings and fixups in later windows', async () => {
    const body = bytes(`${'m v=1e23,s="a\\"b" 1\n'.repeat(30)}`);
    const got = (await scanner({ windowBytes: 50 })).scan(body, NS);
    const want = encode(Array.from({ length: 30 }, () => pt('m', [], 1n, f('v', 1e23), s('s', 'a"b'))));
    expect(rowsBySeries(got)).toBe(rowsBySeries(want));
  });
});
