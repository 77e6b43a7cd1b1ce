import { defineConfig } from 'vitest/config';

// Three tiers (CONTRIBUTING.md, "Tests"): `unit` runs in about a minute and needs no server;
// `http` starts real servers and talks HTTP; `slow` kills, fuzzes, replays CnosDB's cases and
// drives outside programs. `npm test` runs all three; `npm run test:unit` is the quick loop.

/** Files that start a server or another program and take long: each is here for a reason. */
const SLOW = [
  // SIGKILL, fault injection and damaged files: processes killed, restarted and checked.
  'test/server/crash.test.ts',
  'test/server/damaged-segments.test.ts',
  'test/server/disk-full.test.ts',
  'test/server/failed-writes.test.ts',
  'test/server/file-modes.test.ts',
  'test/server/lifecycle.test.ts',
  'test/server/traces-wal.test.ts',
  'test/server/wal-repair.test.ts',
  'test/storage/ddl-kill.test.ts',
  'test/storage/flush-compaction-crash.test.ts',
  'test/storage/segment/corruption.test.ts',
  // Fuzzers and randomized comparisons against a reference.
  'test/server/fuzz.test.ts',
  'test/server/ingest-fuzz.test.ts',
  'test/server/pgwire-fuzz.test.ts',
  'test/server/sql-hazard-fuzz.test.ts',
  'test/engine/sql/fuzz.test.ts',
  'test/engine/storage-vs-memory.test.ts',
  'test/engine/types/kernels.test.ts',
  'test/storage/random-ops.test.ts',
  'test/storage/read/series-index.test.ts',
  'test/storage/tiny-series.test.ts',
  // Big statements, warm-ups and long-running queries.
  'test/server/query-warmup.test.ts',
  'test/server/sql-value-sizes.test.ts',
  'test/server/usage-schema.test.ts',
  'test/server/**/*.slow.test.ts',
  // Other programs: the sundial command, Bun and Deno, CnosDB's sqllogictest cases, Chromium.
  'test/cli/**/*.test.ts',
  'test/runtimes/**/*.test.ts',
  'test/conformance/conformance.test.ts',
  'test/sandbox/browser.test.ts',
];

/** Files that start a real server and talk to it over HTTP (or PostgreSQL's protocol). */
const HTTP = ['test/server/**/*.test.ts', 'test/readme.test.ts', 'test/node/library.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The built server that test/support/server.ts runs in process loads as Node loads it in the
    // child process: not through Vite's transform (18 s of a 62 s run of one file, measured).
    server: { deps: { external: [/\/dist\/host\//] } },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...HTTP, ...SLOW] } },
      { extends: true, test: { name: 'http', include: HTTP, exclude: SLOW } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
