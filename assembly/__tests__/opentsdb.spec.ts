/// <reference types="@as-pect/assembly/types/as-pect" />
// The OpenTSDB text scanner's boundary: bad arguments return -1; a body is taken whole (or bails
// with 1, keeping nothing) and never read past its end, whatever prefix of it is scanned; a
// small batch limit ends batches early at line ends. The batches themselves are held to the
// TypeScript reference byte for byte in test/ingest/opentsdb-scan.test.ts.
import { tsdb_input, tsdb_result, tsdb_scan } from '../opentsdb/index';

@inline function word(i: usize): u32 {
  return load<u32>(tsdb_result() + (i << 2));
}

const SEC: i64 = 1_000_000_000;
const MS: i64 = 1_000_000;

/** Scans UTF-8 text held in the core's input window; returns the scan's code. */
function scan(body: string, maxBatch: u32 = 0xffffffff, flags: u32 = 0): i32 {
  const buf = String.UTF8.encode(body);
  const len = <usize>buf.byteLength;
  const p = tsdb_input(len);
  memory.copy(p, changetype<usize>(buf), len);
  return tsdb_scan(p, len, flags, SEC, 1, MS, 1, maxBatch);
}

const BODY = 'put cpu.idle 1700000000 98.5 host=a dc=x\r\nmem 1700000000123 -1e3 host=a\n\n\tdisk 1 .5 d=sda\n';

describe('tsdb_scan', () => {
  it('rejects arguments outside the window or with bad factors', () => {
    const p = tsdb_input(16);
    expect(tsdb_scan(p - 1, 4, 0, SEC, 1, MS, 1, 0xffffffff)).toBe(-1);
    expect(tsdb_scan(p, 1 << 30, 0, SEC, 1, MS, 1, 0xffffffff)).toBe(-1);
    expect(tsdb_scan(p, 4, 4, SEC, 1, MS, 1, 0xffffffff)).toBe(-1);
    expect(tsdb_scan(p, 4, 0, 0, 1, MS, 1, 0xffffffff)).toBe(-1);
    expect(tsdb_scan(p, 4, 0, SEC, 2, MS, 1, 0xffffffff)).toBe(-1);
    expect(tsdb_scan(p, 4, 0, SEC, 1, MS, 0, 0xffffffff)).toBe(-1);
  });

  it('takes a whole body: three rows in three tables', () => {
    expect(scan(BODY)).toBe(0);
    expect(word(0)).toBe(<u32>String.UTF8.byteLength(BODY));
    expect(word(3)).toBe(3);
    expect(word(2)).toBeGreaterThan(0);
  });

  it('bails on every prefix that cuts a line, and takes every prefix that does not', () => {
    for (let n = 0; n <= BODY.length; n++) {
      const prefix = BODY.slice(0, n);
      const rc = scan(prefix);
      // A prefix is a valid body when it ends at a line end, in a blank line, or at the end of
      // a tag list (then the line is whole; cutting inside a tag pair leaves `k=` or `k`).
      expect(rc == 0 || rc == 1).toBe(true, prefix);
      if (rc == 0) expect(word(0)).toBe(<u32>String.UTF8.byteLength(prefix), prefix);
    }
  });

  it('ends a full batch at a line end and goes on from there', () => {
    expect(scan(BODY, 1)).toBe(0);
    expect(word(3)).toBe(1); // one row, then the batch is full
    expect(word(0)).toBe(<u32>String.UTF8.byteLength('put cpu.idle 1700000000 98.5 host=a dc=x\r\n'));
  });

  it('bails on invalid UTF-8 and on a timestamp of 14 digits without a precision', () => {
    const p = tsdb_input(8);
    store<u8>(p, 0x6d);
    store<u8>(p + 1, 0x20);
    store<u8>(p + 2, 0xff);
    expect(tsdb_scan(p, 3, 0, SEC, 1, MS, 1, 0xffffffff)).toBe(1);
    expect(scan('m 17000000001234 1 k=v')).toBe(1);
    // With a precision (ns into ns here) any length in the i64 range goes; seconds would overflow.
    const body = String.UTF8.encode('m 17000000001234 1 k=v');
    const q = tsdb_input(<usize>body.byteLength);
    memory.copy(q, changetype<usize>(body), <usize>body.byteLength);
    expect(tsdb_scan(q, <usize>body.byteLength, 2, 1, 1, MS, 1, 0xffffffff)).toBe(0);
    expect(scan('m 17000000001234 1 k=v', 0xffffffff, 2)).toBe(1);
  });

  it('leaves a line without tags to the reference parser, which refuses it', () => {
    expect(scan('m 1700000000 1 k=v\n')).toBe(0);
    expect(scan('m 1700000000 1\n')).toBe(1);
    expect(scan('m 1700000000 1   \n')).toBe(1);
  });
});
