// InfluxQL SELECT -> Sundial SQL, compared as printed SQL text (STYLE.md §18), against a
// catalog of one measurement; and the statements InfluxDB refuses, with its messages.

import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../host/engine/catalog.js';
import { printStatement } from '../../host/engine/sql/index.js';
import { FLOAT64, INT64, UTF8, timestamp } from '../../host/engine/types/data-types.js';
import { InfluxQLStatementError, parseInfluxQL, planSelect } from '../../host/influxql/index.js';

const cpu: TableInfo = {
  database: 'db',
  name: 'cpu',
  columns: [
    { name: 'time', kind: 'time', type: timestamp(), codec: 'DEFAULT' },
    { name: 'host', kind: 'tag', type: UTF8, codec: 'DEFAULT' },
    { name: 'region', kind: 'tag', type: UTF8, codec: 'DEFAULT' },
    { name: 'value', kind: 'field', type: FLOAT64, codec: 'DEFAULT' },
    { name: 'n', kind: 'field', type: INT64, codec: 'DEFAULT' },
  ],
};

const ctx = {
  catalog: {
    database: (n: string) => (n === 'db' ? { name: 'db', options: {} as never } : undefined),
    tables: () => [cpu],
    table: (_db: string, n: string) => (n === 'cpu' ? cpu : undefined),
  },
  defaultDatabase: 'db',
  nowNs: 1_700_000_100_000_000_000n,
  authorize: () => undefined,
};

function translate(q: string): string[] {
  const s = parseInfluxQL(q)[0]!;
  if (s.kind !== 'select') throw new Error('not a SELECT');
  return planSelect(s, ctx).measurements.map((m) => printStatement(m.query));
}

const T = (s: string): string => `TIMESTAMP '${s}'`;
const BIN = `date_bin(INTERVAL '10000000000 nanoseconds', time, ${T('1970-01-01T00:00:00.000000000Z')})`;

const cases: Array<[string, string, string]> = [
  [
    'raw fields, a tag compared as InfluxDB does (no tag is the empty string)',
    `SELECT value, host FROM cpu WHERE host != 'a' AND region = ''`,
    "SELECT time AS __t, value AS __c0, host AS __c1 FROM db.cpu WHERE (host != 'a' OR host IS NULL) AND region IS NULL AND value IS NOT NULL ORDER BY __t ASC",
  ],
  [
    '* expands to fields and tags; LIMIT goes into the query of one series',
    'SELECT * FROM cpu ORDER BY time DESC LIMIT 3 OFFSET 1',
    'SELECT time AS __t, host AS __c0, n AS __c1, region AS __c2, value AS __c3 FROM db.cpu WHERE n IS NOT NULL OR value IS NOT NULL ORDER BY __t DESC LIMIT 3 OFFSET 1',
  ],
  [
    'GROUP BY a tag orders by it, a series after another',
    'SELECT value FROM cpu GROUP BY host',
    'SELECT time AS __t, host AS __g0, value AS __c0 FROM db.cpu WHERE value IS NOT NULL ORDER BY __g0 ASC NULLS FIRST, __t ASC',
  ],
  [
    'a regex that matches the empty string also matches series without the tag',
    'SELECT value FROM cpu WHERE host =~ /.*/ AND region =~ /^e/',
    "SELECT time AS __t, value AS __c0 FROM db.cpu WHERE (host ~ '.*' OR host IS NULL) AND region ~ '^e' AND value IS NOT NULL ORDER BY __t ASC",
  ],
  [
    "Grafana's GROUP BY time() and tags, time bounds as timestamps",
    'SELECT mean("value") FROM "db"."autogen"."cpu" WHERE time >= now() - 1h AND time <= 1700000000000ms GROUP BY time(10s), "host" fill(null)',
    `SELECT ${BIN} AS __t, host AS __g0, avg(value) AS __c0, count(value) AS __n FROM db.cpu WHERE time >= ${T('2023-11-14T21:15:00.000000000Z')} AND time <= ${T('2023-11-14T22:13:20.000000000Z')} GROUP BY ${BIN}, host ORDER BY __g0 ASC NULLS FIRST, __t ASC`,
  ],
  [
    'aggregates without GROUP BY time: the count of values read tells an empty input',
    'SELECT count(value), spread(n), first(value), percentile(value, 90) * 2 FROM cpu WHERE time > 0',
    `SELECT count(value) AS __c0, max(n) - min(n) AS __c1, first(time, value) AS __c2, approx_percentile_cont(value, 0.9) * 2 AS __c3, count(n) + count(value) AS __n FROM db.cpu WHERE time >= ${T('1970-01-01T00:00:00.000000001Z')}`,
  ],
  [
    'a lone selector keeps its point and its time',
    'SELECT max(value), region FROM cpu GROUP BY host',
    'SELECT __time AS __t, host AS __g0, value AS __c0, region AS __c1 FROM (SELECT time AS __time, host AS host, value AS value, region AS region, row_number() OVER (PARTITION BY host ORDER BY value DESC, time ASC) AS __rn FROM db.cpu WHERE value IS NOT NULL) AS __points WHERE __rn = 1 ORDER BY __g0 ASC NULLS FIRST, __t ASC',
  ],
  [
    'percentile alone is the nearest rank',
    'SELECT percentile(value, 50) FROM cpu',
    'SELECT __time AS __t, value AS __c0 FROM (SELECT time AS __time, value AS value, row_number() OVER (ORDER BY value ASC, time ASC) AS __rn, count(value) OVER () AS __cnt FROM db.cpu WHERE value IS NOT NULL) AS __points WHERE __rn = floor(__cnt * 50 / 100.0 + 0.5) ORDER BY __t ASC',
  ],
  [
    'distinct()',
    'SELECT distinct(n) FROM cpu',
    'SELECT DISTINCT n AS __c0 FROM db.cpu WHERE n IS NOT NULL ORDER BY __c0 ASC',
  ],
  [
    'count(distinct())',
    'SELECT count(distinct(n)) FROM cpu',
    'SELECT count(DISTINCT n) AS __c0, count(n) AS __n FROM db.cpu',
  ],
  [
    'a transformation of buckets reads one bucket before the range',
    "SELECT non_negative_derivative(mean(value), 1s) FROM cpu WHERE time >= '2023-11-14T22:13:25Z' GROUP BY time(10s)",
    `SELECT ${BIN} AS __t, avg(value) AS __c0, count(value) AS __n FROM db.cpu WHERE time >= ${T('2023-11-14T22:13:10.000000000Z')} AND time <= ${T('2023-11-14T22:15:00.000000000Z')} GROUP BY ${BIN} ORDER BY __t ASC`,
  ],
  [
    'time in the select list is the time column',
    'SELECT time, value FROM cpu',
    'SELECT time AS __t, value AS __c0 FROM db.cpu WHERE value IS NOT NULL ORDER BY __t ASC',
  ],
  [
    'a leading (?i) is the case-insensitive match',
    'SELECT value FROM cpu WHERE region =~ /(?i)^EU/ AND host !~ /(?i)B/',
    "SELECT time AS __t, value AS __c0 FROM db.cpu WHERE region ~* '^EU' AND (host !~* 'B' OR host IS NULL) AND value IS NOT NULL ORDER BY __t ASC",
  ],
  [
    'an unknown name reads as NULL',
    'SELECT value FROM cpu WHERE nosuch = 1',
    'SELECT time AS __t, value AS __c0 FROM db.cpu WHERE NULL = 1 AND value IS NOT NULL ORDER BY __t ASC',
  ],
];

