// CnosDB 2.4.3's dialect where Sundial differed (issue 25), end to end over HTTP on data made up
// here: cross joins, ORDER BY over select aliases, ARRAY literals, and the functions and system
// databases whose answers follow CnosDB's source.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { sqlChecks } from '../support/sql.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ inProcess: true });
  await csv('CREATE TABLE cpu (usage DOUBLE, TAGS(host))');
  await csv('CREATE TABLE mem (used BIGINT, TAGS(host))');
  await csv("INSERT INTO cpu (time, host, usage) VALUES (1, 'a', 1.5), (2, 'b', 2.5)");
  await csv("INSERT INTO mem (time, host, used) VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
});
afterAll(async () => {
  await server.stop();
  server.cleanup();
});

const { csv, fails } = sqlChecks(() => server.url);

describe('cross joins', () => {
  // CnosDB's RejectCrossJoin rule is never added to its optimizer (c7609432), and its own cases
  // run `SELECT ... FROM a, b`.
  const cases: { name: string; sql: string; want: string }[] = [
    {
      name: 'a comma-separated FROM pairs every row',
      sql: 'SELECT c.host AS ch, m.host AS mh FROM cpu c, mem m ORDER BY ch, mh',
      want: 'ch,mh\na,a\na,b\na,c\nb,a\nb,b\nb,c\n',
    },
    {
      name: 'CROSS JOIN pairs every row',
      sql: 'SELECT count(*) AS n FROM cpu CROSS JOIN mem',
      want: 'n\n6\n',
    },
    {
      name: 'JOIN without ON pairs every row',
      sql: 'SELECT count(*) AS n FROM cpu JOIN mem',
      want: 'n\n6\n',
    },
    {
      name: 'a WHERE comparing both sides makes it an equi-join',
      sql: 'SELECT cpu.host, usage, used FROM cpu, mem WHERE cpu.host = mem.host ORDER BY cpu.host',
      want: 'host,usage,used\na,1.5,10\nb,2.5,20\n',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      expect(await csv(c.sql)).toBe(c.want);
    });
  }

  it('plans a comma join with an equality as a hash join', async () => {
    const plan = await csv('EXPLAIN SELECT cpu.host FROM cpu, mem WHERE cpu.host = mem.host');
    expect(plan).toContain('Inner Join: cpu.host = mem.host');
    expect(plan).toContain('HashJoinExec');
    expect(plan).not.toContain('CrossJoin');
  });

  it('reports planning errors of a cross join as for any query', async () => {
    await fails(
      'SELECT nope FROM cpu, mem',
      422,
      /^Datafusion: Schema error: No field named nope\. Valid fields are cpu\.time, cpu\.host/,
    );
    await fails(
      'SELECT host FROM cpu, mem',
      422,
      /^Datafusion: Schema error: Ambiguous reference to unqualified field host$/,
    );
  });
});

describe('ORDER BY over select aliases', () => {
  // DataFusion 27 plans ORDER BY against the projection: an alias comes before input columns.
  const cases: { name: string; sql: string; want: string }[] = [
    {
      name: 'an alias of one side of a join is not ambiguous',
      sql: 'SELECT c.host AS host, c.usage, m.used FROM cpu c JOIN mem m ON c.host = m.host ORDER BY host DESC',
      want: 'host,usage,used\nb,2.5,20\na,1.5,10\n',
    },
    {
      name: 'an alias beside the other side of the join is the one without a qualifier',
      sql: 'SELECT c.host AS host, m.host FROM cpu c JOIN mem m ON c.host = m.host ORDER BY host DESC',
      want: 'host,host\nb,b\na,a\n',
    },
    {
      name: 'an alias hides an input column of its name',
      sql: 'SELECT host AS h, -used AS host FROM mem ORDER BY host',
      want: 'h,host\nc,-30\nb,-20\na,-10\n',
    },
    {
      name: 'an alias inside an ORDER BY expression',
      sql: "SELECT c.host AS host FROM cpu c JOIN mem m ON c.host = m.host ORDER BY concat(host, 'x') DESC",
      want: 'host\nb\na\n',
    },
    {
      name: 'an alias of an aggregate',
      sql: 'SELECT host, max(used) AS used FROM mem GROUP BY host ORDER BY used DESC',
      want: 'host,used\nc,30\nb,20\na,10\n',
    },
    {
      name: 'an input column that is not selected',
      sql: 'SELECT host AS h FROM mem ORDER BY used DESC',
      want: 'h\nc\nb\na\n',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      expect(await csv(c.sql)).toBe(c.want);
    });
  }

  it('reports a column selected twice as the projection error, before the sort (insert_values.slt)', async () => {
    await fails(
      'SELECT host, used, * FROM mem ORDER BY used',
      422,
      /^Datafusion: Error during planning: Projections require unique expression names but the expression "mem\.host" at position 0 and "mem\.host" at position 3 have the same name\./,
    );
  });

  it('still refuses a bare name two selected columns share', async () => {
    await fails(
      'SELECT c.host, m.host FROM cpu c JOIN mem m ON c.host = m.host ORDER BY host',
      422,
      /^Datafusion: Schema error: Ambiguous reference to unqualified field host$/,
    );
  });
});

