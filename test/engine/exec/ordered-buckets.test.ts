// ORDER BY every group column of a time-bucket aggregate (in any order) is answered by the
// aggregate itself, which emits its groups in that order, with no sort above it. Each ordering
// must give exactly the rows of the general sort: the same ORDER BY with one more key (a
// non-group column, which ties never reach since groups are distinct) keeps the SortExec.

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

const MIN = 60_000_000_000n;

/** Series over two tags, some without `region` (NULL), rows over 50 minutes out of time order. */
function setup(): string {
  const rows: string[] = [];
  let x = 7;
  for (let i = 0; i < 400; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const host = `h${x % 7}`;
    const region = x % 5 === 0 ? 'NULL' : `'r${x % 3}'`;
    rows.push(
      `(${BigInt(x % 3000) * 1_000_000_000n}, '${host}', ${region}, ${x % 1000}, ${((x % 977) / 10).toFixed(1)})`,
    );
  }
  return `CREATE TABLE cpu (n BIGINT, u DOUBLE, TAGS(host, region));
INSERT INTO cpu (time, host, region, n, u) VALUES ${rows.join(', ')}`;
}

const orders = [
  'host, t',
  'host DESC, t',
  'host, t DESC',
  'region, host, t',
  'region DESC NULLS LAST, host ASC NULLS FIRST, t DESC',
  'region NULLS FIRST, host DESC, t',
  'host, region DESC, t',
  't, host',
  't DESC, host DESC',
  't, region DESC NULLS LAST, host',
  'region NULLS FIRST, t DESC, host',
  'host DESC, t, region',
];

describe('a time-bucket aggregate ordered by its group columns', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(setup());
  });

  for (const order of orders) {
    const groups = order.includes('region') ? 'host, region' : 'host';
    const sql = `SELECT ${groups}, date_bin(INTERVAL '10 minutes', time) AS t, avg(u) AS a, max(n) AS m, count(*) AS c FROM cpu WHERE time >= 0 AND time < ${60n * MIN} GROUP BY ${groups}, t`;
    it(`emits the rows of the general sort: ORDER BY ${order}`, async () => {
      const ordered = await db.run(`${sql} ORDER BY ${order}`);
      const sorted = await db.run(`${sql} ORDER BY ${order}, a`);
      expect(ordered.rows.length).toBeGreaterThan(20);
      expect(ordered.rows).toEqual(sorted.rows);
      expect((await db.run(`${sql} ORDER BY ${order} LIMIT 7`)).rows).toEqual(sorted.rows.slice(0, 7));
      const plan = (await db.run(`EXPLAIN ${sql} ORDER BY ${order}`)).rows.join('\n');
      expect(plan).toContain('order=[');
      expect(plan).not.toContain('SortExec');
    });
  }

  it('orders the buckets of one series when there is no tag group', async () => {
    const sql = `SELECT date_bin(INTERVAL '1 minute', time) AS t, min(u) FROM cpu WHERE host = 'h3' GROUP BY t`;
    for (const dir of ['', ' DESC']) {
      const ordered = await db.run(`${sql} ORDER BY t${dir}`);
      expect(ordered.rows).toEqual((await db.run(`${sql} ORDER BY t${dir}, min(u)`)).rows);
      expect(ordered.rows.length).toBeGreaterThan(20);
    }
  });

  it('keeps the sort when the order leaves a group column out or names another column', async () => {
    const sql = `SELECT host, region, date_bin(INTERVAL '10 minutes', time) AS t, count(*) FROM cpu GROUP BY host, region, t`;
    for (const order of ['host, t', 't, host', 'count(*)', 'host, region, t, count(*)']) {
      const plan = (await db.run(`EXPLAIN ${sql} ORDER BY ${order}`)).rows.join('\n');
      expect(plan, order).toContain('SortExec');
      expect(plan, order).not.toContain('order=[');
    }
  });

  it('sorts what the general aggregate produces when a predicate sends it there', async () => {
    // A predicate on a field is not a time bound or a tag test: the operator hands over at run time.
    const sql = `SELECT host, date_bin(INTERVAL '10 minutes', time) AS t, sum(n) AS s FROM cpu WHERE u > 20 GROUP BY host, t`;
    const ordered = await db.run(`${sql} ORDER BY host DESC, t`);
    expect(ordered.rows).toEqual((await db.run(`${sql} ORDER BY host DESC, t, s`)).rows);
    expect(ordered.rows.length).toBeGreaterThan(20);
  });
});
