// The InfluxQL parser: the statements clients send, parsed to the expected tree, and syntax
// errors worded as InfluxDB words them (found X, expected Y at line L, char C).

import { describe, expect, it } from 'vitest';
import { InfluxQLParseError, parseInfluxQL } from '../../host/influxql/index.js';

const text = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

const cases: Array<{ name: string; q: string; want: unknown }> = [
  { name: 'SHOW DATABASES', q: 'SHOW DATABASES', want: [{ kind: 'showDatabases' }] },
  {
    name: 'several statements, empty ones skipped',
    q: 'SHOW DATABASES;; SHOW USERS;',
    want: [{ kind: 'showDatabases' }, { kind: 'showUsers' }],
  },
  {
    name: 'CREATE DATABASE with a duration',
    q: 'CREATE DATABASE "my db" WITH DURATION 7d REPLICATION 1 SHARD DURATION 1h NAME "rp"',
    want: [{ kind: 'createDatabase', name: 'my db', durationNs: 604_800_000_000_000n }],
  },
  {
    name: 'SHOW MEASUREMENTS with a regex and LIMIT',
    q: 'show measurements with measurement =~ /c\\/pu.*/ limit 2 offset 1',
    want: [{ kind: 'showMeasurements', sources: [], limit: 2, offset: 1, match: { op: '=~', value: 'c/pu.*' } }],
  },
  {
    name: 'SHOW TAG VALUES WITH KEY IN and WHERE',
    q: `SHOW TAG VALUES ON "db" FROM "cpu" WITH KEY IN ("host", region) WHERE "dc" = 'x'`,
    want: [
      {
        kind: 'showTagValues',
        keys: { op: '=', keys: ['host', 'region'] },
        sources: [{ name: 'cpu' }],
        condition: {
          kind: 'binary',
          op: '=',
          left: { kind: 'varRef', name: 'dc' },
          right: { kind: 'string', value: 'x' },
        },
        database: 'db',
      },
    ],
  },
  {
    name: 'SHOW TAG VALUES WITH KEY =~',
    q: 'SHOW TAG VALUES WITH KEY =~ /h.*/',
    want: [{ kind: 'showTagValues', keys: { op: '=~', regex: 'h.*' }, sources: [] }],
  },
  {
    name: 'SHOW RETENTION POLICIES ON db',
    q: 'SHOW RETENTION POLICIES ON "telegraf"',
    want: [{ kind: 'showRetentionPolicies', database: 'telegraf' }],
  },
  {
    name: 'an unsupported statement parses alone',
    q: "CREATE USER x WITH PASSWORD 'y'; SHOW DATABASES",
    want: [{ kind: 'unsupported', what: 'CREATE USER' }, { kind: 'showDatabases' }],
  },
  {
    name: "Grafana's query",
    q: `SELECT mean("value") FROM "db"."autogen"."cpu" WHERE ("host" =~ /^a$/) AND time >= now() - 6h and time <= 1700000000000ms GROUP BY time(10s, -2s), "host" fill(previous) ORDER BY time DESC LIMIT 5 SLIMIT 2`,
    want: [
      {
        kind: 'select',
        fields: [{ expr: { kind: 'call', name: 'mean', args: [{ kind: 'varRef', name: 'value' }] } }],
        sources: [{ database: 'db', retentionPolicy: 'autogen', name: 'cpu' }],
        dimensions: [
          { kind: 'time', intervalNs: 10_000_000_000n, offsetNs: -2_000_000_000n },
          { kind: 'tag', name: 'host' },
        ],
        fill: { kind: 'previous' },
        fillWritten: true,
        descending: true,
        condition: {
          kind: 'binary',
          op: 'AND',
          left: {
            kind: 'binary',
            op: 'AND',
            left: {
              kind: 'paren',
              expr: {
                kind: 'binary',
                op: '=~',
                left: { kind: 'varRef', name: 'host' },
                right: { kind: 'regex', pattern: '^a$' },
              },
            },
            right: {
              kind: 'binary',
              op: '>=',
              left: { kind: 'varRef', name: 'time' },
              right: {
                kind: 'binary',
                op: '-',
                left: { kind: 'call', name: 'now', args: [] },
                right: { kind: 'duration', ns: 21_600_000_000_000n, text: '6h' },
              },
            },
          },
          right: {
            kind: 'binary',
            op: '<=',
            left: { kind: 'varRef', name: 'time' },
            right: { kind: 'duration', ns: 1_700_000_000_000_000_000n, text: '1700000000000ms' },
          },
        },
        limit: 5,
        slimit: 2,
      },
    ],
  },
  {
    name: 'math, aliases, casts, wildcards, a regex source and fill with a number',
    q: 'SELECT "value"::field * 2 + 1 AS v, *::tag FROM db..cpu, /^m/ GROUP BY * fill(-1.5)',
    want: [
      {
        kind: 'select',
        fields: [
          {
            expr: {
              kind: 'binary',
              op: '+',
              left: {
                kind: 'binary',
                op: '*',
                left: { kind: 'varRef', name: 'value', type: 'field' },
                right: { kind: 'integer', value: 2n },
              },
              right: { kind: 'integer', value: 1n },
            },
            alias: 'v',
          },
          { expr: { kind: 'wildcard', type: 'tag' } },
        ],
        sources: [{ database: 'db', name: 'cpu' }, { regex: '^m' }],
        dimensions: [{ kind: 'wildcard' }],
        fill: { kind: 'value', value: -1.5 },
        fillWritten: true,
        descending: false,
      },
    ],
  },
  {
    name: 'comments, quoted names with escapes, a string with a quote',
    q: `-- a comment\nSELECT "a \\"b\\"" /* inline */ FROM m WHERE t = 'it\\'s'`,
    want: [
      {
        kind: 'select',
        fields: [{ expr: { kind: 'varRef', name: 'a "b"' } }],
        sources: [{ name: 'm' }],
        dimensions: [],
        fill: { kind: 'null' },
        fillWritten: false,
        descending: false,
        condition: {
          kind: 'binary',
          op: '=',
          left: { kind: 'varRef', name: 't' },
          right: { kind: 'string', value: "it's" },
        },
      },
    ],
  },
];

