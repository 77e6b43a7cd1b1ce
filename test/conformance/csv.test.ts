// The runner's CSV reader (server-client.ts), used to recover NaN and infinities that JSON
// answers carry as null.

import { describe, expect, it } from 'vitest';
import { parseCsv } from './server-client.js';

describe('parseCsv', () => {
  it('splits records and fields, with quoted commas, quotes and newlines', () => {
    expect(parseCsv('a,b,c\n1,"x,y","say ""hi"""\r\n,"two\nlines",NaN\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x,y', 'say "hi"'],
      ['', 'two\nlines', 'NaN'],
    ]);
  });

  it('reads a last record without a line end, and nothing from an empty text', () => {
    expect(parseCsv('inf,-inf')).toEqual([['inf', '-inf']]);
    expect(parseCsv('')).toEqual([]);
  });

  it('refuses an unterminated quote', () => {
    expect(() => parseCsv('"abc')).toThrow('CSV: unterminated quoted field');
  });
});