describe('ARRAY literals', () => {
  it('reads ARRAY[...] as make_array, named as DataFusion names it', async () => {
    expect(await csv('SELECT ARRAY[1, 2, 3]')).toBe('"make_array(Int64(1),Int64(2),Int64(3))"\n"[1, 2, 3]"\n');
    expect(await csv('SELECT ARRAY[] AS e, [1, 2] = ARRAY[1, 2] AS same')).toBe('e,same\n[],true\n');
  });

  it('passes them to the array functions', async () => {
    expect(
      await csv(
        "SELECT array_length(ARRAY[1, 2, 3]) AS n, array_append(ARRAY[1, 2], 3) AS b, array_concat(ARRAY[1], ARRAY[2.5]) AS c, cardinality(ARRAY[ARRAY[1, 2], ARRAY[3, 4]]) AS d, array_has(ARRAY['x', 'y'], 'y') AS h",
      ),
    ).toBe('n,b,c,d,h\n3,"[1, 2, 3]","[1.0, 2.5]",4,true\n');
  });

  it('keeps array as a column name where no [ follows', async () => {
    await csv('CREATE TABLE arr (array DOUBLE, TAGS(t))');
    await csv("INSERT INTO arr (time, t, array) VALUES (1, 'a', 0.5)");
    expect(await csv('SELECT array FROM arr')).toBe('array\n0.5\n');
  });
});

describe('functions as DataFusion 27 has them', () => {
  it('isnan takes DOUBLE and integers (matched to its Float32 candidate)', async () => {
    expect(
      await csv(
        "SELECT isnan(CAST('NaN' AS DOUBLE)) AS a, isnan(1.5) AS b, isnan(2) AS c, isnan(NULL) AS d, isnan(sqrt(-1.0)) AS e",
      ),
    ).toBe('a,b,c,d,e\ntrue,false,false,,true\n');
    expect(await csv('SELECT isnan(usage) AS n FROM cpu ORDER BY time')).toBe('n\nfalse\nfalse\n');
    await fails(
      "SELECT isnan('x')",
      422,
      /^Datafusion: Error during planning: No function matches the given name and argument types 'isnan\(Utf8\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tisnan\(Float32\)\n\tisnan\(Float64\)$/,
    );
  });

  it('to_timestamp of a DOUBLE fails as its text does not parse (CnosDB to_timestamp.slt)', async () => {
    await fails(
      'SELECT to_timestamp(usage) FROM cpu',
      422,
      /^Arrow: Parser error: Error parsing timestamp from '1\.5': timestamp must contain at least 10 characters$/,
    );
    await fails(
      'SELECT to_timestamp(x) FROM (VALUES (1672539600.987654)) AS v(x)',
      422,
      /^Arrow: Parser error: Error parsing timestamp from '1672539600\.987654': error parsing date$/,
    );
    expect(await csv('SELECT to_timestamp(-9223372038) AS t')).toBe('t\n1969-12-31T23:59:50.776627962\n');
  });
});

