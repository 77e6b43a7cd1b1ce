// Seeded fuzzing of the SQL front end and the engine behind it: random statements from a small
// grammar and mutations of CnosDB's own statements. Parsing may only fail with a SqlParseError,
// planning and running only with a UserError that is not a bug; nothing may hang or overflow
// the stack. Inputs are capped at 2 KiB.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../../host/core/errors.js';
import { parseStatements, SqlParseError } from '../../../host/engine/sql/index.js';
import { testDb, type TestDb } from '../support/run-sql.js';
import { readSltStatements } from './slt-statements.js';

const SEED = 0x5eed_2024;
const MAX_LEN = 2048;

/** mulberry32: small, fast, deterministic. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(random: () => number) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const columns = ['time', 'g', 'v', 'd', 's', 'b', 'nope', 't.v', '*'];
  const expr = (depth: number): string => {
    if (depth > 3 || random() < 0.3) return pick([...columns.slice(0, 8), '1', '-2.5', "'x'", 'NULL', 'TRUE', "INTERVAL '1 minute'", "'2024-01-01'", '9223372036854775807']);
    switch (Math.floor(random() * 11)) {
      case 0:
        return `${expr(depth + 1)} ${pick(['+', '-', '*', '/', '%', '=', '<>', '<', '>=', 'AND', 'OR', '||', 'LIKE'])} ${expr(depth + 1)}`;
      case 1:
        return `${pick(['count', 'sum', 'avg', 'min', 'max', 'abs', 'lower', 'coalesce', 'date_bin', 'date_trunc', 'first', 'nope'])}(${expr(depth + 1)}${random() < 0.4 ? `, ${expr(depth + 1)}` : ''})`;
      case 2:
        return `CASE WHEN ${expr(depth + 1)} THEN ${expr(depth + 1)} ELSE ${expr(depth + 1)} END`;
      case 3:
        return `CAST(${expr(depth + 1)} AS ${pick(['BIGINT', 'DOUBLE', 'STRING', 'BOOLEAN', 'TIMESTAMP', 'BIGINT UNSIGNED'])})`;
      case 4:
        return `${expr(depth + 1)} ${pick(['IS NULL', 'IS NOT NULL', 'IN (1, 2)', 'BETWEEN 1 AND 5', 'NOT IN (SELECT v FROM t)'])}`;
      case 5:
        return `(SELECT ${expr(depth + 1)} FROM t LIMIT 1)`;
      case 6:
        return `NOT ${expr(depth + 1)}`;
      case 7:
        return `${pick(['row_number()', 'sum(v)', `sum(${pick(['count(v)', 'max(d)'])})`])} OVER (PARTITION BY ${expr(depth + 1)} ORDER BY ${expr(depth + 1)})`;
      // Correlated subqueries, on a column the query may not select (t, x, a and b name the outer rows).
      case 8:
        return `(SELECT ${pick(['max', 'count', 'min'])}(u.${pick(['v', 'd'])}) FROM t AS u WHERE u.${pick(['g', 'v', 's'])} ${pick(['=', '<', '<>'])} ${pick(['t', 'x', 'a', 'b'])}.${pick(['g', 'v', 'd', 's'])})`;
      case 9:
        return `${pick(['EXISTS', 'NOT EXISTS'])} (SELECT 1 FROM t AS u WHERE u.${pick(['g', 'v'])} = ${pick(['t', 'x', 'a', 'b'])}.${pick(['g', 'v', 'd'])} AND ${expr(depth + 1)})`;
      default:
        return `(${expr(depth + 1)})`;
    }
  };
  return (): string => {
    const items = Array.from({ length: 1 + Math.floor(random() * 3) }, () => expr(0)).join(', ');
    let q = `SELECT ${items} FROM ${pick(['t', 't AS x', 't a JOIN t b ON a.g = b.g', '(SELECT * FROM t) AS t', 'nope'])}`;
    if (random() < 0.5) q += ` WHERE ${expr(0)}`;
    if (random() < 0.3) q += ` GROUP BY ${pick(['g', '1', '2', 'v', 'date_bin(INTERVAL \'1 minute\', time)'])}`;
    if (random() < 0.15) q += ` HAVING ${expr(1)}`;
    if (random() < 0.3) q += ` ORDER BY ${pick(['1', 'g DESC', 'v NULLS FIRST', 'nope'])}`;
    if (random() < 0.3) q += ` LIMIT ${Math.floor(random() * 5)}`;
    return q;
  };
}

function mutate(random: () => number, sql: string): string {
  const chars = "(),;'\".*=<>-+ abcSELECTFROMWHERE0123456789\n\\";
  let s = sql;
  for (let k = 1 + Math.floor(random() * 4); k > 0; k--) {
    const at = Math.floor(random() * (s.length + 1));
    const op = random();
    if (op < 0.33) s = s.slice(0, at) + s.slice(at + 1);
    else if (op < 0.66) s = s.slice(0, at) + chars[Math.floor(random() * chars.length)] + s.slice(at);
    else s = s.slice(0, at) + s.slice(at, at + 1).repeat(2 + Math.floor(random() * 3)) + s.slice(at + 1);
  }
  return s.slice(0, MAX_LEN);
}

async function runChecked(db: TestDb, sql: string): Promise<void> {
  try {
    await db.run(sql);
  } catch (e) {
    if (!(e instanceof UserError) || e.message.startsWith('BUG:')) throw new Error(`${sql}\n=> ${(e as Error).stack}`);
  }
}

describe('SQL fuzzing', () => {
  it('parses random and mutated statements to an AST or a SqlParseError only', () => {
    const random = rng(SEED);
    // CnosDB's cases seed the mutations where the shared fixtures are present; else only the generator.
    const statements = readSltStatements().map((s) => s.sql);
    const gen = generator(random);
    for (let i = 0; i < 3000; i++) {
      const sql = i % 2 === 0 && statements.length > 0 ? mutate(random, statements[Math.floor(random() * statements.length)]!) : mutate(random, gen());
      try {
        parseStatements(sql);
      } catch (e) {
        if (!(e instanceof UserError)) throw new Error(`${JSON.stringify(sql)} => ${(e as Error).stack}`);
      }
    }
  });

  it('refuses nesting beyond the depth limit with a parse error', () => {
    for (const sql of [`SELECT ${'('.repeat(5000)}1${')'.repeat(5000)}`, `SELECT ${'-'.repeat(5000)}1`, `SELECT 1 ${'+ 1 '.repeat(100_000)}`]) {
      expect(() => parseStatements(sql)).toThrow(SqlParseError);
    }
  });

  it('plans and runs random statements to a result or a typed error', async () => {
    const random = rng(SEED + 1);
    const db = testDb();
    await db.exec("CREATE TABLE t (v BIGINT, d DOUBLE, s STRING, b BOOLEAN, TAGS(g));\nINSERT INTO t (time, g, v, d, s, b) VALUES (1, 'a', 1, 1.5, 'x', true), (2, 'b', NULL, -2.0, NULL, false), (3, NULL, 3, NULL, 'z', NULL)");
    const gen = generator(random);
    for (let i = 0; i < 2000; i++) await runChecked(db, random() < 0.8 ? gen() : mutate(random, gen()));
  });
});
