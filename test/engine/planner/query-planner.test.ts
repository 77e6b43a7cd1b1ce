// The planner, compared as printed plans (DataFusion's display_indent): what a query becomes
// before and after the optimizer, and the planning errors, with CnosDB's texts.

import { beforeAll, describe, expect, it } from 'vitest';
import { CPU_TABLE, initialPlan, optimizedPlan } from '../support/plan-text.js';
import { testDb, type TestDb } from '../support/run-sql.js';

const ROW_NUMBER =
  'ROW_NUMBER() PARTITION BY [cpu.host] ORDER BY [cpu.time DESC NULLS FIRST] RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW';

const plans: { name: string; sql: string; initial?: string; optimized: string }[] = [
  {
    name: 'filters, sort and limit: predicates into the scan, a top-k, only the read columns',
    sql: "SELECT host, usage FROM cpu WHERE host = 'a' AND time >= '2024-01-01' AND usage > 1 ORDER BY time DESC LIMIT 10",
    initial: `Limit: skip=0, fetch=10
  Projection: cpu.host, cpu.usage
    Sort: cpu.time DESC NULLS FIRST
      Projection: cpu.host, cpu.usage, cpu.time
        Filter: cpu.host = Utf8("a") AND cpu.time >= CAST(Utf8("2024-01-01") AS Timestamp(Nanosecond, None)) AND cpu.usage > CAST(Int64(1) AS Float64)
          TableScan: cpu projection=[time, host, region, usage, count, note]`,
    optimized: `Limit: skip=0, fetch=10
  Projection: cpu.host, cpu.usage
    Sort: cpu.time DESC NULLS FIRST, fetch=10
      Projection: cpu.host, cpu.usage, cpu.time
        TableScan: cpu projection=[time, host, usage], full_filters=[cpu.host = Utf8("a"), cpu.time >= TimestampNanosecond(1704067200000000000, None), cpu.usage > Float64(1)]`,
  },
  {
    name: 'GROUP BY a select alias, ORDER BY it',
    sql: "SELECT host, date_bin(INTERVAL '1 minute', time) AS t, max(usage) FROM cpu WHERE host = 'a' GROUP BY host, t ORDER BY t",
    optimized: `Sort: t ASC NULLS LAST
  Projection: cpu.host, date_bin(IntervalMonthDayNano("60000000000"),cpu.time) AS t, MAX(cpu.usage)
    Aggregate: groupBy=[[cpu.host, date_bin(IntervalMonthDayNano("60000000000"), cpu.time)]], aggr=[[MAX(cpu.usage)]]
      TableScan: cpu projection=[time, host, usage], full_filters=[cpu.host = Utf8("a")]`,
  },
  {
    name: 'join keys from ON, a WHERE on one side pushed to it',
    sql: 'SELECT c.host, m.used FROM cpu c JOIN mem m ON c.host = m.host AND c.time = m.time WHERE m.used > 5',
    initial: `Projection: c.host, m.used
  Filter: m.used > Int64(5)
    Inner Join: c.host = m.host, c.time = m.time
      TableScan: c projection=[time, host, region, usage, count, note]
      TableScan: m projection=[time, host, used]`,
    optimized: `Projection: c.host, m.used
  Inner Join: c.host = m.host, c.time = m.time
    TableScan: c projection=[time, host]
    TableScan: m projection=[time, host, used], full_filters=[m.used > Int64(5)]`,
  },
  {
    // CnosDB's RejectCrossJoin rule is never added to its optimizer (c7609432): `FROM a, b`
    // runs, and a WHERE comparing the two sides makes it a hash join.
    name: 'a comparison across a cross join makes an equi-join',
    sql: 'SELECT cpu.host FROM cpu, mem WHERE cpu.host = mem.host',
    initial: `Projection: cpu.host
  Filter: cpu.host = mem.host
    CrossJoin:
      TableScan: cpu projection=[time, host, region, usage, count, note]
      TableScan: mem projection=[time, host, used]`,
    optimized: `Projection: cpu.host
  Inner Join: cpu.host = mem.host
    TableScan: cpu projection=[host]
    TableScan: mem projection=[host]`,
  },
  {
    name: 'a comparison across a join on true makes an equi-join',
    sql: 'SELECT cpu.host FROM cpu JOIN mem ON true WHERE cpu.host = mem.host',
    initial: `Projection: cpu.host
  Filter: cpu.host = mem.host
    Inner Join: Filter: Boolean(true)
      TableScan: cpu projection=[time, host, region, usage, count, note]
      TableScan: mem projection=[time, host, used]`,
    optimized: `Projection: cpu.host
  Inner Join: cpu.host = mem.host Filter: Boolean(true)
    TableScan: cpu projection=[host]
    TableScan: mem projection=[host]`,
  },
  {
    name: 'lastpoint: the row_number filter lands on the window',
    sql: 'SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY host ORDER BY time DESC) AS rn FROM cpu) WHERE rn = 1 ORDER BY host',
    optimized: `Sort: cpu.host ASC NULLS LAST
  Projection: cpu.time, cpu.host, cpu.region, cpu.usage, cpu.count, cpu.note, rn
    Projection: cpu.time, cpu.host, cpu.region, cpu.usage, cpu.count, cpu.note, ${ROW_NUMBER} AS rn
      Filter: CAST(${ROW_NUMBER} AS Int64) = Int64(1)
        WindowAggr: windowExpr=[[${ROW_NUMBER}]]
          TableScan: cpu projection=[time, host, region, usage, count, note]`,
  },
  {
    name: 'constant folding: a constant TRUE disappears, a cast literal becomes a time bound',
    sql: "SELECT usage FROM cpu WHERE 1 + 1 = 2 AND CAST('2024-01-01' AS TIMESTAMP) < time",
    optimized: `TableScan: cpu projection=[usage], full_filters=[TimestampNanosecond(1704067200000000000, None) < cpu.time]`,
  },
  {
    name: 'UNION is a distinct union all',
    sql: 'SELECT host FROM cpu UNION SELECT host FROM mem LIMIT 3',
    optimized: `Limit: skip=0, fetch=3
  Distinct:
    Union
      TableScan: cpu projection=[host]
      TableScan: mem projection=[host]`,
  },
  {
    name: 'a CTE under its name; a filter on an aggregate stays above it',
    sql: 'WITH t AS (SELECT host, count(*) AS n FROM cpu GROUP BY host) SELECT host FROM t WHERE n > 1',
    optimized: `Projection: t.host
  SubqueryAlias: t
    Projection: cpu.host, COUNT(UInt8(1)) AS n
      Filter: COUNT(UInt8(1)) > Int64(1)
        Aggregate: groupBy=[[cpu.host]], aggr=[[COUNT(UInt8(1))]]
          TableScan: cpu projection=[host]`,
  },
  {
    name: 'a filter on a group key goes below the aggregate',
    sql: "SELECT host, count(*) FROM cpu GROUP BY host HAVING host = 'a'",
    optimized: `Aggregate: groupBy=[[cpu.host]], aggr=[[COUNT(UInt8(1))]]
  TableScan: cpu projection=[host], full_filters=[cpu.host = Utf8("a")]`,
  },
  {
    name: 'ORDER BY a column that is not selected is read for the sort and dropped after it',
    sql: 'SELECT usage FROM cpu ORDER BY count',
    optimized: `Projection: cpu.usage
  Sort: cpu.count ASC NULLS LAST
    TableScan: cpu projection=[usage, count]`,
  },
  {
    name: 'IN and EXISTS subqueries are evaluated by the scan',
    sql: 'SELECT host FROM cpu WHERE host IN (SELECT host FROM mem) AND EXISTS (SELECT 1 FROM mem WHERE mem.host = cpu.host)',
    optimized: `TableScan: cpu projection=[host], full_filters=[cpu.host IN (<subquery>), EXISTS (<subquery>)]`,
  },
  {
    name: 'a sliding time_window expands rows in a node of its own',
    sql: "SELECT time_window(time, '10ms', '5ms') AS w, count(*) FROM cpu GROUP BY w",
    optimized: `Projection: TIME_WINDOW(cpu.time,Utf8("10ms"),Utf8("5ms")) AS w, COUNT(UInt8(1))
  Aggregate: groupBy=[[TIME_WINDOW(cpu.time,Utf8("10ms"),Utf8("5ms"))]], aggr=[[COUNT(UInt8(1))]]
    TimeWindow: time=cpu.time, window=10000000ns, slide=5000000ns, origin=0ns
      TableScan: cpu projection=[time]`,
  },
  {
    name: 'topk is a sort with a fetch under the projection',
    sql: 'SELECT topk(usage, 2), host FROM cpu',
    optimized: `Projection: cpu.usage, cpu.host
  Limit: skip=0, fetch=2
    Sort: cpu.usage DESC NULLS LAST, fetch=2
      TableScan: cpu projection=[host, usage]`,
  },
];

