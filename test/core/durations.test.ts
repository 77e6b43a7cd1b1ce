// CnosDB's durations (host/core/durations.ts): bare days, INF, and humantime's grammar.

import { describe, expect, it } from 'vitest';
import { durationMs, parseCnosDuration } from '../../host/core/durations.js';

const show = (text: string): string => {
  const d = parseCnosDuration(text);
  return d === null ? 'invalid' : d.inf ? 'INF' : `${d.secs}s ${d.nanos}ns`;
};

describe('parseCnosDuration', () => {
  const cases: Array<[string, string]> = [
    // A bare unsigned integer counts days; past u64 seconds it is infinite.
    ['0', '0s 0ns'],
    ['30', '2592000s 0ns'],
    ['+2', '172800s 0ns'],
    ['213503982334601', '18446744073709526400s 0ns'],
    ['213503982334602', 'INF'],
    ['18446744073709551616', 'invalid'],
    ['inf', 'INF'],
    ['INF', 'INF'],
    // humantime: units are case-sensitive; M is a month, m a minute.
    ['1y', '31557600s 0ns'],
    ['2years 1month', '65745216s 0ns'],
    ['2y1M', '65745216s 0ns'],
    ['1m', '60s 0ns'],
    ['1h30m', '5400s 0ns'],
    [' 1 h 30 m ', '5400s 0ns'],
    ['2w', '1209600s 0ns'],
    ['1500ms', '1s 500000000ns'],
    ['3us', '0s 3000ns'],
    ['1500000000ns 1s', '2s 500000000ns'],
    ['1Y', 'invalid'],
    ['1D', 'invalid'],
    ['1.5h', 'invalid'],
    ['-1d', 'invalid'],
    ['1', '86400s 0ns'],
    ['d', 'invalid'],
    ['1h x', 'invalid'],
    ['', 'invalid'],
    ['   ', 'invalid'],
    ['5', '432000s 0ns'],
    ['18446744073709551615s', '18446744073709551615s 0ns'],
    ['18446744073709551615s 1s', 'invalid'],
    ['18446744073709551615d', 'invalid'],
  ];
  for (const [text, want] of cases) it(`reads '${text}' as ${want}`, () => expect(show(text)).toBe(want));
});

describe('durationMs', () => {
  it('truncates to milliseconds, caps at the largest safe integer and is null for INF', () => {
    expect(durationMs(parseCnosDuration('1500us')!)).toBe(1);
    expect(durationMs(parseCnosDuration('7d')!)).toBe(604_800_000);
    expect(durationMs(parseCnosDuration('18446744073709551615s')!)).toBe(Number.MAX_SAFE_INTEGER);
    expect(durationMs(parseCnosDuration('inf')!)).toBeNull();
  });
});
