// The byte-level CSV reading of `sundial import` (host/cli/csv-bytes.ts): which cells are copied
// into line protocol as they are (the rest take the text path, which checks and rewrites them),
// and the scanner's records over chunk boundaries, quotes, CRLF and a byte order mark.

import { describe, expect, it } from 'vitest';
import { CsvScanner, isDecimal, isInteger, isNsTime } from '../../host/cli/csv-bytes.js';

const bytes = (s: string): Buffer => Buffer.from(s);

describe('cells copied as they are', () => {
  const cases: Array<[string, (b: Buffer) => boolean, string[], string[]]> = [
    [
      'BIGINT',
      (b) => isInteger(b, 0, b.length, false, 19),
      ['0', '-12', '123456789012345678'],
      ['', '-', '1.0', '1e3', '+1', '1234567890123456789', ' 1'],
    ],
    ['BIGINT UNSIGNED', (b) => isInteger(b, 0, b.length, true, 20), ['0', '18446744073709551'], ['-1', '', '1x']],
    [
      'DOUBLE',
      (b) => isDecimal(b, 0, b.length),
      ['1', '-1.5', '1e5', '-2E-3', '3.25e+10'],
      ['.5', '-.5', '5.', 'abc', '', '1e', '1e+', '--1', '1.2.3', 'NaN'],
    ],
    [
      'time in ns',
      (b) => isNsTime(b, 0, b.length),
      ['1', '-5', '1700000000000000000', '9223372036854775807'],
      ['0', '09', '9223372036854775808', '12345678901234567890', '1.5', ''],
    ],
  ];
  for (const [name, check, yes, no] of cases)
    it(`takes ${name} cells only in the text the server reads as they are`, () => {
      expect(yes.filter((s) => !check(bytes(s)))).toEqual([]);
      expect(no.filter((s) => check(bytes(s)))).toEqual([]);
    });
});

describe('CsvScanner', () => {
  /** Every record's cells of `text` fed in chunks of `size` bytes. */
  function records(text: string, size: number): string[][] {
    const scan = new CsvScanner(44);
    const input = bytes(text);
    const out: string[][] = [];
    let at = 0;
    let final = false;
    for (;;) {
      const end = scan.record(final);
      if (end < 0) {
        if (at < input.length) {
          scan.append(input.subarray(at, at + size));
          at += size;
        } else if (!final) final = true;
        else if (scan.pending() === 0) break;
        continue;
      }
      if (!scan.blank) out.push([String(scan.line), ...scan.strings()]);
      scan.consume(end);
    }
    return out;
  }

  const TEXT = '\ufeffa,"b,1"\r\n"x\n""y""",2\n\nlast,"open';
  const WANT = [
    ['1', 'a', 'b,1'],
    ['2', 'x\n"y"', '2'],
    ['5', 'last', 'open'],
  ];
  for (const size of [1, 3, 7, 1000])
    it(`reads quoted cells, CRLF, blank lines, a BOM and an unterminated quote in ${size}-byte chunks`, () => {
      expect(records(TEXT, size)).toEqual(WANT);
    });
});
