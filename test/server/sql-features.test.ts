// SQL features end to end over HTTP, on data made up here with answers worked out by hand:
// statistical and collection aggregates, gap filling, DROP ... AFTER / RECOVER (the drop is
// never due within the test; test/meta/pending-drops.test.ts moves the clock for that),
// COMPACT DATABASE, ROLLUP / CUBE / GROUPING SETS, GEOMETRY columns with the GIS functions, and data repair.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
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

describe('aggregates', () => {
  // x = 1, 2, 3 in group p and 10 in q: over p the mean is 2 and the squared deviations sum to 2.
  beforeAll(async () => {
    await csv('CREATE TABLE agg (x DOUBLE, n BIGINT, w STRING, TAGS(grp))');
    await csv(
      "INSERT INTO agg (time, grp, x, n, w) VALUES (1, 'p', 1.0, 6, 'u'), (2, 'p', 2.0, 3, 'v'), (3, 'p', 3.0, 5, 'u'), (4, 'q', 10.0, NULL, 'w')",
    );
  });

  it('computes variances, standard deviations and covariances per group', async () => {
    expect(await csv("SELECT var(x), var_pop(x), stddev(x), covar_pop(x, x) FROM agg WHERE grp = 'p'")).toBe(
      'VARIANCE(agg.x),VARIANCE_POP(agg.x),STDDEV(agg.x),"COVARIANCE_POP(agg.x,agg.x)"\n1.0,0.6666666666666666,1.0,0.6666666666666666\n',
    );
    expect(await csv('SELECT grp, var(x), var_pop(x) FROM agg GROUP BY grp ORDER BY grp')).toBe(
      'grp,VARIANCE(agg.x),VARIANCE_POP(agg.x)\np,1.0,0.6666666666666666\nq,,0.0\n',
    );
  });

  it('computes medians and collects values', async () => {
    expect(
      await csv(
        "SELECT median(x), median(n), array_agg(n ORDER BY time DESC), bit_or(n), mode(w) FROM agg WHERE grp = 'p'",
      ),
    ).toBe(
      'MEDIAN(agg.x),MEDIAN(agg.n),ARRAY_AGG(agg.n) ORDER BY [agg.time DESC NULLS FIRST],BIT_OR(agg.n),mode(agg.w)\n2.0,5,"[5, 3, 6]",7,u\n',
    );
  });

  it('refuses a percentile outside [0, 1]', async () => {
    await fails(
      'SELECT approx_percentile_cont(x, 2.0) FROM agg',
      422,
      /Percentile value must be between 0\.0 and 1\.0 inclusive, 2 is invalid/,
    );
  });
});

describe('gap filling', () => {
  // Series a has points at 0 and 20 ms, series b at 10 ms; windows of 10 ms over [0, 40 ms).
  beforeAll(async () => {
    await csv('CREATE TABLE gaps (v DOUBLE, TAGS(k))');
    await csv(
      "INSERT INTO gaps (time, k, v) VALUES ('2020-01-01T00:00:00.000Z', 'a', 1.0), ('2020-01-01T00:00:00.020Z', 'a', 3.0), ('2020-01-01T00:00:00.010Z', 'b', 5.0)",
    );
  });
  const range = "WHERE time >= '2020-01-01T00:00:00Z' AND time < '2020-01-01T00:00:00.040Z'";

  it('interpolates between known windows and leaves the ends NULL', async () => {
    const body = await csv(
      `SELECT k, time_window_gapfill(time, INTERVAL '10 milliseconds') AS w, interpolate(avg(v)) AS v FROM gaps ${range} GROUP BY k, w ORDER BY k, w`,
    );
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
    const body = await csv(
      `SELECT k, time_window_gapfill(time, INTERVAL '10 milliseconds') AS w, locf(avg(v)) AS v FROM gaps ${range} GROUP BY k, w ORDER BY k, w`,
    );
    expect(
      body
        .split('\n')
        .slice(1, 9)
        .map((l) => l.split(',')[2]),
    ).toEqual(['1.0', '1.0', '3.0', '3.0', '', '5.0', '5.0', '5.0']);
  });
});

