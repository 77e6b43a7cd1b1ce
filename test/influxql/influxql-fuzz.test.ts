// Seeded fuzzing of the InfluxQL front end: queries clients send, mutated (bytes dropped,
// doubled, swapped for InfluxQL's punctuation and words), never crash the parser or the
// translator: each one parses and plans, or fails with InfluxQL's own parse or statement error.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import type { TableInfo } from '../../host/engine/catalog.js';
import { FLOAT64, INT64, UTF8, timestamp } from '../../host/engine/types/data-types.js';
import { InfluxQLParseError, InfluxQLStatementError, parseInfluxQL, planSelect } from '../../host/influxql/index.js';
import { mulberry32 } from '../support/rng.js';

const cpu: TableInfo = {
  database: 'db',
  name: 'cpu',
  columns: [
    { name: 'time', kind: 'time', type: timestamp(), codec: 'DEFAULT' },
    { name: 'host', kind: 'tag', type: UTF8, codec: 'DEFAULT' },
    { name: 'value', kind: 'field', type: FLOAT64, codec: 'DEFAULT' },
    { name: 'n', kind: 'field', type: INT64, codec: 'DEFAULT' },
  ],
};
const ctx = {
  catalog: {
    database: (n: string) => (n === 'db' ? { name: 'db', options: {} as never } : undefined),
    tables: () => [cpu],
    table: (_d: string, n: string) => (n === 'cpu' ? cpu : undefined),
  },
  defaultDatabase: 'db',
  nowNs: 1_700_000_000_000_000_000n,
  authorize: () => undefined,
};

const SEEDS = [
  `SELECT mean("value") FROM "db"."autogen"."cpu" WHERE ("host" =~ /^a$/) AND time >= now() - 6h and time <= 1700000000000ms GROUP BY time(10s, 2s), "host" fill(previous) ORDER BY time DESC LIMIT 5 SLIMIT 2`,
  `SELECT non_negative_derivative(max(value), 1s), count(distinct(n)) FROM cpu WHERE host != 'b' OR n > 3 GROUP BY time(1m), * fill(linear)`,
  `SELECT value * 2 + n, host, percentile(value, 95) FROM /c.*/ WHERE time > '2023-11-14T22:13:20Z' LIMIT 10 OFFSET 2; SHOW TAG VALUES WITH KEY IN ("host") WHERE host = 'a'`,
  `SHOW MEASUREMENTS WITH MEASUREMENT =~ /cp.*/ LIMIT 1; SHOW FIELD KEYS FROM cpu; CREATE DATABASE "x" WITH DURATION 1d; SHOW RETENTION POLICIES ON db`,
];
const PIECES = [
  '(',
  ')',
  ',',
  ';',
  '.',
  '"',
  "'",
  '/',
  '=~',
  '!~',
  '::',
  '*',
  '-',
  ' AND ',
  ' OR ',
  ' SELECT ',
  ' FROM ',
  ' GROUP BY ',
  'time',
  'fill(',
  '1h',
  '9223372036854775807',
  '1e400',
  '\\',
  '\n',
  'µ',
];

function mutate(text: string, rnd: () => number): string {
  let s = text;
  const edits = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rnd() * (s.length + 1));
    const r = rnd();
    if (r < 0.35) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rnd() * 5));
    else if (r < 0.7) s = s.slice(0, at) + PIECES[Math.floor(rnd() * PIECES.length)] + s.slice(at);
    else s = s.slice(0, at) + s.slice(at, at + 8) + s.slice(at);
  }
  return s;
}

describe('InfluxQL fuzz', () => {
  it('parses and plans 3000 mutated queries or fails with its own errors', () => {
    const rnd = mulberry32(20261129);
    let planned = 0;
    for (let i = 0; i < 3000; i++) {
      const q = mutate(SEEDS[i % SEEDS.length]!, rnd);
      try {
        for (const s of parseInfluxQL(q)) {
          if (s.kind !== 'select') continue;
          try {
            planSelect(s, ctx);
            planned++;
          } catch (e) {
            if (!(e instanceof InfluxQLStatementError) && !(e instanceof UserError))
              throw new Error(`planning ${JSON.stringify(q)} threw ${String(e)}`, { cause: e });
          }
        }
      } catch (e) {
        if (!(e instanceof InfluxQLParseError))
          throw new Error(`parsing ${JSON.stringify(q)} threw ${String(e)}`, { cause: e });
      }
    }
    // The mutations leave many queries valid: the planner is exercised, not only the parser's errors.
    expect(planned).toBeGreaterThan(50);
  });
});
