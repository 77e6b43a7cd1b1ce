import { it } from 'vitest';
import { testDb } from './support/run-sql.js';
it('scratch', async () => {
  const db = testDb();
  const show = async (sql: string) => { try { const r = await db.run(sql); console.log(sql, '\n', r.columns.join(','), '\n', r.rows.join('\n')); } catch (e) { console.log(sql, 'ERR', (e as Error).message); } };
  await show('SELECT 1, 2, 3, 4');
  await show('SELECT NOT(TRUE)');
  await show("SELECT 'Hello World'");
  await show('SELECT "Hello World"');
  await show('SELECT 2 + 2 * 5');
  await show('SELECT 3.0 / 5');
  await show('SELECT 3 + TRUE');
  await show('SELECT *');
  await show('CREATE TABLE IF NOT EXISTS func_tbl(f0 BIGINT , f1 bigint , TAGS(t0, t1, t2) )');
  await show(`INSERT func_tbl(TIME, f0, f1, t0, t1)
VALUES
    ('1999-12-31 00:00:00.000', 111, 444, 'tag11', 'tag21'),
    ('1999-12-31 00:00:00.005', 222, 444, 'tag12', 'tag22'),
    ('1999-12-31 00:00:00.010', 333, 222, 'tag12', 'tag23'),
    ('1999-12-31 00:00:10.015', 444, 111, 'tag14', 'tag24'),
    ('1999-12-31 00:00:10.020', 222, 555, 'tag14', 'tag21'),
    ('1999-12-31 00:10:00.025', 333, 555, 'tag11', 'tag22'),
    ('1999-12-31 00:10:00.030', 444, 333, 'tag11', 'tag23'),
    ('1999-12-31 01:00:00.035', 555, 222, 'tag14', 'tag24')`);
  await show('select * from func_tbl order by time');
  await show('select count(*), sum(f0), avg(f1), min(time), max(t0) from func_tbl');
  await show('select first(time, f0), t0 from func_tbl group by t0 order by t0');
  await show('select t0, count(*) as c from func_tbl where f0 > 200 group by t0 order by c desc, t0');
  await show("select date_trunc('hour', time) as h, count(*) from func_tbl group by h order by h");
  await show("select date_bin(interval '10 minutes', time) as b, max(f0) from func_tbl group by b order by b");
  await show('explain select t0, f0 from func_tbl where t0 = \'tag11\' and time > \'1999-12-31 00:00:00.001\' limit 3');
  await show('select * from func_tbl where t1 in (select t1 from func_tbl where f0 = 555) order by time');
  await show('select t0, f0, row_number() over (partition by t0 order by time desc) as rn from func_tbl order by t0, rn');
  await show('select * from (select *, row_number() over (partition by t0 order by time desc) as rn from func_tbl) where rn = 1 order by t0');
  await show('with tmp as (select time_window(time, interval \'10 milliseconds\', interval \'6 milliseconds\') as window, * from func_tbl where time < \'1999-12-31 00:00:01\') select * from tmp order by window.start, time');
  await show('select a.t0, b.f0 from func_tbl a join func_tbl b on a.time = b.time and a.f1 > 400 order by a.t0, b.f0');
  await show('describe table func_tbl');
  await show('show series from func_tbl');
  await show('show tag values from func_tbl with key in (t0, t1) order by key, value');
});
