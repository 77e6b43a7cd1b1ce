import { describe, expect, it } from 'vitest';
import { parseRfc3339Ns } from '../../host/ingest/rfc3339.js';

const S = 1_000_000_000n;

describe('parseRfc3339Ns', () => {
  const valid: Array<[string, bigint]> = [
    ['1970-01-01T00:00:00Z', 0n],
    ['2024-01-31T12:00:00Z', 1706702400n * S],
    ['2024-01-31T12:00:00.5Z', 1706702400n * S + 500_000_000n],
    ['2024-01-31T12:00:00.123456789Z', 1706702400n * S + 123_456_789n],
    ['2024-01-31T12:00:00.1234567891234Z', 1706702400n * S + 123_456_789n],
    ['2024-01-31T12:00:00,25Z', 1706702400n * S + 250_000_000n],
    ['2024-01-31T13:30:00+01:30', 1706702400n * S],
    ['2024-01-31T10:00:00-0200', 1706702400n * S],
    ['2024-01-31T14:00:00+02', 1706702400n * S],
    ['2024-01-31 12:00:00z', 1706702400n * S],
    ['2024-01-31t12:00:00', 1706702400n * S],
    ['2024-01-31T12:00', 1706702400n * S],
    ['2024-01-31', 1706659200n * S],
    ['2024-02-29T00:00:00Z', 1709164800n * S],
    ['2000-02-29T00:00:00Z', 951782400n * S],
    ['1969-12-31T23:59:59.5Z', -500_000_000n],
    ['1677-09-21T00:12:43.145224192Z', -(2n ** 63n)],
    // ISO 8601's basic format.
    ['20240131T120000Z', 1706702400n * S],
    ['20240131T133000.5+0130', 1706702400n * S + 500_000_000n],
    ['20240131t1200', 1706702400n * S],
    ['20240131', 1706659200n * S],
  ];
  for (const [text, ns] of valid) {
    it(`reads ${text}`, () => expect(parseRfc3339Ns(text)).toBe(ns));
  }

  const invalid: Array<[string, RegExp]> = [
    ['', /not an RFC 3339 time/],
    ['2024-1-31T00:00:00Z', /not an RFC 3339 time/],
    ['2024-13-01T00:00:00Z', /no such date/],
    ['2023-02-29T00:00:00Z', /no such date/],
    ['1900-02-29T00:00:00Z', /no such date/],
    ['2024-04-31T00:00:00Z', /no such date/],
    ['2024-01-31T24:00:00Z', /no such time of day/],
    ['2024-01-31T23:60:00Z', /no such time of day/],
    ['2024-01-31T23:59:60Z', /no such time of day/],
    ['2024-01-31T12:00:00.Z', /not an RFC 3339 time/],
    ['2024-01-31T12:00:00+25:00', /invalid UTC offset/],
    ['2024-01-31T12:00:00Zjunk', /not an RFC 3339 time/],
    ['2024-01-31T12:00:00 ', /not an RFC 3339 time/],
    ['1706702400', /not an RFC 3339 time/],
    ['20240230T000000Z', /'20240230T000000Z' has no such date/],
    ['20240131T1200Zjunk', /not an RFC 3339 time/],
    ['yesterday', /not an RFC 3339 time/],
  ];
  for (const [text, message] of invalid) {
    it(`rejects ${JSON.stringify(text)}`, () => expect(parseRfc3339Ns(text)).toMatch(message));
  }
});
