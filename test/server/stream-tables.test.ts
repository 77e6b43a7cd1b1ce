// Stream tables over HTTP (issue 29): CREATE STREAM TABLE over a tskv table and a continuous
// `INSERT INTO sink SELECT ... FROM stream GROUP BY date_bin(...)` that stores each window once the
// watermark (newest event time less watermark_delay) has passed it, leaves out late rows of stored
// windows, and goes on where it stopped after a restart; and every refusal with its code.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
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

const { csv } = sqlChecks(() => server.url);

async function write(lines: string): Promise<void> {
  const r = await http(server.url, '/api/v1/write?db=public&precision=s', { method: 'POST', body: lines });
  expect(r.status, r.text).toBe(200);
}

/** `sql`'s answer once it has `rows` rows (the stream runner turns every second; generous bound). */
async function eventually(sql: string, rows: number): Promise<string> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const text = await csv(sql);
    if (text.trimEnd().split('\n').length - 1 >= rows || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const T0 = 1_704_067_200; // 2024-01-01T00:00:00Z in seconds
const at = (minute: number, second: number): number => T0 + minute * 60 + second;
const window = (sink: string, bin = "date_bin(INTERVAL '1' MINUTE, time, TIMESTAMP '2024-01-01T00:00:00')"): string =>
  `INSERT INTO ${sink} (time, station, max_pressure, avg_temperature, n) SELECT ${bin} AS time, station, max(pressure), avg(temperature), count(pressure) FROM air_stream GROUP BY ${bin}, station`;
const SINK = 'SELECT time, station, max_pressure, avg_temperature, n FROM %s ORDER BY time, station';

describe('a continuous downsampling through a stream table', () => {
  beforeAll(async () => {
    await csv('CREATE TABLE air (pressure DOUBLE, temperature DOUBLE, TAGS(station))');
    await csv(
      "CREATE STREAM TABLE air_stream (time TIMESTAMP, station STRING, pressure DOUBLE, temperature DOUBLE) WITH (db = 'public', table = 'air', event_time_column = 'time') engine = tskv",
    );
    await csv('CREATE TABLE air_1m (max_pressure DOUBLE, avg_temperature DOUBLE, n BIGINT, TAGS(station))');
  });

  it('registers the INSERT over the stream, storing nothing yet', async () => {
    expect(await csv(window('air_1m'))).toBe('rows\n0\n');
    expect(await csv('SHOW TABLES')).toBe('table_name\nair\nair_1m\nair_stream\n');
  });

  it('stores each window the watermark has passed, and only those', async () => {
    await write(
      [
        `air,station=a pressure=10,temperature=1 ${at(0, 5)}`,
        `air,station=a pressure=12,temperature=3 ${at(0, 40)}`,
        `air,station=b pressure=7,temperature=7 ${at(0, 20)}`,
        `air,station=a pressure=11,temperature=5 ${at(1, 30)}`,
        `air,station=a pressure=50,temperature=50 ${at(2, 10)}`,
      ].join('\n'),
    );
    const text = await eventually(SINK.replace('%s', 'air_1m'), 3);
    expect(text).toBe(
      'time,station,max_pressure,avg_temperature,n\n' +
        '2024-01-01T00:00:00.000000000,a,12.0,2.0,2\n' +
        '2024-01-01T00:00:00.000000000,b,7.0,7.0,1\n' +
        '2024-01-01T00:01:00.000000000,a,11.0,5.0,1\n',
    );
  });

  it('leaves out a late row of a stored window, and stores the next window when it closes', async () => {
    await write(
      `air,station=a pressure=999,temperature=999 ${at(0, 30)}\nair,station=a pressure=1,temperature=1 ${at(3, 5)}`,
    );
    const text = await eventually(SINK.replace('%s', 'air_1m'), 4);
    expect(text).toBe(
      'time,station,max_pressure,avg_temperature,n\n' +
        '2024-01-01T00:00:00.000000000,a,12.0,2.0,2\n' +
        '2024-01-01T00:00:00.000000000,b,7.0,7.0,1\n' +
        '2024-01-01T00:01:00.000000000,a,11.0,5.0,1\n' +
        '2024-01-01T00:02:00.000000000,a,50.0,50.0,1\n',
    );
  });

  it('goes on after a restart where it stopped', async () => {
    await server.stop();
    server = await startServer({ inProcess: true, dataDir: server.dataDir });
    await write(`air,station=a pressure=2,temperature=2 ${at(4, 1)}`);
    const text = await eventually(SINK.replace('%s', 'air_1m'), 5);
    // Minute 0 still without the late row: the windows before minute 3 were not computed again.
    expect(text).toBe(
      'time,station,max_pressure,avg_temperature,n\n' +
        '2024-01-01T00:00:00.000000000,a,12.0,2.0,2\n' +
        '2024-01-01T00:00:00.000000000,b,7.0,7.0,1\n' +
        '2024-01-01T00:01:00.000000000,a,11.0,5.0,1\n' +
        '2024-01-01T00:02:00.000000000,a,50.0,50.0,1\n' +
        '2024-01-01T00:03:00.000000000,a,1.0,1.0,1\n',
    );
  });

  it('keeps the watermark watermark_delay behind the newest event time', async () => {
    await csv(
      "CREATE STREAM TABLE air_late WITH (table = 'air', event_time_column = 'time', watermark_delay = '90s') engine = tskv",
    );
    await csv('CREATE TABLE air_late_1m (max_pressure DOUBLE, avg_temperature DOUBLE, n BIGINT, TAGS(station))');
    expect(await csv(window('air_late_1m').replace('FROM air_stream', 'FROM air_late'))).toBe('rows\n0\n');
    // Newest 00:04:01, watermark 00:02:31: minutes 0 and 1 are closed, and minute 0 now has the row that came late for the first query.
    const text = await eventually(SINK.replace('%s', 'air_late_1m'), 3);
    expect(text).toBe(
      'time,station,max_pressure,avg_temperature,n\n' +
        '2024-01-01T00:00:00.000000000,a,999.0,334.3333333333333,3\n' +
        '2024-01-01T00:00:00.000000000,b,7.0,7.0,1\n' +
        '2024-01-01T00:01:00.000000000,a,11.0,5.0,1\n',
    );
  });

  it('stops its queries when the stream table is dropped, leaving source and sink', async () => {
    await csv('DROP TABLE air_late');
    await write(`air,station=a pressure=3,temperature=3 ${at(9, 0)}`);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await csv('SELECT count(*) AS n FROM air_late_1m')).trim()).toBe('n\n3');
    expect(await csv('SHOW TABLES')).toBe('table_name\nair\nair_1m\nair_late_1m\nair_stream\n');
  });
});

