// CnosDB's time-series functions, UPDATE and window functions end to end over HTTP, on data made
// up here with answers worked out by hand from CnosDB's and DataFusion's documentation.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('time-series functions', () => {
  // h1's counter c reads 10, 15, 3 (a reset), 8, 8: increase 5 + 3 + 5 = 13. Its gauge v reads
  // 1, 3, 2, NULL, 6 over one minute; its state is up for 10 + 10 + 20 s and down for 20 s. h2
  // has one point.
  const DB = 'series_fns';
  beforeAll(async () => {
    await csv(`CREATE DATABASE ${DB} WITH TTL '100000d'`);
    await csv('CREATE TABLE m (v DOUBLE, c BIGINT, st STRING, TAGS(host))', DB);
    await csv(
      "INSERT INTO m (time, host, v, c, st) VALUES ('2024-01-01T00:00:20', 'h1', 2.0, 3, 'down'), ('2024-01-01T00:00:00', 'h1', 1.0, 10, 'up'), ('2024-01-01T00:01:00', 'h1', 6.0, 8, 'up'), ('2024-01-01T00:00:10', 'h1', 3.0, 15, 'up'), ('2024-01-01T00:00:40', 'h1', NULL, 8, 'up'), ('2024-01-01T00:00:00', 'h2', 5.0, 1, 'x')",
      DB,
    );
  });

  it('increase counts through a counter reset', async () => {
    expect(await csv('SELECT host, increase(time, c ORDER BY time) FROM m GROUP BY host ORDER BY host', DB)).toBe(
      'host,"increase(m.time,m.c) ORDER BY [m.time ASC NULLS LAST]"\nh1,13\nh2,0\n',
    );
  });

  it('gauge_agg keeps the first, second, penultimate and last points, and its accessors read them', async () => {
    expect(await csv("SELECT gauge_agg(time, v) FROM m WHERE host = 'h1'", DB)).toBe(
      '"gauge_agg(m.time,m.v)"\n"{first: {ts: 2024-01-01T00:00:00, val: 1.0}, second: {ts: 2024-01-01T00:00:10, val: 3.0}, penultimate: {ts: 2024-01-01T00:00:20, val: 2.0}, last: {ts: 2024-01-01T00:01:00, val: 6.0}, num_elements: 4}"\n',
    );
    expect(
      await csv(
        "SELECT delta(gauge_agg(time, v)), time_delta(gauge_agg(time, v)), idelta_left(gauge_agg(time, v)), idelta_right(gauge_agg(time, v)) FROM m WHERE host = 'h1'",
        DB,
      ),
    ).toBe(
      '"delta(gauge_agg(m.time,m.v))","time_delta(gauge_agg(m.time,m.v))","idelta_left(gauge_agg(m.time,m.v))","idelta_right(gauge_agg(m.time,m.v))"\n5.0,0 years 0 mons 0 days 0 hours 1 mins 0.000000000 secs,2.0,4.0\n',
    );
    expect(
      await csv(
        "SELECT first_val(gauge_agg(time, v)), last_val(gauge_agg(time, v)), first_time(gauge_agg(time, v)), last_time(gauge_agg(time, v)) FROM m WHERE host = 'h1'",
        DB,
      ),
    ).toBe(
      '"first_val(gauge_agg(m.time,m.v))","last_val(gauge_agg(m.time,m.v))","first_time(gauge_agg(m.time,m.v))","last_time(gauge_agg(m.time,m.v))"\n1.0,6.0,2024-01-01T00:00:00.000000000,2024-01-01T00:01:00.000000000\n',
    );
    // One point has no rate.
    expect(await csv("SELECT rate(gauge_agg(time, v)) FROM m WHERE host = 'h2'", DB)).toBe(
      '"rate(gauge_agg(m.time,m.v))"\n""\n',
    );
  });

  it('refuses a gauge accessor over a plain value and gauge_agg over text', async () => {
    await fails('SELECT delta(v) FROM m', 422, /Expected GaugeData, got Float64\(NULL\)/, DB);
    await fails(
      'SELECT gauge_agg(time, st) FROM m',
      422,
      /No function matches the given name and argument types 'gauge_agg\(Timestamp\(Nanosecond, None\), Utf8\)'/,
      DB,
    );
  });

  it('state_agg and compact_state_agg measure time in a state; state_at reads the state at a time', async () => {
    expect(await csv("SELECT duration_in(state_agg(time, st), 'up') FROM m WHERE host = 'h1'", DB)).toBe(
      '"duration_in(state_agg(m.time,m.st),Utf8(""up""))"\n0 years 0 mons 0 days 0 hours 0 mins 40.000000000 secs\n',
    );
    expect(await csv("SELECT duration_in(compact_state_agg(time, st), 'down') FROM m WHERE host = 'h1'", DB)).toBe(
      '"duration_in(compact_state_agg(m.time,m.st),Utf8(""down""))"\n0 years 0 mons 0 days 0 hours 0 mins 20.000000000 secs\n',
    );
    // From 15 s to 45 s h1 is up from 15 to 20 s and from 40 to 45 s: 10 s.
    expect(
      await csv(
        "SELECT duration_in(state_agg(time, st), 'up', TIMESTAMP '2024-01-01T00:00:15', INTERVAL '30 seconds') FROM m WHERE host = 'h1'",
        DB,
      ),
    ).toBe(
      '"duration_in(state_agg(m.time,m.st),Utf8(""up""),Utf8(""2024-01-01T00:00:15""),IntervalMonthDayNano(""30000000000""))"\n0 years 0 mons 0 days 0 hours 0 mins 10.000000000 secs\n',
    );
    expect(
      await csv(
        "SELECT state_at(state_agg(time, st), TIMESTAMP '2024-01-01T00:00:25'), state_at(state_agg(time, st), TIMESTAMP '2024-01-01T00:01:00') FROM m WHERE host = 'h1'",
        DB,
      ),
    ).toBe(
      '"state_at(state_agg(m.time,m.st),Utf8(""2024-01-01T00:00:25""))","state_at(state_agg(m.time,m.st),Utf8(""2024-01-01T00:01:00""))"\ndown,\n',
    );
    await fails(
      "SELECT state_at(compact_state_agg(time, st), TIMESTAMP '2024-01-01T00:00:25') FROM m",
      422,
      /doesn't support compact_agg/,
      DB,
    );
  });

  it('scores data quality: completeness, consistency, timeliness, validity', async () => {
    // 15 points with gaps and a NaN at the end.
    await csv('CREATE TABLE q (value DOUBLE)', DB);
    await csv(
      'INSERT q VALUES (1, 12.34), (3, 34.54), (4, 1.43), (6, 14.03), (10, 12.30), (13, 11.54), (14, 112.20), (16, 14.44), (18, 134.02), (19, 116.34), (22, 1234.45), (24, 10.36), (26, 124.21), (31, 6.34), (33, acos(12345))',
      DB,
    );
    expect(
      await csv(
        'SELECT completeness(time, value), consistency(time, value), timeliness(time, value), validity(time, value) FROM q',
        DB,
      ),
    ).toBe(
      '"completeness(q.time,q.value)","consistency(q.time,q.value)","timeliness(q.time,q.value)","validity(q.time,q.value)"\n0.8235294117647058,0.8666666666666667,0.9333333333333333,0.8\n',
    );
  });
});

