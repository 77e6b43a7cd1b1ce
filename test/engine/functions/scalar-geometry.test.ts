// The GIS functions on the engine: values worked out by hand on small planar shapes, NULLs,
// result types and names, and CnosDB's error texts (arity, signature, WKT, unsupported distance
// pairs); and GEOMETRY columns: declaration errors, DESCRIBE, the INSERT check storing nothing.

import { describe, expect, it } from 'vitest';
import { testDb } from '../support/run-sql.js';

const SQUARE = "'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))'";

const values: [string, string][] = [
  // Area: shoelace, unclosed rings closed, holes subtracted, non-areal geometries 0.
  [
    `SELECT ST_Area(${SQUARE}), ST_Area('POLYGON((0 0, 4 0, 4 3))'), ST_Area('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0),(2 2, 4 2, 4 4, 2 4, 2 2))')`,
    '16.0 | 6.0 | 96.0',
  ],
  [
    "SELECT ST_Area('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 1, 0 0)),((5 5, 6 5, 6 6, 5 5)))'), ST_Area('LINESTRING(0 0, 1 1)'), ST_Area('GEOMETRYCOLLECTION(POINT(1 1), POLYGON((0 0, 2 0, 0 2)))')",
    '1.5 | 0.0 | 2.0',
  ],
  ["SELECT ST_Area('POLYGON EMPTY'), ST_Area('GEOMETRYCOLLECTION EMPTY'), ST_Area(NULL)", '0.0 | 0.0 | NULL'],
  // Distance: Euclidean, 0 inside an area, segments to segments.
  [
    "SELECT ST_Distance('POINT(0 0)', 'POINT(3 4)'), ST_Distance('POINT(3 0)', 'LINESTRING(0 5, 10 5)'), ST_Distance('POINT(1 1)', " +
      SQUARE +
      ')',
    '5.0 | 5.0 | 0.0',
  ],
  [
    "SELECT ST_Distance('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))', 'POLYGON((3 0, 4 0, 4 1, 3 1, 3 0))'), ST_Distance('LINESTRING(0 0, 0 2)', 'LINESTRING(1 1, 3 1)'), ST_Distance('MULTIPOINT(0 0, 6 8)', 'POINT(6 0)')",
    '2.0 | 1.0 | 6.0',
  ],
  // geo's point-to-segment formula: |s| * hypot(dx, dy) = 8.5 * sqrt(2), one ulp above 17 / sqrt(2).
  [
    "SELECT ST_Distance('POINT(9 9)', 'MULTIPOLYGON(((0 0, 1 0, 0 1, 0 0)))'), ST_Distance(NULL, 'POINT(0 0)')",
    '12.020815280171309 | NULL',
  ],
  // Predicates: the DE-9IM relation (a boundary point is not contained, but it intersects).
  [
    `SELECT ST_Contains(${SQUARE}, 'POINT(1 1)'), ST_Contains(${SQUARE}, 'POINT(4 2)'), ST_Intersects(${SQUARE}, 'POINT(4 2)'), ST_Within('POINT(1 1)', ${SQUARE})`,
    'true | false | true | true',
  ],
  [
    `SELECT ST_Disjoint('POINT(9 9)', ${SQUARE}), ST_Disjoint('POINT(4 4)', ${SQUARE}), ST_Equals('POLYGON((0 0, 1 0, 1 1, 0 0))', 'POLYGON((1 0, 1 1, 0 0, 1 0))'), ST_Equals('POINT(0 0)', 'POINT(0 1)')`,
    'true | false | true | false',
  ],
  [
    "SELECT ST_Contains('LINESTRING(0 0, 2 0)', 'POINT(1 0)'), ST_Contains('LINESTRING(0 0, 2 0)', 'POINT(0 0)'), ST_Within(NULL, 'POINT(0 0)')",
    'true | false | NULL',
  ],
  // WKB: little-endian hex; text that is not WKT gives NULL; back to geozero's WKT.
  [
    "SELECT ST_AsBinary('POINT(1 2)'), ST_AsBinary('POINT(1, 2)'), ST_AsBinary(NULL)",
    '0101000000000000000000f03f0000000000000040 | NULL | NULL',
  ],
  [
    "SELECT ST_GeomFromWKB(ST_AsBinary('MULTIPOINT((1 2), (3.5 -4))')), ST_GeomFromWKB(ST_AsBinary('POLYGON((0 0, 1 0, 0 1))')), ST_GeomFromWKB(NULL)",
    'MULTIPOINT(1 2,3.5 -4) | POLYGON((0 0,1 0,0 1)) | NULL',
  ],
];

const failures: [string, RegExp][] = [
  [
    'SELECT ST_Area()',
    /^Datafusion: Error during planning: The function "ST_Area" expects 1 arguments, but 0 were provided$/,
  ],
  ["SELECT st_distance('POINT(0 0)')", /The function "ST_Distance" expects 2 arguments, but 1 were provided$/],
  ["SELECT ST_AsBinary('a', 'b')", /The function "st_AsBinary" expects 1 arguments, but 2 were provided$/],
  [
    "SELECT ST_GeomFromWKB('0101')",
    /No function matches the given name and argument types 'st_GeomFromWKB\(Utf8\)'\. You might need to add explicit type casts\.\n\tCandidate functions:\n\tst_GeomFromWKB\(Binary\)$/,
  ],
  [
    "SELECT ST_Area('CIRCLE(0 0 1)')",
    /^Datafusion: Optimizer rule 'simplify_expressions' failed\ncaused by\nExecution error: processing geometry `Invalid type encountered`$/,
  ],
  ['SELECT ST_Area(12)', /processing geometry `Invalid WKT format`/],
  [
    "SELECT ST_Area('POINT EMPTY')",
    /processing geometry `The input was an empty Point, but the output doesn't support empty Points`/,
  ],
  [
    "SELECT ST_Distance('LINESTRING(0 0, 1 1)', 'MULTIPOINT(1 2)')",
    /Execution error: Calculating the distance between LINESTRING and MULTIPOINT\(1\.0 2\.0\) is not supported$/,
  ],
  [
    "SELECT ST_Distance('GEOMETRYCOLLECTION(POINT(1 2))', 'POINT(0 0)')",
    /Calculating the distance between GEOMETRYCOLLECTION\(POINT\(1\.0 2\.0\)\) and POINT\(0\.0 0\.0\) is not supported$/,
  ],
];

