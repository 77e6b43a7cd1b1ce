// The data-repair functions: their algorithms on small series worked out by hand, their option
// strings, and the SQL shape (one row per point of the repaired series, per group).

import { beforeAll, describe, expect, it } from 'vitest';
import {
  timestampRepair,
  valueFill,
  valueRepair,
  type ValueRepairOptions,
} from '../../../host/engine/functions/data-repair.js';
import { parseUrlOptions } from '../../../host/engine/functions/url-options.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const screen: ValueRepairOptions = {
  method: 'screen',
  minSpeed: undefined,
  maxSpeed: undefined,
  center: 0,
  sigma: undefined,
};

describe('timestampRepair', () => {
  // Gaps 1000 1100 900 900 2100: median 1000; every time but one is 0 modulo 1000, so the grid
  // starts at 0 and runs to 6000. 2100 and 3900 move 100 each; 5000 has no point (NaN).
  const t = [0n, 1000n, 2100n, 3000n, 3900n, 6000n];
  const v = [1, 2, 3, 4, 5, 6];

  it('moves times onto the grid and adds the missing points', () => {
    const r = timestampRepair(t, v, { method: 'median', interval: undefined, startMode: 'mode' });
    expect(r.time).toEqual([0n, 1000n, 2000n, 3000n, 4000n, 5000n, 6000n]);
    expect(r.values).toEqual([1, 2, 3, 4, 5, NaN, 6]);
  });

  it('starts a linear grid at the mean offset (truncated)', () => {
    // (0 + 0 + 100 + 0 - 100 + 1000) / 6 = 166
    const r = timestampRepair(t, v, { method: 'median', interval: undefined, startMode: 'linear' });
    expect(r.time[0]).toBe(166n);
    expect(r.time[6]).toBe(6166n);
  });

  it('estimates the interval by k-means over the gaps (3 clusters, the largest wins)', () => {
    // Seeds 1200 1500 1800: four gaps join the first (mean 975), 2100 the last.
    const r = timestampRepair(t, v, { method: 'cluster', interval: undefined, startMode: 'mode' });
    expect(r.time.slice(0, 3)).toEqual([0n, 975n, 1950n]);
  });

  it('takes the most frequent gap as the mode', () => {
    const r = timestampRepair([0n, 500n, 1000n, 1700n, 2000n], [1, 2, 3, 4, 5], {
      method: 'mode',
      interval: undefined,
      startMode: 'mode',
    });
    expect(r.time).toEqual([0n, 500n, 1000n, 1500n, 2000n]);
    expect(r.values).toEqual([1, 2, 3, 4, 5]);
  });

  it('leaves two points or fewer alone', () => {
    expect(timestampRepair([5n, 17n], [1, 2], { method: 'median', interval: 10n, startMode: 'mode' })).toEqual({
      time: [5n, 17n],
      values: [1, 2],
    });
  });
});

describe('valueFill', () => {
  const v = [NaN, 2, NaN, NaN, 8, NaN];
  it.each([
    // Before the first value its value; between values by position; after the last the last.
    ['linear', [2, 2, 4, 6, 8, 8]],
    ['previous', [NaN, 2, 2, 2, 8, 8]],
    ['mean', [5, 2, 5, 5, 8, 5]],
    // The window of the first four values (2 alone) never loses a value before row 3.
    ['ma', [2, 2, 2, 2, 8, 2]],
  ] as const)('fills by %s', (method, expected) => {
    expect(valueFill(v, method)).toEqual(expected);
  });

  it('fills by an AR(1) model', () => {
    // theta = (1*0 + 0*3 + 3*4 + 4*0 + 0*2) / (1 + 0 + 9 + 16 + 0) = 12/26; the mean residual
    // over the one full pair (3, 4) is 4 - 3 theta; row 1 = theta * 1 + that.
    const theta = 12 / 26;
    const eps = 4 - 3 * theta;
    const r = valueFill([1, NaN, 3, 4, NaN, 2], 'ar');
    expect(r[1]).toBeCloseTo(theta + eps, 12);
    expect(r[4]).toBeCloseTo(theta * 4 + eps, 12);
  });

  it('refuses an AR fit without a pair of neighbouring values', () => {
    expect(() => valueFill(v, 'ar')).toThrow('Cannot fit AR(1) model');
  });
});