const errors: { sql: string; message: string }[] = [
  {
    sql: 'SELECT nope FROM cpu',
    message:
      'Datafusion: Schema error: No field named nope. Valid fields are cpu.time, cpu.host, cpu.region, cpu.usage, cpu.count, cpu.note.',
  },
  {
    sql: 'SELECT host FROM cpu, mem',
    message: 'Datafusion: Schema error: Ambiguous reference to unqualified field host',
  },
  {
    sql: 'SELECT usage FROM cpu GROUP BY host',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: cpu.host',
  },
  {
    sql: 'SELECT 3 + TRUE',
    message: 'Datafusion: Error during planning: Unsupported argument types. Can not evaluate Int64 + Boolean',
  },
  {
    sql: 'SELECT usage = TRUE FROM cpu',
    message:
      'Datafusion: Error during planning: Cannot infer common argument type for comparison operation Float64 = Boolean',
  },
  {
    sql: 'SELECT avg(note) FROM cpu',
    message: 'Datafusion: Error during planning: The function Avg does not support inputs of type Utf8.',
  },
  {
    sql: 'SELECT sum(usage, count) FROM cpu',
    message: 'Datafusion: Error during planning: The function Sum expects 1 arguments, but 2 were provided',
  },
  {
    sql: 'SELECT count() FROM cpu',
    message: 'Datafusion: Error during planning: The function Count expects at least one argument',
  },
  {
    sql: 'SELECT firsts(time, usage) FROM cpu',
    message: "Datafusion: Error during planning: Invalid function 'firsts'.\nDid you mean 'cbrt'?",
  },
  {
    sql: 'SELECT date_trunc(time) FROM cpu',
    message:
      "Datafusion: Error during planning: No function matches the given name and argument types 'date_trunc(Timestamp(Nanosecond, None))'. You might need to add explicit type casts.\n\tCandidate functions:\n\tdate_trunc(Utf8, Timestamp(Nanosecond, None))",
  },
  {
    sql: 'SELECT time, host, time FROM cpu',
    message:
      'Datafusion: Error during planning: Projections require unique expression names but the expression "cpu.time" at position 0 and "cpu.time" at position 2 have the same name. Consider aliasing ("AS") one of them.',
  },
  { sql: 'SELECT *', message: 'Datafusion: Error during planning: SELECT * with no tables specified is not valid' },
  {
    sql: 'SELECT usage FROM cpu WHERE count(*) > 1',
    message: 'Datafusion: Error during planning: Aggregate functions are not allowed here: COUNT',
  },
  // Found by the SQL fuzzer with other seeds: each ran into the executor as a BUG (500).
  {
    sql: 'SELECT count(usage) FROM cpu GROUP BY 1',
    message: 'Datafusion: Error during planning: Aggregate functions are not allowed here: COUNT',
  },
  {
    sql: 'SELECT max(usage) AS m FROM cpu GROUP BY m',
    message: 'Datafusion: Error during planning: Aggregate functions are not allowed here: MAX',
  },
  {
    sql: 'SELECT host, row_number() OVER () AS r FROM cpu GROUP BY host, r',
    message: 'Datafusion: Error during planning: Window functions are not allowed here: row_number',
  },
  {
    sql: 'SELECT host, min(row_number() OVER (ORDER BY usage)) FROM cpu GROUP BY host',
    message: 'Datafusion: Error during planning: Window functions are not allowed here: row_number',
  },
  {
    sql: 'SELECT host FROM cpu GROUP BY host HAVING row_number() OVER () > 1',
    message: 'Datafusion: Error during planning: Window functions are not allowed here: row_number',
  },
  // A subquery after GROUP BY reading a column that is not a group key, in the select list and in ORDER BY.
  {
    sql: 'SELECT host, (SELECT count(*) FROM cpu AS u WHERE u.usage < cpu.usage) FROM cpu GROUP BY host',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: cpu.host',
  },
  {
    sql: 'SELECT host FROM cpu GROUP BY host ORDER BY (SELECT count(*) FROM cpu AS u WHERE u.usage < cpu.usage)',
    message: 'Datafusion: Schema error: No field named cpu.usage. Valid fields are cpu.host.',
  },
  // DataFusion finds a CAST it cannot do when it folds a constant, or else with the physical plan.
  {
    sql: 'SELECT CAST(1.5 AS TIMESTAMP)',
    message:
      "Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nThis feature is not implemented: Unsupported CAST from Float64 to Timestamp(Nanosecond, None)",
  },
  {
    sql: 'SELECT CAST(usage > 1 AS TIMESTAMP) FROM cpu',
    message:
      'Datafusion: This feature is not implemented: Unsupported CAST from Boolean to Timestamp(Nanosecond, None)',
  },
  // Type errors DataFusion meets only in its analyzer or later come after the plan's own checks.
  {
    sql: 'SELECT CAST(sha256(host, 1) AS BIGINT), usage FROM cpu GROUP BY host',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: cpu.host',
  },
  {
    sql: "SELECT host FROM cpu WHERE starts_with(sha256(host, 1), 'a')",
    message:
      'Datafusion: type_coercion\ncaused by\nError during planning: Coercion from [Utf8, Int64] to the signature Uniform(1, [Utf8, LargeUtf8, Binary, LargeBinary]) failed.',
  },
  {
    sql: 'SELECT host FROM cpu WHERE host LIKE sha256(host, 1)',
    message:
      "Datafusion: Error during planning: No function matches the given name and argument types 'sha256(Utf8, Int64)'. You might need to add explicit type casts.\n\tCandidate functions:\n\tsha256(Utf8/LargeUtf8/Binary/LargeBinary)",
  },
  {
    sql: 'SELECT ntile(usage) OVER (), usage FROM cpu GROUP BY host',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: cpu.host',
  },
  // A number past the select list is no position in DataFusion 27: a constant key.
  {
    sql: 'SELECT usage FROM cpu GROUP BY 7',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: Int64(7)',
  },
  {
    sql: 'SELECT ntile(usage) OVER () FROM cpu',
    message: 'Datafusion: Error during planning: The first argument of ntile must be an integer literal, got Float64',
  },
  // Below a CAST, an operator over a call that failed is not typed: the call's late error stands.
  {
    sql: 'SELECT max(CAST(sha256(note, 1) || 0.5 AS STRING)) FROM cpu',
    message:
      'Datafusion: type_coercion\ncaused by\nError during planning: Coercion from [Utf8, Int64] to the signature Uniform(1, [Utf8, LargeUtf8, Binary, LargeBinary]) failed.',
  },
  {
    sql: 'SELECT usage FROM cpu GROUP BY CAST(replace(note, host) AS DOUBLE)',
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: replace(cpu.note,cpu.host)',
  },
  {
    sql: 'SELECT host FROM cpu UNION SELECT host, used FROM mem',
    message:
      'Datafusion: Error during planning: UNION queries must have the same number of columns, (left is 1, (right is 2)',
  },
  {
    sql: 'SELECT (SELECT host, used FROM mem) FROM cpu',
    message:
      'Datafusion: Error during planning: Scalar subquery should only return one column, but found 2: host, used',
  },
  {
    sql: 'SELECT row_number() FROM cpu',
    message: "Datafusion: Error during planning: Invalid function 'row_number'.\nDid you mean 'power'?",
  },
  // Aggregates are suggested as CnosDB's DataFusion displays them: upper case.
  {
    sql: "SELECT map('k', 'v') FROM cpu",
    message: "Datafusion: Error during planning: Invalid function 'map'.\nDid you mean 'MAX'?",
  },
  // A DataFusion function this engine lacks is refused as such, not "corrected" to its own name.
  { sql: 'SELECT array_remove([1, 2], 1) FROM cpu', message: 'This feature is not implemented: function array_remove' },
  // A cross join's planning errors are reported as for any other FROM.
  {
    sql: 'SELECT nope FROM cpu, mem',
    message:
      'Datafusion: Schema error: No field named nope. Valid fields are cpu.time, cpu.host, cpu.region, cpu.usage, cpu.count, cpu.note, mem.time, mem.host, mem.used.',
  },
  {
    sql: "SELECT time_window(time, '0.5ms') FROM cpu",
    message:
      'Datafusion: Error during planning: Invalid time_window parameter: the window must be between 1ms and 365d',
  },
  { sql: 'SELECT * FROM cpu LIMIT -1', message: 'Datafusion: Error during planning: LIMIT must not be negative' },
  // An IN list in a name shows its items in Expr's Debug form (DataFusion 27's quirk).
  {
    sql: "SELECT usage FROM cpu GROUP BY count IN (abs(count), count + 1, -count, 2), nullif(host, 'x') IN (NULL)",
    message:
      'Datafusion: Error during planning: Projection references non-aggregate values: Expression cpu.usage could not be resolved from available columns: ' +
      'cpu.count IN (Map { iter: Iter([ScalarFunction(ScalarFunction { fun: Abs, args: [Column(Column { relation: Some(Bare { table: "cpu" }), name: "count" })] }), ' +
      'BinaryExpr(BinaryExpr { left: Column(Column { relation: Some(Bare { table: "cpu" }), name: "count" }), op: Plus, right: Literal(Int64(1)) }), ' +
      'Negative(Column(Column { relation: Some(Bare { table: "cpu" }), name: "count" })), Literal(Int64(2))]) }), ' +
      'nullif(cpu.host,Utf8("x")) IN (Map { iter: Iter([Literal(NULL)]) })',
  },
  { sql: 'SELECT * FROM nope', message: 'Meta: Table not found: "cnosdb.public.nope"' },
  { sql: 'SELECT * FROM nodb.cpu', message: 'Meta: Database not found: "nodb"' },
];

describe('query planner', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.run(CPU_TABLE);
    await db.run('CREATE TABLE mem (used BIGINT, TAGS(host))');
  });

  for (const p of plans) {
    it(`plans ${p.name}`, () => {
      if (p.initial !== undefined) expect(initialPlan(db, p.sql)).toBe(p.initial);
      expect(optimizedPlan(db, p.sql)).toBe(p.optimized);
    });
  }

  for (const e of errors) {
    it(`rejects ${e.sql}`, async () => {
      expect(await db.error(e.sql)).toBe(e.message);
    });
  }
});