describe('planSelect', () => {
  for (const [name, q, sql] of cases) {
    it(`translates ${name}`, () => {
      expect(translate(q)).toEqual([sql]);
    });
  }

  it('reads nothing of a measurement that does not exist', () => {
    expect(translate('SELECT value FROM nosuch')).toEqual([]);
  });
});

const refused: Array<[string, string]> = [
  ['SELECT mean(value), value FROM cpu', 'mixing aggregate and non-aggregate queries is not supported'],
  ['SELECT value FROM cpu GROUP BY time(10s)', 'GROUP BY requires at least one aggregate function'],
  ['SELECT bogus(value) FROM cpu', 'undefined function bogus()'],
  [
    'SELECT integral(value) FROM cpu',
    "unsupported function: integral() (Sundial answers InfluxQL's aggregates, selectors and derivative, difference, moving_average, cumulative_sum)",
  ],
  ['SELECT derivative(value) FROM cpu GROUP BY time(10s)', 'aggregate function required inside the call to derivative'],
  ['SELECT derivative(mean(value)) FROM cpu', 'derivative aggregate requires a GROUP BY interval'],
  [
    'SELECT derivative(mean(value)) * 2 FROM cpu WHERE time > 0 GROUP BY time(10s)',
    'derivative() must be the whole select item (derivative(mean(x)), not derivative(mean(x)) * 2)',
  ],
  ['SELECT moving_average(value, 1) FROM cpu', 'moving_average window must be an integer from 2 to 1000000'],
  ['SELECT percentile(value) FROM cpu', 'invalid number of arguments for percentile, expected 2, got 1'],
  ['SELECT value FROM nodb..cpu', 'database not found: nodb'],
  ['SELECT value INTO other FROM cpu', 'SELECT INTO is not supported'],
  [
    `SELECT value FROM cpu WHERE time > 'yesterday'`,
    "invalid time: 'yesterday' is not an RFC 3339 time (want e.g. 2023-11-14T22:13:20Z)",
  ],
  // Found by influxql-fuzz.test.ts: these threw a RangeError (HTTP 500).
  [
    'SELECT value FROM cpu WHERE time < 1e400',
    'invalid time comparison: want now(), now() - <duration>, an RFC 3339 string or an integer epoch (with a unit, e.g. 1700000000000ms)',
  ],
  [
    'SELECT value FROM cpu WHERE time > now() + 1000000d',
    'time 88100000100000000000 is out of range: nanoseconds since the epoch must fit 64 bits',
  ],
  [
    'SELECT mean(value) FROM cpu WHERE time > 0 GROUP BY time(1ns)',
    'max-select-buckets limit exceeded: (1700000100000000000/1000000)',
  ],
];

describe('planSelect refusals', () => {
  for (const [q, message] of refused) {
    it(`refuses ${q}`, () => {
      let err: unknown;
      try {
        translate(q);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InfluxQLStatementError);
      expect((err as Error).message).toBe(message);
    });
  }
});
