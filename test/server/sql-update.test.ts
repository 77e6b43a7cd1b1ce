// UPDATE over HTTP as a user sees it (issue 25 "Data first"): a statement that fails changes
// nothing, a WHERE is required, and a tag takes a constant of any type as its text.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

const { csv, fails } = sqlChecks(() => server.url);
const ALL = 'SELECT time, host, rack, v FROM m ORDER BY time, host';
const START = 'time,host,rack,v\n1970-01-01T00:00:00.000001000,a,r1,1.0\n1970-01-01T00:00:00.000002000,b,r1,2.0\n';

beforeEach(async () => {
  await csv('DROP TABLE IF EXISTS m');
  expect((await writeLp(server.url, 'm,host=a,rack=r1 v=1 1000\nm,host=b,rack=r1 v=2 2000', 'db=public')).status).toBe(
    200,
  );
  expect(await csv(ALL)).toBe(START);
});

describe('UPDATE of tags', () => {
  it('stores a boolean literal as its word and renames only the selected series', async () => {
    expect(await csv("UPDATE m SET host = true WHERE host = 'a'")).toBe('rows\n1\n');
    expect(await csv(ALL)).toBe(
      'time,host,rack,v\n1970-01-01T00:00:00.000001000,true,r1,1.0\n1970-01-01T00:00:00.000002000,b,r1,2.0\n',
    );
  });

  it('stores numbers with CAST text and removes a tag set to NULL', async () => {
    expect(await csv("UPDATE m SET host = 7, rack = NULL WHERE host = 'a'")).toBe('rows\n1\n');
    expect(await csv("UPDATE m SET host = 2.5 WHERE host = 'b'")).toBe('rows\n1\n');
    expect(await csv(ALL)).toBe(
      'time,host,rack,v\n1970-01-01T00:00:00.000001000,7,,1.0\n1970-01-01T00:00:00.000002000,2.5,r1,2.0\n',
    );
  });

  it('takes a WHERE computed from tags, which DELETE alone refuses, and changes only what it selects', async () => {
    await fails("DELETE FROM m WHERE host || 'x' = 'ax'", 422, /operator \|\| in delete statement/);
    expect(await csv("UPDATE m SET rack = 'r9' WHERE host || 'x' = 'ax'")).toBe('rows\n1\n');
    expect(await csv(ALL)).toBe(
      'time,host,rack,v\n1970-01-01T00:00:00.000001000,a,r9,1.0\n1970-01-01T00:00:00.000002000,b,r1,2.0\n',
    );
  });

  it('changes nothing when a part of the statement fails', async () => {
    // Each failed before any write, or after the copy was written and before the old series went.
    const cases: [string, RegExp][] = [
      [
        "UPDATE m SET host = 'z' WHERE host = 'a' AND v > 0",
        /^Semantic error: Updating tags: the WHERE clause may only read tag columns, not v$/,
      ],
      ["UPDATE m SET host = CAST('x' AS BIGINT) WHERE host = 'a'", /Cannot cast string 'x' to value of Int64 type/],
      ["UPDATE m SET host = 'z' WHERE host = (SELECT max(host) FROM m)", /not implemented/],
      ["UPDATE m SET host = 'z', nope = 1 WHERE host = 'a'", /^Semantic error: Column nope not found in table m/],
    ];
    for (const [sql, message] of cases) {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
      expect(r.status, `${sql}: ${r.text}`).toBe(422);
      expect((JSON.parse(r.text) as { error_message: string }).error_message, sql).toMatch(message);
      expect(await csv(ALL), sql).toBe(START);
    }
  });
});

describe('UPDATE without WHERE', () => {
  it('is refused with CnosDB code and message, for fields and tags, and WHERE true updates every row', async () => {
    for (const sql of ['UPDATE m SET v = 5', "UPDATE m SET host = 'z'"]) {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
      expect(r.status).toBe(422);
      expect(JSON.parse(r.text)).toEqual({
        error_code: '010001',
        error_message:
          'Datafusion: Error during planning: Disable updating of the entire table, if you want to continue, please add `where true`',
      });
      expect(await csv(ALL)).toBe(START);
    }
    expect(await csv('UPDATE m SET v = 5 WHERE true')).toBe('rows\n2\n');
    expect(await csv("UPDATE m SET rack = 'r2' WHERE true")).toBe('rows\n2\n');
    expect(await csv(ALL)).toBe(
      'time,host,rack,v\n1970-01-01T00:00:00.000001000,a,r2,5.0\n1970-01-01T00:00:00.000002000,b,r2,5.0\n',
    );
  });
});