describe('UPDATE', () => {
  beforeAll(async () => {
    await csv('CREATE TABLE upd (f0 BIGINT, f1 BIGINT, TAGS(t0, t1))');
    await csv(
      "INSERT INTO upd (time, t0, t1, f0, f1) VALUES ('1999-12-31 00:00:00', 'tag11', 'tag21', 111, 444), ('1999-12-31 00:00:00.005', 'tag12', 'tag22', 222, 444), ('1999-12-31 00:00:10.015', 'tag14', 'tag24', 444, 111), ('1999-12-31 01:00:00.035', 'tag14', 'tag24', 555, 222)",
    );
  });

  it('rewrites fields in place (NULL changes nothing), renames series, and refuses what CnosDB refuses', async () => {
    expect(
      await csv("UPDATE upd SET f0 = 111, f1 = length(t0) + 3 WHERE t0 = 'tag14' AND time < '1999-12-31T00:00:10.020'"),
    ).toBe('rows\n1\n');
    expect(await csv("UPDATE upd SET f1 = NULL WHERE t0 = 'tag14'")).toBe('rows\n2\n');
    await csv("UPDATE upd SET t0 = 'tag_new', t1 = NULL WHERE t0 = 'tag11' AND t1 = 'tag21'");
    await fails(
      "UPDATE upd SET t0 = 'x' WHERE t0 = 'tag12' AND time < '1999-12-31T00:00:10.020'",
      422,
      /^Semantic error: Updating tags: the WHERE clause may only read tag columns, not time$/,
    );
    await fails(
      "UPDATE upd SET t0 = 'x', f0 = 1 WHERE true",
      422,
      /^Semantic error: Update tag and field columns at the same time is not supported$/,
    );
    expect(await csv('SELECT time, t0, t1, f0, f1 FROM upd ORDER BY time, t0, t1')).toBe(
      'time,t0,t1,f0,f1\n1999-12-31T00:00:00.000000000,tag_new,,111,444\n1999-12-31T00:00:00.005000000,tag12,tag22,222,444\n1999-12-31T00:00:10.015000000,tag14,tag24,111,8\n1999-12-31T01:00:00.035000000,tag14,tag24,555,222\n',
    );
    expect(await csv("SELECT count(*) FROM upd WHERE t0 = 'tag11'")).toBe('COUNT(UInt8(1))\n0\n');
  });
});