describe('DROP ... AFTER and RECOVER', () => {
  it('hides a table at once and brings it back with its rows', async () => {
    await csv('CREATE DATABASE later');
    await csv('CREATE TABLE later.obs (v DOUBLE, TAGS(site))');
    await csv("INSERT INTO later.obs (time, site, v) VALUES (1, 'x', 2.5)");
    await csv("DROP TABLE later.obs AFTER '10m'");
    expect(
      await csv(
        "SELECT name, action, try_count, status FROM information_schema.resource_status WHERE name = 'cnosdb-later-obs'",
      ),
    ).toBe('name,action,try_count,status\ncnosdb-later-obs,DropTable,0,Schedule\n');
    await fails('SELECT * FROM later.obs', 422, /Table not found/);
    await csv('RECOVER TABLE later.obs');
    expect(await csv('SELECT site, v FROM later.obs')).toBe('site,v\nx,2.5\n');
  });

  it('reschedules a pending database drop, recovers it, and carries out a plain DROP at once', async () => {
    await csv("DROP DATABASE later AFTER '1h'");
    expect(await csv("SELECT database_name FROM information_schema.databases WHERE database_name = 'later'")).toBe(
      'database_name\n',
    );
    await csv("DROP DATABASE later AFTER '2h'");
    await csv('RECOVER DATABASE later');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'cnosdb-later'")).toBe(
      'status\nCancel\n',
    );
    await csv("DROP DATABASE later AFTER '1h'");
    await csv('DROP DATABASE later');
    expect(
      await csv("SELECT try_count, status FROM information_schema.resource_status WHERE name = 'cnosdb-later'"),
    ).toBe('try_count,status\n1,Successed\n');
    await csv('RECOVER DATABASE IF EXISTS later');
    await fails('RECOVER DATABASE later', 422, /Database not found/);
  });

  it("schedules a plain DROP TENANT by the tenant's drop_after", async () => {
    await csv("CREATE TENANT slow WITH drop_after = '1m'");
    await csv('DROP TENANT slow');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'slow'")).toBe(
      'status\nSchedule\n',
    );
    await csv('RECOVER TENANT slow');
    await csv('ALTER TENANT slow UNSET drop_after');
    await csv('DROP TENANT slow');
    expect(await csv("SELECT status FROM information_schema.resource_status WHERE name = 'slow'")).toBe(
      'status\nSuccessed\n',
    );
  });
});

describe('COMPACT DATABASE', () => {
  it('flushes and merges a database, keeping every row', async () => {
    await csv('CREATE DATABASE packed');
    await csv('CREATE TABLE packed.obs (v BIGINT, TAGS(site))');
    await csv("INSERT INTO packed.obs (time, site, v) VALUES (1, 'x', 1), (2, 'y', 2)");
    expect(await csv('COMPACT DATABASE packed')).toBe('');
    await csv("INSERT INTO packed.obs (time, site, v) VALUES (3, 'x', 3)");
    expect(await csv('COMPACT DATABASE packed')).toBe('');
    expect(await csv('SELECT site, v FROM packed.obs ORDER BY time')).toBe('site,v\nx,1\ny,2\nx,3\n');
  });

  it('refuses a database that does not exist', async () => {
    await fails('COMPACT DATABASE nowhere', 422, /Database not found: "nowhere"/);
  });
});

describe('STRICT_WRITE', () => {
  it('refuses writes that would create a table or a column, and takes the others', async () => {
    await csv("CREATE DATABASE strict WITH STRICT_WRITE 'true'");
    const write = (lp: string) => writeLp(server.url, lp, 'db=strict');
    let r = await write('fresh,h=a v=1 1');
    expect([r.status, r.headers['x-sundial-error-code'], r.headers['x-sundial-error']]).toEqual([
      422,
      '030019',
      'Meta: Table not found: "cnosdb.strict.fresh"',
    ]);
    await csv('CREATE TABLE strict.known (v DOUBLE, TAGS(h))');
    expect((await write('known,h=a v=1 1')).status).toBe(200);
    r = await write('known,h=a v=2,extra=3 2');
    expect([r.status, r.headers['x-sundial-error-code']]).toEqual([422, '020010']);
    expect(r.headers['x-sundial-error']).toMatch(/column 'extra' does not exist in table 'known'/);
    expect(await csv('SHOW TABLES', 'strict')).toBe('table_name\nknown\n');
    expect(await csv('SELECT h, v FROM known', 'strict')).toBe('h,v\na,1.0\n');
  });
});

