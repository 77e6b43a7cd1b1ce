// A scan filter that fails names the layer CnosDB would have evaluated it in: conjuncts reading
// only fields and time run in its storage scan ("Coordinator: TskvError: ..."), those reading a tag
// in DataFusion's FilterExec (the bare arrow message).

import { beforeAll, describe, expect, it } from 'vitest';
import { testDb, type TestDb } from '../support/run-sql.js';

describe('scan filter errors', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = testDb();
    await db.exec(
      "CREATE TABLE m (s STRING, n BIGINT, TAGS(t));\nINSERT INTO m (time, t, s, n) VALUES (1, 'x', 'abc', 1), (2, 'y', '5', 2)",
    );
  });

  it('wraps the failure of a conjunct that reads only fields as the storage layer reports it', async () => {
    expect(await db.error('SELECT n FROM m WHERE CAST(s AS BIGINT) > 0')).toBe(
      "Coordinator: TskvError: Arrow: Cast error: Cannot cast string 'abc' to value of Int64 type",
    );
    expect(await db.error("SELECT n FROM m WHERE t = 'x' AND CAST(s AS BOOLEAN)")).toBe(
      "Coordinator: TskvError: Arrow: Cast error: Cannot cast value 'abc' to value of Boolean type",
    );
  });

  it('leaves the failure of a conjunct that reads a tag as it is', async () => {
    expect(await db.error('SELECT n FROM m WHERE CAST(t AS BIGINT) > 0')).toBe(
      "Arrow: Cast error: Cannot cast string 'x' to value of Int64 type",
    );
    expect(await db.error('SELECT n FROM m WHERE CAST(t || s AS BIGINT) > 0')).toBe(
      "Arrow: Cast error: Cannot cast string 'xabc' to value of Int64 type",
    );
  });
});
