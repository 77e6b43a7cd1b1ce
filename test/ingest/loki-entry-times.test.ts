// Where Loki entries go in time: the next free unit for a distinct row, nothing for a repeat,
// beside occupied slots given as a seed; one series never disturbs another.

import { describe, expect, it } from 'vitest';
import { contentHash, EntryTimes, entrySeriesKey, type Slot } from '../../host/ingest/loki-entry-times.js';

const hash = (line: string, labels: Record<string, string> = {}): number => {
  const fields = [{ name: 'msg', value: line }, ...Object.entries(labels).map(([name, value]) => ({ name, value }))];
  return contentHash(fields, fields.length);
};

interface Case {
  name: string;
  seed?: Slot[];
  rows: Array<[series: string, time: bigint, line: string]>;
  /** Each row's time, or undefined for a repeat. */
  placed: Array<bigint | undefined>;
}

const cases: Case[] = [
  {
    name: 'distinct lines at one time take the following units',
    rows: [
      ['', 10n, 'a'],
      ['', 10n, 'b'],
      ['', 10n, 'c'],
    ],
    placed: [10n, 11n, 12n],
  },
  {
    name: 'a repeat adds nothing, wherever its first copy went',
    rows: [
      ['', 10n, 'a'],
      ['', 10n, 'b'],
      ['', 10n, 'b'],
      ['', 10n, 'a'],
    ],
    placed: [10n, 11n, undefined, undefined],
  },
  {
    name: 'a moved line pushes a later one on',
    rows: [
      ['', 10n, 'a'],
      ['', 10n, 'b'],
      ['', 11n, 'c'],
    ],
    placed: [10n, 11n, 12n],
  },
  {
    name: 'series are apart',
    rows: [
      ['x', 10n, 'a'],
      ['y', 10n, 'b'],
    ],
    placed: [10n, 10n],
  },
  {
    name: 'a seed is occupied',
    seed: [['', 10n, hash('old')]],
    rows: [
      ['', 10n, 'new'],
      ['', 10n, 'old'],
    ],
    placed: [11n, undefined],
  },
];

describe('EntryTimes', () => {
  for (const c of cases) {
    it(c.name, () => {
      const times = new EntryTimes(c.seed);
      expect(c.rows.map(([series, time, line]) => times.place(series, [], time, hash(line)))).toEqual(c.placed);
    });
  }

  it('reports each series with the first and last time it took', () => {
    const times = new EntryTimes();
    times.place('s', [['job', 'a']], 10n, hash('a'));
    times.place('s', [['job', 'a']], 10n, hash('b'));
    times.place('s', [['job', 'a']], 5n, hash('c'));
    expect(times.ranges()).toEqual([{ series: 's', tags: [['job', 'a']], min: 5n, max: 11n }]);
  });

  it('hashes content whatever the order of its fields, and keys series whatever the order of their tags', () => {
    expect(hash('l', { a: '1', b: '2' })).toBe(hash('l', { b: '2', a: '1' }));
    expect(hash('l', { a: '1' })).not.toBe(hash('l', { a: '2' }));
    expect(
      entrySeriesKey([
        ['b', '2'],
        ['a', '1'],
      ]),
    ).toBe(
      entrySeriesKey(
        new Map([
          ['a', '1'],
          ['b', '2'],
        ]),
      ),
    );
    expect(entrySeriesKey([])).toBe('');
  });
});
