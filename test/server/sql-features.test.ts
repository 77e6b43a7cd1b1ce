// SQL features end to end over HTTP, on data made up here with answers worked out by hand:
// statistical and collection aggregates, gap filling, and DROP ... AFTER / RECOVER (the drop is
// never due within the test; test/storage/pending-drops.test.ts moves the clock for that).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

async function csv(sql: string, db = 'public'): Promise<string> {
  const r = await http(server.url, `/api/v1/sql?db=${db}`, { method: 'POST', body: sql });
  expect(r.status, `${sql}: ${r.text}`).toBe(200);
  return r.text;
}

async function fails(sql: string, status: number, message: RegExp, db = 'public'): Promise<void> {
  const r = await http(server.url, `/api/v1/sql?db=${db}`, { method: 'POST', body: sql });
  expect(r.status, r.text).toBe(status);
  expect((JSON.parse(r.text) as { error_message: string }).error_message).toMatch(message);
}

describe('aggregates', () => {
  // x = 1, 2, 3 in group p and 10 in q: over p the mean is 2 and the squared deviations sum to 2.
  beforeAll(async () => {
    await csv('CREATE TABLE agg (x DOUBLE, n BIGINT, w STRING, TAGS(grp))');
    await csv("INSERT INTO agg (time, grp, x, n, w) VALUES (1, 'p', 1.0, 6, 'u'), (2, 'p', 2.0, 3, 'v'), (3, 'p', 3.0, 5, 'u'), (4, 'q', 10.0, NULL, 'w')");
  });

  it('computes variances, standard deviations and covariances per group', async () => {
    expect(await csv("SELECT var(x), var_pop(x), stddev(x), covar_pop(x, x) FROM agg WHERE grp = 'p'")).toBe(
      'VARIANCE(agg.x),VARIANCE_POP(agg.x),STDDEV(agg.x),"COVARIANCE_POP(agg.x,agg.x)"\n1.0,0.6666666666666666,1.0,0.6666666666666666\n',
    );
    expect(await csv('SELECT grp, var(x), var_pop(x) FROM agg GROUP BY grp ORDER BY grp')).toBe('grp,VARIANCE(agg.x),VARIANCE_POP(agg.x)\np,1.0,0.6666666666666666\nq,,0.0\n');
  });

  it('computes medians and collects values', async () => {
    expect(await csv("SELECT median(x), median(n), array_agg(n ORDER BY time DESC), bit_or(n), mode(w) FROM agg WHERE grp = 'p'")).toBe(
      'MEDIAN(agg.x),MEDIAN(agg.n),ARRAY_AGG(agg.n) ORDER BY [agg.time DESC NULLS FIRST],BIT_OR(agg.n),mode(agg.w)\n2.0,5,"[5, 3, 6]",7,u\n',
    );
  });

  it('refuses a percentile outside [0, 1]', async () => {
    await fails('SELECT approx_percentile_cont(x, 2.0) FROM agg', 422, /Percentile value must be between 0\.0 and 1\.0 inclusive, 2 is invalid/);
  });
});

describe('gap filling', () => {
  // Series a has points at 0 and 20 ms, series b at 10 ms; windows of 10 ms over [0, 40 ms).
  beforeAll(async () => {
    await csv('CREATE TABLE gaps (v DOUBLE, TAGS(k))');
    await csv("INSERT INTO gaps (time, k, v) VALUES ('2020-01-01T00:00:00.000Z', 'a', 1.0), ('2020-01-01T00:00:00.020Z', 'a', 3.0), ('2020-01-01T00:00:00.010Z', 'b', 5.0)");
  });
  const range = "WHERE time >= '2020-01-01T00:00:00Z' AND time < '2020-01-01T00:00:00.040Z'";

  it('interpolates between known windows and leaves the ends NULL', async () => {
    const body = await csv(`SELECT k, time_window_gapfill(time, INTERVAL '10 milliseconds') AS w, interpolate(avg(v)) AS v FROM gaps ${range} GROUP BY k, w ORDER BY k, w`);
    expect(body.split('\n').slice(1, 9)).toEqual([
      'a,2020-01-01T00:00:00.000000000,1.0',
      'a,2020-01-01T00:00:00.010000000,2.0',
      'a,2020-01-01T00:00:00.020000000,3.0',
      'a,2020-01-01T00:00:00.030000000,',
      'b,2020-01-01T00:00:00.000000000,',
      'b,2020-01-01T00:00:00.010000000,5.0',
      'b,2020-01-01T00:00:00.020000000,',
      'b,2020-01-01T00:00:00.030000000,',
    ]);
  });

  it('carries the last value forward', async () => {
    const body = await csv(`SELECT k, time_window_gapfill(time, INTERVAL '10 milliseconds') AS w, locf(avg(v)) AS v FROM gaps ${range} GROUP BY k, w ORDER BY k, w`);
    expect(body.split('\n').slice(1, 9).map((l) => l.split(',')[2])).toEqual(['1.0', '1.0', '3.0', '3.0', '', '5.0', '5.0', '5.0']);
  });
});

describe('DROP ... AFTER and RECOVER', () => {
  it('hides a table at once and brings it back with its rows', async () => {
    await csv('CREATE DATABASE later');
    await csv('CREATE TABLE later.obs (v DOUBLE, TAGS(site))');
    await csv("INSERT INTO later.obs (time, site, v) VALUES (1, 'x', 2.5)");
    await csv("DROP TABLE later.obs AFTER '10m'");
    expect(await csv("SELECT name, action, try_count, status FROM information_schema.resource_status WHERE name = 'cnosdb-later-obs'")).toBe(
      'name,action,try_count,status\ncnosdb-later-obs,DropTable,0,Schedule\n',
    );
    await fails('SELECT * FROM later.obs', 422, /Table not found/);
    await csv('RECOVER TABLE later.obs');
    expect(await csv('SELECT site, v FROM later.obs')).toBe('site,v\nx,2.5\n');
  });

  it('reschedules a pending database drop, recovers it, and carries out a plain DROP at once', async () => {
    await csv("DROP DATABASE later AFTER '1h'");
    expect(await csv("SELECT database_name FROM information_schema.databases WHERE database_name = 'later'")).toBe('database_name\n');
    await csv("DROP DATABASE later AFTER '2h'");
    await csv('RECOVER DATABASE later');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'cnosdb-later'")).toBe('status\nCancel\n');
    await csv("DROP DATABASE later AFTER '1h'");
    await csv('DROP DATABASE later');
    expect(await csv("SELECT try_count, status FROM information_schema.resource_status WHERE name = 'cnosdb-later'")).toBe('try_count,status\n1,Successed\n');
    await csv('RECOVER DATABASE IF EXISTS later');
    await fails('RECOVER DATABASE later', 422, /Database not found/);
  });

  it("schedules a plain DROP TENANT by the tenant's drop_after", async () => {
    await csv("CREATE TENANT slow WITH drop_after = '1m'");
    await csv('DROP TENANT slow');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'slow'")).toBe('status\nSchedule\n');
    await csv('RECOVER TENANT slow');
    await csv('ALTER TENANT slow UNSET drop_after');
    await csv('DROP TENANT slow');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'slow'")).toBe('status\nSuccessed\n');
  });
});