describe('ROLLUP, CUBE and GROUPING SETS', () => {
  // host is NULL in one row: a real group key, which grouping() tells from a subtotal.
  beforeAll(async () => {
    await csv('CREATE TABLE r (v BIGINT, TAGS(region, host))');
    await csv(
      "INSERT INTO r (time, region, host, v) VALUES (1, 'east', 'h1', 1), (2, 'east', 'h2', 2), (3, 'west', 'h3', 4), (4, 'west', NULL, 8)",
    );
  });

  it('adds subtotals and a total, and grouping() marks them', async () => {
    expect(
      await csv(
        'SELECT region, host, grouping(host) AS gh, sum(v) FROM r GROUP BY ROLLUP (region, host) ORDER BY region NULLS LAST, gh, host NULLS LAST',
      ),
    ).toBe(
      'region,host,gh,SUM(r.v)\neast,h1,0,1\neast,h2,0,2\neast,,1,3\nwest,h3,0,4\nwest,,0,8\nwest,,1,12\n,,1,15\n',
    );
    expect(await csv('SELECT region, count(*) FROM r GROUP BY CUBE (region) ORDER BY region NULLS FIRST')).toBe(
      'region,COUNT(UInt8(1))\n,4\neast,2\nwest,2\n',
    );
    expect(
      await csv(
        'SELECT region, host, sum(v) AS s FROM r GROUP BY GROUPING SETS ((region), (host)) ORDER BY s, region NULLS FIRST, host NULLS FIRST',
      ),
    ).toBe('region,host,s\n,h1,1\n,h2,2\neast,,3\n,h3,4\n,,8\nwest,,12\n');
    expect(await csv('SELECT region, sum(v) AS s FROM r GROUP BY ROLLUP (region) HAVING sum(v) > 3 ORDER BY s')).toBe(
      'region,s\nwest,12\n,15\n',
    );
  });

  it('refuses a grouping set beside other expressions', async () => {
    await fails(
      'SELECT region, host, sum(v) FROM r GROUP BY region, ROLLUP (host)',
      422,
      /^Datafusion: Error during planning: Invalid group by expressions, GroupingSet must be the only expression$/,
    );
  });
});

