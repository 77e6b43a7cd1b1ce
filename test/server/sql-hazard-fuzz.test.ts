// Seeded fuzzing of issue 24's hazards over HTTP: function calls with huge size arguments and
// pathological regular expressions and LIKE patterns over long inputs (test/support/sql-hazards.ts),
// sent by a read-only member. Every answer is a result (200) or a typed refusal (4xx with a
// six-digit code), never a 500 or a dead or frozen server: a ping sent behind each statement
// answers. The query memory limit is 64 MiB, so that refusals come at sizes quick to build.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { createReader, readerStatementWithPing } from '../support/reader-statement.js';
import { mulberry32 as rng } from '../support/rng.js';
import { startServer, type ProcessServer } from '../support/server.js';
import { hugeCallStatement, patternStatement } from '../support/sql-hazards.js';

const SEED = 0x24_2024;
const STATEMENTS = Number(process.env.SUNDIAL_FUZZ_STATEMENTS ?? 150);

describe('huge sizes and pathological patterns over HTTP (issue 24)', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer({ args: ['--query-memory-bytes', '64MiB'] });
    await createReader(server.url);
    // Strings of 1 to 30,000 characters in table t.
    const lines = [1, 2, 30, 300, 3000, 30_000].map((n, i) => `t s="${'a'.repeat(n - 1)}b" ${i + 1}`);
    expect((await writeLp(server.url, lines.join('\n'))).status).toBe(200);
  });
  afterAll(async () => {
    await server.kill();
    server.cleanup();
  });

  for (const [name, generate, seed] of [
    ['function calls with huge size arguments', hugeCallStatement, SEED],
    ['pathological patterns over long inputs', patternStatement, SEED + 1],
  ] as const) {
    it(`answers ${name} with results or typed errors`, async () => {
      const random = rng(seed);
      const statuses = new Map<number, number>();
      for (let i = 0; i < STATEMENTS; i++) {
        const sql = generate(random);
        const r = await readerStatementWithPing(server.url, sql, 60_000);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        expect(r.status, `${sql.slice(0, 300)}\n=> ${r.text.slice(0, 500)}`).toBeLessThan(500);
        if (r.status !== 200)
          expect((JSON.parse(r.text) as { error_code: string }).error_code, sql.slice(0, 300)).toMatch(/^\d{6}$/);
      }
      // Both kinds of answer came up: the generators reach past the limits and within them.
      expect(statuses.get(200)).toBeGreaterThan(0);
      expect(statuses.get(422)).toBeGreaterThan(0);
      expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
    }, 900_000);
  }
});
