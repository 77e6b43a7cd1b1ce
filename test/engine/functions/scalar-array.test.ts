// DataFusion 27's array functions (functions/scalar-array.ts): built from literals and columns,
// positions and dimensions from 1, lengths BIGINT UNSIGNED, a NULL list giving NULL (or, in
// array_concat, left out), and the planning errors of a non-list argument.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

const values: [string, string][] = [
  [
    "SELECT make_array(1, 2, 3), [1, 2.5], make_array('a', NULL), make_array()",
    '[1, 2, 3] | [1.0, 2.5] | [a, NULL] | []',
  ],
  ['SELECT array_append([1, 2], 3), array_prepend(0, [1, 2]), array_append(NULL, 1)', '[1, 2, 3] | [0, 1, 2] | [1]'],
  [
    'SELECT array_concat([1], [2, 3], NULL), array_concat([1], [2.5]), array_concat([[1]], [[2, 3]]), array_concat(NULL)',
    '[1, 2, 3] | [1.0, 2.5] | [[1], [2, 3]] | NULL',
  ],
  [
    'SELECT array_length([1, 2, 3]), array_length([[1, 2], [3, 4]], 2), array_length([1], 2), array_length(NULL)',
    '3 | 2 | NULL | NULL',
  ],
  [
    'SELECT cardinality([[1, 2], [3]]), array_ndims([[1], [2]]), array_ndims([1]), array_dims([[1, 2, 3], [4, 5, 6]])',
    '3 | 2 | 1 | [2, 3]',
  ],
  [
    'SELECT array_position([5, 6, 5], 5), array_position([5, 6, 5], 5, 2), array_position([1], 9), array_positions([5, 6, 5], 5)',
    '1 | 3 | NULL | [1, 3]',
  ],
  [
    'SELECT array_has([1, 2], 2), array_has_all([1, 2, 3], [1, 3]), array_has_any([1, 2], [7, 8]), array_has(NULL, 1)',
    'true | true | false | NULL',
  ],
  [
    'SELECT array_has([[1, 2], [3]], [3]), array_position([[1], [2]], [2]), array_has_any([[1]], [[2], [1]])',
    'true | 2 | true',
  ],
  [
    "SELECT array_to_string([1, 2, NULL, 3], ','), array_to_string([1.5, 2.0], '-'), array_to_string([['a', 'b'], ['c']], ''), trim_array([1, 2, 3], 1)",
    '1,2,3 | 1.5-2 | abc | [1, 2]',
  ],
];

const failures: [string, RegExp][] = [
  ['SELECT array_length(1)', /The array_length function can only accept list as the first argument, got Int64/],
  ['SELECT array_has_all([1], 1)', /The array_has_all function can only accept list as the second argument, got Int64/],
  ['SELECT array_append([1])', /The function "array_append" expects 2 arguments, but 1 were provided/],
  ['SELECT make_array(1, [2])', /Unsupported argument types for make_array/],
  ["SELECT array_concat([1], ['a'])", /Unsupported argument types for array_concat: List\(Int64\), List\(Utf8\)/],
  ['SELECT array_concat()', /The function "array_concat" expects at least 1 argument/],
];

describe('array functions', () => {
  const db = testDb();
  for (const [sql, row] of values) it(`evaluates ${sql}`, async () => expect((await db.run(sql)).rows).toEqual([row]));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it('types and names results as DataFusion does', async () => {
    const r = await db.run(
      'SELECT make_array(1, 2), [1.5], array_length([1]), array_positions([1], 1), array_has([1], 1)',
    );
    expect(r.types).toEqual(['List(Int64)', 'List(Float64)', 'UInt64', 'List(UInt64)', 'Boolean']);
    expect(r.columns).toEqual([
      'make_array(Int64(1),Int64(2))',
      'make_array(Float64(1.5))',
      'array_length(make_array(Int64(1)))',
      'array_positions(make_array(Int64(1)),Int64(1))',
      'array_has(make_array(Int64(1)),Int64(1))',
    ]);
  });

  it('works on lists built from columns, row by row', async () => {
    const t = testDb();
    await t.exec(
      "CREATE TABLE m (a BIGINT, b BIGINT, TAGS(h));\nINSERT INTO m (time, h, a, b) VALUES (1, 'x', 1, 2), (2, 'y', 3, NULL)",
    );
    expect(
      (
        await t.run(
          'SELECT h, make_array(a, b), array_length(make_array(a, b)), array_position(make_array(a, b), 2) FROM m ORDER BY h',
        )
      ).rows,
    ).toEqual(['x | [1, 2] | 2 | 2', 'y | [3, NULL] | 2 | NULL']);
  });
});