describe('GIS functions', () => {
  const db = testDb();
  for (const [sql, row] of values) it(`evaluates ${sql}`, async () => expect((await db.run(sql)).rows).toEqual([row]));
  for (const [sql, message] of failures) it(`fails ${sql}`, async () => expect(await db.error(sql)).toMatch(message));

  it("types results and names columns after CnosDB's function names", async () => {
    const r = await db.run(
      "SELECT ST_AsBinary('POINT(0 0)'), st_geomfromwkb(ST_AsBinary('POINT(0 0)')), ST_AREA('POINT(0 0)'), st_distance('POINT(0 0)', 'POINT(0 0)'), ST_Within('POINT(0 0)', 'POINT(0 0)')",
    );
    expect(r.types).toEqual(['Binary', 'Utf8', 'Float64', 'Float64', 'Boolean']);
    expect(r.columns[0]).toBe('st_AsBinary(Utf8("POINT(0 0)"))');
    expect(r.columns[2]).toBe('ST_Area(Utf8("POINT(0 0)"))');
  });

  it('reads a row-varying argument, failing at execution on a bad value', async () => {
    const t = testDb();
    await t.exec(
      "CREATE TABLE g (w STRING, k BIGINT);\nINSERT INTO g (time, w, k) VALUES (1, 'POINT(0 0)', 1), (2, 'LINESTRING(0 0, 3 4)', 1), (3, NULL, 1)",
    );
    expect((await t.run("SELECT ST_Distance(w, 'POINT(3 0)') FROM g ORDER BY time")).rows).toEqual([
      '3.0',
      '2.4',
      'NULL',
    ]);
    await t.exec("INSERT INTO g (time, w) VALUES (4, 'nope')");
    expect(await t.error('SELECT ST_Area(w) FROM g')).toBe(
      'Datafusion: Execution error: processing geometry `Invalid type encountered`',
    );
  });
});

describe('GEOMETRY columns', () => {
  const declarations: [string, string][] = [
    [
      'geometry(bigint, 0)',
      'Semantic error: Unexpected data type geometry(bigint, 0) of loc, sub_type must be POINT, LINESTRING, POLYGON, MULTIPOINT, MULTILINESTRING, MULTIPOLYGON, GEOMETRYCOLLECTION',
    ],
    [
      'GEOMETRY(Point, 3857)',
      'Semantic error: Unexpected data type GEOMETRY(Point, 3857) of loc, currently only supports 0, Cartesian coordinate system',
    ],
    ['geometry()', 'Semantic error: Unexpected data type geometry of loc, format: GEOMETRY(<sub_type>, <srid>)'],
    [
      'geometry(point, 0, 0)',
      'Semantic error: Unexpected data type geometry(point, 0, 0) of loc, format: GEOMETRY(<sub_type>, <srid>)',
    ],
    ['geom(point, 0)', 'Semantic error: Unexpected data type geom(point, 0) of loc, '],
  ];
  for (const [type, message] of declarations) {
    it(`refuses ${type}`, async () => expect(await testDb().error(`CREATE TABLE t (loc ${type})`)).toBe(message));
  }

  it('shows the declaration and stores only WKT of its sub type', async () => {
    const t = testDb();
    await t.exec('CREATE TABLE t (a geometry(multipolygon, 0));\nALTER TABLE t ADD FIELD b GEOMETRY(LINESTRING, 0)');
    expect((await t.run('DESCRIBE TABLE t')).rows).toEqual([
      'time | TIMESTAMP(NANOSECOND) | TIME | DEFAULT',
      'a | Geometry(MULTIPOLYGON, 0) | FIELD | DEFAULT',
      'b | Geometry(LINESTRING, 0) | FIELD | DEFAULT',
    ]);
    expect(
      await t.error(
        "INSERT INTO t (time, a, b) VALUES (1, NULL, 'LINESTRING(0 0, 1 1)'), (2, 'POLYGON((0 0, 1 0, 0 1))', NULL)",
      ),
    ).toBe(
      'Invalid geometry type, error: expect MultiPolygon, got Polygon(Polygon { exterior: LineString([Coord { x: 0.0, y: 0.0 }, Coord { x: 1.0, y: 0.0 }, Coord { x: 0.0, y: 1.0 }, Coord { x: 0.0, y: 0.0 }]), interiors: [] })',
    );
    expect((await t.run('SELECT count(*) FROM t')).rows).toEqual(['0']);
    await t.exec("INSERT INTO t (time, b) VALUES (1, 'LINESTRING(0 0, 1 1)')");
    expect((await t.run('SELECT b FROM t')).rows).toEqual(['LINESTRING(0 0, 1 1)']);
  });
});
