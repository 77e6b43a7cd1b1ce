// Issue 24, crashes: no SQL function may end the process or answer 500 by building a huge value.
// Each statement is sent by a read-only member against a fresh server (one that crashed must
// not take the next cases down with it), while a parallel ping checks that the server answers;
// the statement gets 422 010011 naming the function, and the server still answers after it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { createReader, errorOf, readerStatementWithPing } from '../support/reader-statement.js';
import { startServer, type ProcessServer } from '../support/server.js';

interface Case {
  name: string;
  sql: string;
  /** The error_message must match. */
  message: RegExp;
  /** Rows of table `t` (one string field `s` = 'a'), written before the statement. */
  rows?: number;
}

const A200M = "repeat('a', 200000000)";
const CASES: Case[] = [
  // Before: "Fatal JavaScript invalid size error" ended the process.
  {
    name: 'lpad to 2e9 characters',
    sql: "SELECT length(lpad('a', 2000000000))",
    message:
      /^query memory limit exceeded: lpad would build a string of 2000000000 characters, more than the 536870888 a string can hold$/,
  },
  {
    name: 'rpad to 2e9 characters',
    sql: "SELECT length(rpad('a', 2000000000, 'xy'))",
    message: /^query memory limit exceeded: rpad would build a string of 2000000000 characters, more than/,
  },
  {
    name: 'lpad to 3e8 characters',
    sql: "SELECT length(lpad('a', 300000000, 'xy'))",
    message:
      /^query memory limit exceeded: lpad would build a string of 300000000 characters \(600000024 bytes, 0 bytes already held by the query and this batch\), the limit is 536870912 bytes \(limits\.query_memory_bytes\)$/,
  },
  // Before: a minute of heap growth, then the process ended (out of memory).
  {
    name: 'translate growing 2e8 characters',
    sql: `SELECT length(translate(${A200M}, 'a', '😀'))`,
    message: /^query memory limit exceeded: translate would build a string of 400000000 characters/,
  },
  {
    name: 'a global regexp_replace growing a string',
    sql: "SELECT length(regexp_replace(repeat('a', 1000000), 'a', repeat('b', 1000), 'g'))",
    message: /^query memory limit exceeded: regexp_replace would build a string of \d+ characters/,
  },
  // Before: 500 000001 "Invalid string length" (or the process ended on split's array).
  {
    name: 'repeat to 6e8 characters',
    sql: "SELECT length(repeat('a', 600000000))",
    message:
      /^query memory limit exceeded: repeat would build a string of 600000000 characters, more than the 536870888 a string can hold$/,
  },
  {
    name: 'replace growing 1e8 matches',
    sql: "SELECT length(replace(repeat('ab', 100000000), 'a', 'xxx'))",
    message: /^query memory limit exceeded: replace would build a string of 400000000 characters/,
  },
  {
    name: 'array_to_string of two large strings',
    sql: `SELECT length(array_to_string(make_array(${A200M}, ${A200M}), ','))`,
    message: /^query memory limit exceeded: array_to_string would build a string of 400000001 characters/,
  },
  {
    name: 'concat of two large strings',
    sql: `SELECT length(concat(${A200M}, ${A200M}))`,
    message: /^query memory limit exceeded: concat would build a string of 400000000 characters/,
  },
  {
    name: '|| of two large strings',
    sql: `SELECT length(${A200M} || ${A200M})`,
    message: /^query memory limit exceeded: \|\| would build a string of 400000000 characters/,
  },
  // Before: 200 after building 2 GB, one 2 MB string per row, none of them over the limit alone.
  {
    name: 'repeat of 1 MB per row over a batch',
    sql: 'SELECT max(length(repeat(s, 1000000))) FROM t',
    rows: 1000,
    message:
      /^query memory limit exceeded: repeat would build a string of 1000000 characters \(2000024 bytes, \d+ bytes already held by the query and this batch\)/,
  },
  // Before: 200 after holding 600 MB of strings in array_agg's state, counted as 64 bytes a row.
  {
    name: 'array_agg of large strings',
    sql: "SELECT length(array_to_string(array_agg(repeat(s, 30000)), '')) FROM t",
    rows: 10000,
    message: /^query memory limit exceeded: /,
  },
];

for (const c of CASES) {
  describe(`a read-only member's ${c.name} (issue 24)`, () => {
    let server: ProcessServer;
    beforeAll(async () => {
      server = await startServer();
      await createReader(server.url);
      if (c.rows !== undefined) {
        const lines = Array.from({ length: c.rows }, (_, i) => `t s="a" ${i + 1}`).join('\n');
        expect((await writeLp(server.url, lines)).status).toBe(200);
      }
    });
    afterAll(async () => {
      await server.kill();
      server.cleanup();
    });

    it('answers 422 010011 naming the function, and the server keeps answering', async () => {
      const r = await readerStatementWithPing(server.url, c.sql);
      expect(r.status, r.text).toBe(422);
      const body = errorOf(r);
      expect(body.error_code).toBe('010011');
      expect(body.error_message).toMatch(c.message);
      const after = await http(server.url, '/api/v1/sql', { method: 'POST', body: 'SELECT 1 AS one' });
      expect(after.text).toBe('one\n1\n');
    }, 120_000);
  });
}

describe('values within the limit (issue 24)', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer();
    await createReader(server.url);
  });
  afterAll(async () => {
    await server.kill();
    server.cleanup();
  });

  it('builds them, fast constructions included', async () => {
    const r = await readerStatementWithPing(
      server.url,
      "SELECT length(lpad('a', 100000000)) AS l, length(rpad('é', 1000000, 'ab')) AS r, right(lpad('x', 50000000, 'ab'), 3) AS e, length(replace(repeat('ab', 1000000), 'a', 'xyz')) AS p, length(translate(repeat('ab', 1000000), 'ab', 'c')) AS t",
    );
    expect(r.text).toBe('l,r,e,p,t\n100000000,1000000,bax,4000000,1000000\n');
  });
});