describe('error codes as CnosDB numbers them', () => {
  // QueryError 27-46 of query_server/spi (each its own code, "Semantic error: ..." as its template
  // writes it) and MetaError's already-exists numbers; the rest of the semantic checks are 010003.
  const cases: { sql: string; code: string; message: string }[] = [
    {
      sql: 'CREATE TABLE ec (a BIGINT, a DOUBLE)',
      code: '010027',
      message: 'Semantic error: Field or Tag have the same name a',
    },
    {
      sql: 'ALTER TABLE cpu DROP nope',
      code: '010029',
      message: 'Semantic error: Column nope not exists in table cpu',
    },
    {
      sql: 'ALTER TABLE cpu ALTER nope SET CODEC(NULL)',
      code: '010029',
      message: 'Semantic error: Column nope not exists in table cpu',
    },
    { sql: 'ALTER TABLE cpu DROP host', code: '010030', message: "Semantic error: Can't drop tag column host." },
    {
      sql: 'ALTER TABLE cpu DROP usage',
      code: '010032',
      message: 'Semantic error: There must be at least one field column.',
    },
    {
      sql: 'ALTER TABLE cpu DROP time',
      code: '010033',
      message: 'Semantic error: There must be at least one tag column. ',
    },
    {
      sql: 'ALTER TABLE cpu ALTER host SET CODEC(NULL)',
      code: '010034',
      message: 'Semantic error: Tag does not support compression',
    },
    {
      sql: 'ALTER TABLE cpu ALTER time SET CODEC(NULL)',
      code: '010035',
      message: 'Semantic error: Column time does not support modification',
    },
    { sql: 'CREATE TABLE ec (a BOOLE)', code: '010041', message: 'Semantic error: Unexpected data type BOOLE of a, ' },
    {
      sql: 'CREATE TABLE ec (a DOUBLE CODEC(DELTA))',
      code: '010042',
      message: 'Semantic error: Unsupported encoding type Delta for F64',
    },
    {
      sql: 'INSERT INTO cpu (time, nope) VALUES (1, 2)',
      code: '010044',
      message: "Semantic error: Insert column 'nope' does not exist in target table, expect time,host,usage",
    },
    {
      sql: 'INSERT INTO cpu (time, usage) VALUES (1, 2, 3)',
      code: '010045',
      message: 'Semantic error: Insert columns and Source columns not match',
    },
    {
      sql: 'INSERT INTO cpu VALUES (1, 2)',
      code: '010045',
      message: 'Semantic error: Insert columns and Source columns not match',
    },
    {
      sql: 'SHOW SERIES FROM cpu WHERE usage > 1',
      code: '010046',
      message: 'Semantic error: SHOW SERIES does not support where clause contains field usage',
    },
    // Not a numbered variant in CnosDB 2.4.3's answers: its alter_table.slt expects one space.
    {
      sql: 'ALTER TABLE cpu ADD TAG host',
      code: '010003',
      message: 'Semantic error: column host already exists in table cpu',
    },
    { sql: 'CREATE TABLE cpu (usage DOUBLE, TAGS(host))', code: '030020', message: 'Meta: Table cpu already exists.' },
    { sql: 'CREATE DATABASE public', code: '030018', message: 'Meta: Database "public" already exists' },
  ];
  for (const c of cases) {
    it(`answers ${c.code} to ${c.sql}`, async () => {
      const r = await http(server.url, '/api/v1/sql?db=public', { method: 'POST', body: c.sql });
      expect(r.status).toBe(422);
      expect(JSON.parse(r.text)).toEqual({ error_code: c.code, error_message: c.message });
    });
  }
});

describe('case mapping as DataFusion 27 does it', () => {
  it('lower, upper and initcap change ASCII letters only (to_ascii_lowercase / to_ascii_uppercase)', async () => {
    expect(
      await csv(
        "SELECT lower('ÀBÇ Straße') AS l, upper('àbç straße') AS u, initcap('élan vital ÉTÉ') AS i, upper('ΣΑΣ') AS g",
      ),
    ).toBe('l,u,i,g\nÀbÇ straße,àBç STRAßE,éLan Vital ÉTÉ,ΣΑΣ\n');
  });
});