describe('GEOMETRY columns and GIS functions', () => {
  // Planar geometry: the point (9 9) is 21/sqrt(5) from the triangle's side x + 2y = 6.
  beforeAll(async () => {
    await csv('CREATE TABLE shapes (area geometry(polygon, 0), spot geometry(point, 0), TAGS(name))');
    await csv(
      "INSERT INTO shapes (time, name, area, spot) VALUES (1, 'square', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))', 'POINT(1 1)'), (2, 'triangle', 'POLYGON((0 0, 6 0, 0 3))', 'POINT(9 9)')",
    );
  });

  it('refuses the declarations CnosDB refuses', async () => {
    await fails(
      'CREATE TABLE s2 (g geometry(circle, 0))',
      422,
      /sub_type must be POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, GEOMETRYCOLLECTION$/,
    );
    await fails(
      'CREATE TABLE s2 (g GEOMETRY(POINT, 4326))',
      422,
      /of g, currently only supports 0, Cartesian coordinate system$/,
    );
    await fails('CREATE TABLE s2 (g Geometry(Point))', 422, /of g, format: GEOMETRY\(<sub_type>, <srid>\)$/);
    expect(await csv('DESCRIBE TABLE shapes')).toBe(
      'column_name,data_type,column_type,compression_codec\ntime,TIMESTAMP(NANOSECOND),TIME,DEFAULT\nname,STRING,TAG,DEFAULT\narea,"Geometry(POLYGON, 0)",FIELD,DEFAULT\nspot,"Geometry(POINT, 0)",FIELD,DEFAULT\n',
    );
  });

  it('stores nothing of an INSERT with WKT of another sub type or no WKT at all', async () => {
    await fails(
      "INSERT INTO shapes (time, name, spot) VALUES (3, 'bad', 'POINT(2 2)'), (4, 'bad', 'MULTIPOINT(1 2.5)')",
      422,
      /^Invalid geometry type, error: expect Point, got MultiPoint/,
    );
    await fails(
      "INSERT INTO shapes (time, name, area) VALUES (5, 'bad', 'POLYGON((0 0, 1))')",
      422,
      /Expected a number for the Y coordinate`, expect Polygon, got "POLYGON\(\(0 0, 1\)\)"$/,
    );
    expect(await csv("SELECT count(*) FROM shapes WHERE name = 'bad'")).toBe('COUNT(UInt8(1))\n0\n');
  });

  it('measures, relates and converts stored and literal geometries', async () => {
    expect(
      await csv(
        'SELECT name, ST_Area(area) AS a, ST_Distance(spot, area) AS d, ST_Contains(area, spot) AS c, ST_Within(spot, area) AS w FROM shapes ORDER BY name',
      ),
    ).toBe('name,a,d,c,w\nsquare,16.0,0.0,true,true\ntriangle,9.0,9.391485505499116,false,false\n');
    expect(await csv('SELECT ST_AsBinary(spot) AS b FROM shapes ORDER BY time')).toBe(
      'b\n0101000000000000000000f03f000000000000f03f\n010100000000000000000022400000000000002240\n',
    );
    expect(await csv('SELECT ST_GeomFromWKB(ST_AsBinary(area)) AS g FROM shapes ORDER BY time')).toBe(
      'g\n"POLYGON((0 0,4 0,4 4,0 4,0 0))"\n"POLYGON((0 0,6 0,0 3))"\n',
    );
    expect(
      await csv(
        "SELECT ST_Intersects('LINESTRING(0 0, 2 2)', 'LINESTRING(0 2, 2 0)') AS i, ST_Disjoint('POINT(5 5)', 'LINESTRING(0 0, 1 1)') AS d, ST_Equals('LINESTRING(0 0, 2 0)', 'LINESTRING(2 0, 1 0, 0 0)') AS e",
      ),
    ).toBe('i,d,e\ntrue,true,true\n');
    expect(await csv("SELECT ST_AsBinary('not a geometry') AS b")).toBe('b\n""\n');
  });

  it('refuses unsupported pairs, non-geometries and a wrong argument count', async () => {
    await fails(
      "SELECT ST_Distance('MULTIPOINT(3 3)', 'POLYGON((0 0, 1 0, 0 1, 0 0))')",
      422,
      /Calculating the distance between MULTIPOINT and POLYGON\(\(0\.0 0\.0,1\.0 0\.0,0\.0 1\.0,0\.0 0\.0\)\) is not supported$/,
    );
    await fails('SELECT ST_Area(name) FROM shapes', 422, /processing geometry `Invalid type encountered`$/);
    await fails(
      "SELECT ST_Within('POINT(0 0)')",
      422,
      /The function "ST_Within" expects 2 arguments, but 1 were provided$/,
    );
  });
});

describe('data repair', () => {
  // A flow meter sampling every 5 s, with a late sample (10.4 s) and a lost one (20 s); a well
  // whose depth is NaN (acos(2)) at 10, 30 and 40 ns on the line 0.2 * t - 1.
  beforeAll(async () => {
    await csv('CREATE TABLE flow (rate DOUBLE, TAGS(meter))');
    await csv(
      "INSERT INTO flow (time, meter, rate) VALUES ('2021-03-01T06:00:00', 'm1', 4.0), ('2021-03-01T06:00:05', 'm1', 4.5), ('2021-03-01T06:00:10.400', 'm1', 5.0), ('2021-03-01T06:00:15', 'm1', 5.5), ('2021-03-01T06:00:25', 'm1', 6.5), ('2021-03-01T06:00:30', 'm1', 7.0)",
    );
    await csv('CREATE TABLE level (depth DOUBLE, TAGS(well))');
    await csv(
      "INSERT INTO level (time, well, depth) VALUES (10, 'w1', acos(2)), (20, 'w1', 3.0), (30, 'w1', acos(2)), (40, 'w1', acos(2)), (50, 'w1', 9.0), (60, 'w1', 11.0)",
    );
  });

  it('moves times onto the sampling grid and marks a lost sample NaN', async () => {
    expect(await csv('SELECT timestamp_repair(time, rate) AS r FROM flow')).toBe(
      'time,r\n2021-03-01T06:00:00.000000000,4.0\n2021-03-01T06:00:05.000000000,4.5\n2021-03-01T06:00:10.000000000,5.0\n2021-03-01T06:00:15.000000000,5.5\n2021-03-01T06:00:20.000000000,NaN\n2021-03-01T06:00:25.000000000,6.5\n2021-03-01T06:00:30.000000000,7.0\n',
    );
    // Modulo 10 s the times are mostly 5 s: the grid starts one step before the first time.
    expect(await csv("SELECT timestamp_repair(time, rate, 'interval=10000&start_mode=mode') AS r FROM flow")).toBe(
      'time,r\n2021-03-01T05:59:55.000000000,4.0\n2021-03-01T06:00:05.000000000,4.5\n2021-03-01T06:00:15.000000000,5.5\n2021-03-01T06:00:25.000000000,6.5\n2021-03-01T06:00:35.000000000,7.0\n',
    );
    await fails(
      "SELECT timestamp_repair(time, rate, 'step=5000') FROM flow",
      422,
      /Fail to parse argument: unknown field `step`, expected one of `method`, `interval`, `start_mode`$/,
    );
  });

  it('fills and repairs values', async () => {
    const t = (ns: number): string => `1970-01-01T00:00:00.0000000${ns}`;
    expect(await csv('SELECT value_fill(time, depth) AS v FROM level')).toBe(
      `time,v\n${t(10)},3.0\n${t(20)},3.0\n${t(30)},5.0\n${t(40)},7.0\n${t(50)},9.0\n${t(60)},11.0\n`,
    );
    expect(await csv("SELECT value_fill(time, depth, 'method=previous') AS v FROM level")).toBe(
      `time,v\n${t(10)},NaN\n${t(20)},3.0\n${t(30)},3.0\n${t(40)},3.0\n${t(50)},9.0\n${t(60)},11.0\n`,
    );
    await fails("SELECT value_fill(time, depth, 'method=spline') FROM level", 422, /Invalid fill method: spline$/);
    expect(await csv('SELECT value_repair(time, depth) AS v FROM level')).toBe(
      `time,v\n${t(10)},1.0\n${t(20)},3.0\n${t(30)},5.0\n${t(40)},7.0\n${t(50)},9.0\n${t(60)},11.0\n`,
    );
  });
});