describe('parseInfluxQL', () => {
  for (const c of cases) {
    it(`parses ${c.name}`, () => {
      expect(text(parseInfluxQL(c.q))).toBe(text(c.want));
    });
  }
});

const errors: Array<[string, string]> = [
  [
    'SELEC * FROM cpu',
    'found SELEC, expected SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL at line 1, char 1',
  ],
  ['SELECT * FROM', 'found EOF, expected identifier, regex at line 1, char 14'],
  ['SELECT bogus( FROM cpu', 'found FROM, expected identifier, string, number, bool at line 1, char 15'],
  ['SHOW TAG VALUES', 'found EOF, expected WITH at line 1, char 16'],
  ['SELECT mean(v) FROM m GROUP BY time(10s) fill(bogus)', 'expected number argument in fill() at line 1, char 47'],
  ['SELECT v FROM m ORDER BY v', 'only ORDER BY time supported at this time at line 1, char 26'],
  ['SELECT v FROM m WHERE v =~ 5', 'found 5, expected regex at line 1, char 28'],
  ['SELECT v FROM m\nWHERE x = "', 'unterminated quoted identifier at line 2, char 11'],
  ['SELECT v FROM m LIMIT -1', 'found -, expected integer at line 1, char 23'],
  ['SELECT v FROM m GROUP BY time(0s)', 'time dimension must have a positive interval at line 1, char 26'],
  ['SHOW DATABASES SHOW USERS', 'found SHOW, expected ; at line 1, char 16'],
];

describe('parseInfluxQL errors', () => {
  for (const [q, message] of errors) {
    it(`refuses ${JSON.stringify(q)}`, () => {
      let err: unknown;
      try {
        parseInfluxQL(q);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InfluxQLParseError);
      expect((err as Error).message).toBe(message);
    });
  }

  it('refuses nesting past its depth limit instead of overflowing the stack', () => {
    expect(() => parseInfluxQL(`SELECT ${'('.repeat(5000)}v${')'.repeat(5000)} FROM m`)).toThrow(
      /nested deeper than 200/,
    );
  });
});