describe('window functions', () => {
  // Partition a holds 10, 20, 20, 40 at 0, 10, 20 and 40 s; partition b 5 and a NULL.
  const DB = 'series_windows';
  beforeAll(async () => {
    await csv(`CREATE DATABASE ${DB} WITH TTL '100000d'`);
    await csv('CREATE TABLE w (v BIGINT, d DOUBLE, TAGS(g))', DB);
    await csv(
      "INSERT INTO w (time, g, v, d) VALUES ('2024-01-01T00:00:00', 'a', 10, 1.0), ('2024-01-01T00:00:10', 'a', 20, 2.0), ('2024-01-01T00:00:20', 'a', 20, 3.0), ('2024-01-01T00:00:40', 'a', 40, 4.0), ('2024-01-01T00:00:05', 'b', 5, 5.0), ('2024-01-01T00:00:06', 'b', NULL, 6.0)",
      DB,
    );
  });

  it('ranks and distributes rows', async () => {
    expect(
      await csv(
        'SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS rn, rank() OVER (PARTITION BY g ORDER BY v) AS r, dense_rank() OVER (PARTITION BY g ORDER BY v) AS dr FROM w ORDER BY g, time',
        DB,
      ),
    ).toBe('g,v,rn,r,dr\na,10,1,1,1\na,20,2,2,2\na,20,3,2,2\na,40,4,4,3\nb,5,1,1,1\nb,,2,2,2\n');
    expect(
      await csv(
        "SELECT percent_rank() OVER (ORDER BY v) AS pr, cume_dist() OVER (ORDER BY v) AS cd, ntile(3) OVER (ORDER BY v) AS n FROM w WHERE g = 'a' ORDER BY v, time",
        DB,
      ),
    ).toBe('pr,cd,n\n0.0,0.25,1\n0.3333333333333333,0.75,1\n0.3333333333333333,0.75,2\n1.0,1.0,3\n');
  });

  it('reads neighbours: lag, lead with a default, nth_value', async () => {
    expect(
      await csv(
        "SELECT lag(v) OVER (ORDER BY time) AS l, lead(v, 2, -1) OVER (ORDER BY time) AS ld, nth_value(v, 2) OVER (ORDER BY time) AS n FROM w WHERE g = 'a' ORDER BY time",
        DB,
      ),
    ).toBe('l,ld,n\n,20,\n10,40,20\n20,-1,20\n20,-1,20\n');
  });

  it('aggregates over default, ROWS, RANGE and GROUPS frames', async () => {
    expect(
      await csv(
        'SELECT sum(v) OVER (PARTITION BY g ORDER BY time) AS s, count(*) OVER (PARTITION BY g) AS c FROM w ORDER BY g, time',
        DB,
      ),
    ).toBe('s,c\n10,4\n30,4\n50,4\n90,4\n5,2\n5,2\n');
    // The default frame with ORDER BY takes the current row's peers (both 20s).
    expect(await csv('SELECT v, sum(v) OVER (ORDER BY v) AS s FROM w ORDER BY v', DB)).toBe(
      'v,s\n5,5\n10,15\n20,55\n20,55\n40,95\n,95\n',
    );
    expect(
      await csv(
        "SELECT avg(v) OVER (ORDER BY time ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, sum(v) OVER (ORDER BY time RANGE BETWEEN INTERVAL '15 seconds' PRECEDING AND CURRENT ROW) AS r FROM w WHERE g = 'a' ORDER BY time",
        DB,
      ),
    ).toBe('a,r\n15.0,10\n16.666666666666668,30\n26.666666666666668,40\n30.0,40\n');
    expect(
      await csv(
        "SELECT count(*) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c FROM w WHERE g = 'a' ORDER BY v, time",
        DB,
      ),
    ).toBe('c\n1\n3\n3\n3\n');
  });

  it('keeps the newest row of each series as a top-1 per partition', async () => {
    expect(
      await csv(
        'SELECT g, v FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY time DESC) AS rn FROM w) WHERE rn = 1 ORDER BY g',
        DB,
      ),
    ).toBe('g,v\na,40\nb,\n');
  });

  it('refuses a frame that starts at UNBOUNDED FOLLOWING', async () => {
    await fails(
      'SELECT sum(v) OVER (ORDER BY time ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM w',
      422,
      /Invalid window frame: start bound cannot be UNBOUNDED FOLLOWING/,
      DB,
    );
  });
});