describe('valueRepair', () => {
  it('screens a value that leaves the median speed band back into it', () => {
    // Speeds 1 1 28 -26 1: median 1, MAD 0, so every step must have speed 1.
    expect(valueRepair([0, 1, 2, 3, 4, 5], [0, 1, 2, 30, 4, 5], screen)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('interpolates missing values by time first', () => {
    expect(valueRepair([0, 10, 30, 40], [0, NaN, 30, 40], screen)).toEqual([0, 10, 30, 40]);
    expect(() => valueRepair([0, 1, 2], [NaN, 1, NaN], screen)).toThrow('At least two non-NaN values are needed');
  });

  it('eases the largest speed change first with lsgreedy, until all are within 3 sigma', () => {
    const r = valueRepair([0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 30, 4, 5, 6, 7], {
      ...screen,
      method: 'lsgreedy',
      sigma: 1,
    });
    expect(r[3]!).toBeLessThan(5);
    expect(r[3]!).toBeGreaterThan(3);
    expect(r.filter((_x, i) => i !== 3)).toEqual([0, 1, 2, 4, 5, 6, 7]);
  });
});

describe('repair option strings', () => {
  it('reads key=value pairs and refuses what serde refuses', () => {
    expect([...parseUrlOptions('method=mode&interval=10+0', ['method', 'interval'])]).toEqual([
      ['method', 'mode'],
      ['interval', '10 0'],
    ]);
    expect(parseUrlOptions('', ['method']).size).toBe(0);
    expect(() => parseUrlOptions('x', ['method'])).toThrow('unknown field `x`, expected `method`');
    expect(() => parseUrlOptions('x=1', ['a', 'b'])).toThrow('unknown field `x`, expected `a` or `b`');
    expect(() => parseUrlOptions('a=1&a=2', ['a', 'b', 'c'])).toThrow('duplicate field `a`');
  });
});

describe('data repair in SQL', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(`CREATE TABLE s (v DOUBLE, n BIGINT, TAGS(g));
INSERT INTO s (time, g, v, n) VALUES
  ('2020-05-01T00:00:00', 'a', 1.5, 1), ('2020-05-01T00:00:02.100', 'a', 2.5, 2), ('2020-05-01T00:00:03', 'a', 3.5, 3), ('2020-05-01T00:00:05', 'a', 5.5, 4),
  ('2020-05-01T00:00:00', 'b', 7.0, 5), ('2020-05-01T00:00:01', 'b', NULL, 6), ('2020-05-01T00:00:02', 'b', 9.0, 7)`);
  });

  it('shows the repaired series as rows of time and value', async () => {
    const r = await db.run("SELECT timestamp_repair(time, v, 'interval=1000') FROM s WHERE g = 'a'");
    expect(r.columns).toEqual(['time', 'timestamp_repair(s.time,s.v,Utf8("interval=1000"))']);
    expect(r.rows).toEqual([
      '2020-05-01T00:00:00 | 1.5',
      '2020-05-01T00:00:01 | NaN',
      '2020-05-01T00:00:02 | 2.5',
      '2020-05-01T00:00:03 | 3.5',
      '2020-05-01T00:00:04 | NaN',
      '2020-05-01T00:00:05 | 5.5',
    ]);
  });

  it('repairs each group on its own', async () => {
    const r = await db.run("SELECT g, value_fill(time, v, 'method=previous') AS filled FROM s GROUP BY g ORDER BY g");
    expect(r.columns).toEqual(['g', 'time', 'filled']);
    expect(r.rows).toEqual([
      'a | 2020-05-01T00:00:00 | 1.5',
      'a | 2020-05-01T00:00:02.100 | 2.5',
      'a | 2020-05-01T00:00:03 | 3.5',
      'a | 2020-05-01T00:00:05 | 5.5',
      'b | 2020-05-01T00:00:00 | 7.0',
      'b | 2020-05-01T00:00:01 | 7.0',
      'b | 2020-05-01T00:00:02 | 9.0',
    ]);
  });

  it('refuses bad options when the query runs and misplaced calls when it is planned', async () => {
    expect(await db.error("SELECT value_repair(time, v, 'method=x') FROM s")).toMatch(
      /^Datafusion: Execution error: Invalid method: x$/,
    );
    expect(await db.error("SELECT timestamp_repair(time, v, 'interval=0') FROM s")).toMatch(
      /interval must be positive$/,
    );
    expect(await db.error("SELECT timestamp_repair(time, v, 'interval=1s') FROM s")).toMatch(
      /Fail to parse argument: invalid digit found in string$/,
    );
    expect(await db.error('SELECT value_fill(time, v, 1, 2) FROM s')).toMatch(
      /The function "value_fill" does not accept 4 function arguments\.$/,
    );
    expect(await db.error('SELECT value_fill(time, v, v) FROM s')).toMatch(
      /No function matches the given name and argument types 'value_fill\(Timestamp\(Nanosecond, None\), Float64, Float64\)'/,
    );
    expect(await db.error('SELECT value_fill(time, v), value_repair(time, v) FROM s')).toMatch(
      /a data repair function must be a select item of its own/,
    );
  });
});
