// npm run bench:pg — round trips over the PostgreSQL port against the same query over
// /api/v1/sql JSON (bench/pg-round-trips.ts has the method). Target: the PostgreSQL port no
// slower than HTTP JSON for the 100,000-row result.
//
// Options: --rows 100000 --runs 200 --big-runs 9

import { parseArgs } from 'node:util';
import { pgRoundTrips, printRoundTrips } from './pg-round-trips.js';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '200' },
    'big-runs': { type: 'string', default: '9' },
  },
});
printRoundTrips(
  await pgRoundTrips({ rows: Number(opts.rows), runs: Number(opts.runs), bigRuns: Number(opts['big-runs']) }),
);