describe('Float32 where DataFusion 27 computes in it', () => {
  // log and atan2 list Float32 first (one_of Exact), so integers are computed in Float32; CnosDB's
  // log.slt and atan2.slt show 0.30102998, 6.0 and 1.2793396. CAST(x AS FLOAT / REAL) is Float32.
  it('computes log and atan2 of integers in Float32, of DOUBLEs in DOUBLE', async () => {
    await csv('CREATE TABLE f32 (n BIGINT, d DOUBLE, TAGS(k))');
    await csv("INSERT INTO f32 (time, k, n, d) VALUES (1, 'a', 2, 2.0), (2, 'b', 1000000, 0.5), (3, 'c', 10, 3.0)");
    expect(
      await csv('SELECT log(n) AS l, log(d) AS ld, atan2(n, 3) AS a, arrow_typeof(log(n)) AS t FROM f32 ORDER BY time'),
    ).toBe(
      'l,ld,a,t\n0.30102998,0.30102999566398114,0.5880026,Float32\n6.0,-0.30102999566398114,1.5707933,Float32\n1.0,0.4771212547196623,1.2793396,Float32\n',
    );
  });

  it('writes Float32 with its own shortest digits in CSV and JSON', async () => {
    expect(
      await csv(
        'SELECT CAST(1.1 AS FLOAT) AS f, CAST(0.1 AS REAL) + 1 AS g, CAST(1.1 AS FLOAT) + 1.0 AS h, CAST(0.000006 AS FLOAT) AS e',
      ),
    ).toBe('f,g,h,e\n1.1,1.1,2.100000023841858,6.0e-6\n');
    const r = await http(server.url, '/api/v1/sql?db=public', {
      method: 'POST',
      body: 'SELECT log(2) AS l, CAST(1.1 AS FLOAT) AS f',
      headers: { accept: 'application/json' },
    });
    expect(r.text).toBe('[{"l":0.30102998,"f":1.1}]');
  });

  it('sorts, compares and aggregates Float32: sum and avg in DOUBLE, min and max in Float32', async () => {
    expect(await csv('SELECT k, log(n) AS l FROM f32 WHERE log(n) > 0.5 ORDER BY log(n) DESC')).toBe(
      'k,l\nb,6.0\nc,1.0\n',
    );
    expect(
      await csv(
        'SELECT max(log(n)) AS mx, min(log(n)) AS mn, arrow_typeof(max(log(n))) AS t, arrow_typeof(sum(log(n))) AS st, arrow_typeof(avg(log(n))) AS at FROM f32',
      ),
    ).toBe('mx,mn,t,st,at\n6.0,0.30102998,Float32,Float64,Float64\n');
  });
});

describe('a time beyond the years Arrow can write', () => {
  // CnosDB's writers display timestamps through chrono (years -262144 to 262143); a nanosecond
  // value in a millisecond table falls outside, and its HTTP answer is HttpError::FetchResult
  // around Arrow's CastError (db_precision.slt expects the same error from its Flight client).
  it('answers 422 040007 instead of a made-up date, in every format', async () => {
    await csv("CREATE DATABASE far WITH PRECISION 'ms'");
    await csv('CREATE TABLE ms_t (value BIGINT, TAGS(str))', 'far');
    await csv("INSERT INTO ms_t (time, str, value) VALUES (1682049219172428000, 'asd', 1)", 'far');
    const message =
      'Fetch result: Cast error: Failed to convert 1682049219172428000 to datetime for Timestamp(Millisecond, None)';
    for (const accept of ['text/csv', 'application/json', 'text/table']) {
      const r = await http(server.url, '/api/v1/sql?db=far', {
        method: 'POST',
        body: 'SELECT * FROM ms_t',
        headers: { accept },
      });
      expect([r.status, JSON.parse(r.text)]).toEqual([422, { error_code: '040007', error_message: message }]);
    }
    expect(await csv('SELECT str, value, CAST(time AS BIGINT) AS t FROM ms_t', 'far')).toBe(
      'str,value,t\nasd,1,1682049219172428000\n',
    );
  });
});