describe('stream table refusals', () => {
  const cases: [string, string, string, RegExp][] = [
    [
      'no table option',
      "CREATE STREAM TABLE s1 WITH (event_time_column = 'time') engine = tskv",
      '010066',
      /^Missing option \[table\] of table s1$/,
    ],
    [
      'no event_time_column',
      "CREATE STREAM TABLE s1 WITH (table = 'air') engine = tskv",
      '010061',
      /^Event time column not specified of table s1$/,
    ],
    [
      'another engine',
      "CREATE STREAM TABLE s1 WITH (table = 'air', event_time_column = 'time') engine = kafka",
      '010059',
      /^Unsupported stream type: kafka$/,
    ],
    [
      'a missing source',
      "CREATE STREAM TABLE s1 WITH (table = 'nope', event_time_column = 'time') engine = tskv",
      '010067',
      /^Invalid option \[db \| table\] of table public\.nope: Table not found\.$/,
    ],
    [
      'an event time that is not a time column',
      "CREATE STREAM TABLE s1 WITH (table = 'air', event_time_column = 'pressure') engine = tskv",
      '010067',
      /event_time_column/,
    ],
    [
      'a column the source lacks',
      "CREATE STREAM TABLE s1 (nope DOUBLE) WITH (table = 'air', event_time_column = 'time') engine = tskv",
      '010067',
      /No field named nope/,
    ],
    [
      'an unknown option',
      "CREATE STREAM TABLE s1 WITH (table = 'air', event_time_column = 'time', colour = 'red') engine = tskv",
      '010003',
      /^Semantic error: Unsupported option \[colour\]$/,
    ],
    [
      'a stream query without date_bin',
      'INSERT INTO air_1m (time, station, max_pressure) SELECT time, station, pressure FROM air_stream',
      '010005',
      /without GROUP BY date_bin/,
    ],
    [
      'rows written into a stream table',
      "INSERT INTO air_stream (time, station, pressure) VALUES (1, 'a', 1.0)",
      '010005',
      /the stream table public\.air_stream in this statement/,
    ],
  ];
  for (const [name, sql, code, message] of cases) {
    it(`refuses ${name}`, async () => {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: sql });
      expect(r.status, r.text).toBe(422);
      const body = JSON.parse(r.text) as { error_code: string; error_message: string };
      expect(body.error_code, r.text).toBe(code);
      expect(body.error_message).toMatch(message);
    });
  }

  it('is for admins and tenant owners only', async () => {
    await csv("CREATE USER IF NOT EXISTS stream_member WITH PASSWORD = 'pw'");
    await csv('ALTER TENANT cnosdb ADD USER stream_member AS member');
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: "CREATE STREAM TABLE by_member WITH (table = 'air', event_time_column = 'time') engine = tskv",
      auth: { user: 'stream_member', password: 'pw' },
    });
    expect(r.status, r.text).toBe(422);
    expect(JSON.parse(r.text).error_code).toBe('010004');
  });
});
