// CnosDB's GIS functions over WKT text (its geometry columns hold WKT): ST_AsBinary and
// ST_GeomFromWKB (WKB as Binary, a text that is not a geometry gives NULL), ST_Area and
// ST_Distance (DOUBLE), ST_Contains, ST_Intersects, ST_Within, ST_Equals, ST_Disjoint (BOOLEAN),
// with CnosDB's names (they show in errors and column names), exact signatures (any argument is
// cast to a string first, as DataFusion coerces to Utf8) and error texts; a NULL argument gives
// NULL. Geometry semantics are the Rust `geo` crate's, planar: measures.ts and relate.ts.

import type { Geometry } from '../../core/geometry/geometry.js';
import { toPlanar, writeWkt } from '../../core/geometry/rust-format.js';
import { readWkt, WktError } from '../../core/geometry/wkt-reader.js';
import { executionError, planError } from '../errors.js';
import { euclideanDistance, unsignedArea, UnsupportedDistance } from '../geometry/measures.js';
import { relate, type Relation } from '../geometry/relate.js';
import { decodeWkbHex, encodeWkbHex } from '../geometry/wkb.js';
import { BINARY, BOOLEAN, type DataType, FLOAT64, UTF8 } from '../types/index.js';
import type { ScalarFunction } from './function-types.js';
import { noMatchingSignature, rowwise } from './signature.js';

/** DataFusion's arity check of a UDF: `The function "ST_Area" expects 1 arguments, but 0 were provided`. */
function expectUdfArgs(name: string, argTypes: readonly DataType[], n: number): void {
  if (argTypes.length !== n)
    throw planError(`The function "${name}" expects ${n} arguments, but ${argTypes.length} were provided`);
}

const failure = (message: string): Error => executionError(`Datafusion: Execution error: ${message}`);

/** The geometry of a WKT argument as geo holds it, or CnosDB's "processing geometry `...`" error. */
function planarOf(text: string): Geometry {
  try {
    return toPlanar(readWkt(text));
  } catch (e) {
    if (e instanceof WktError) throw failure(e.message);
    throw e;
  }
}

/** JSTS fails on geometries it cannot build (a line of one position); CnosDB's geo answers them. */
function safeRelate(a: Geometry, b: Geometry): Relation {
  try {
    return relate(a, b);
  } catch (e) {
    throw failure(`processing geometry \`${e instanceof Error ? e.message : String(e)}\``);
  }
}

function unary(name: string, returnType: DataType, row: (g: Geometry) => number | boolean): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      expectUdfArgs(name, argTypes, 1);
      return { argTypes: [UTF8], returnType };
    },
    row: (args) => row(planarOf(args[0] as string)),
  });
}

function binary(
  name: string,
  returnType: DataType,
  row: (a: Geometry, b: Geometry) => number | boolean,
): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      expectUdfArgs(name, argTypes, 2);
      return { argTypes: [UTF8, UTF8], returnType };
    },
    row: (args) => row(planarOf(args[0] as string), planarOf(args[1] as string)),
  });
}

function distance(a: Geometry, b: Geometry): number {
  try {
    return euclideanDistance(a, b);
  } catch (e) {
    if (e instanceof UnsupportedDistance) throw failure(e.message);
    throw e;
  }
}

const asBinary = rowwise({
  name: 'st_AsBinary',
  bind(argTypes) {
    expectUdfArgs('st_AsBinary', argTypes, 1);
    return { argTypes: [UTF8], returnType: BINARY };
  },
  // The text as written, rings unclosed (geozero converts WKT to WKB directly); not WKT: NULL.
  row(args) {
    try {
      return encodeWkbHex(readWkt(args[0] as string));
    } catch (e) {
      if (e instanceof WktError) return null;
      throw e;
    }
  },
});

const geomFromWkb = rowwise({
  name: 'st_GeomFromWKB',
  bind(argTypes) {
    expectUdfArgs('st_GeomFromWKB', argTypes, 1);
    const t = argTypes[0]!;
    if (t.id !== 'Binary' && t.id !== 'Null') throw noMatchingSignature('st_GeomFromWKB', argTypes, [[BINARY]]);
    return { argTypes: [BINARY], returnType: UTF8 };
  },
  row(args) {
    const g = decodeWkbHex(args[0] as string);
    return g === null ? null : writeWkt(g);
  },
});

export const GEOMETRY_FUNCTIONS: readonly ScalarFunction[] = [
  asBinary,
  geomFromWkb,
  unary('ST_Area', FLOAT64, unsignedArea),
  binary('ST_Distance', FLOAT64, distance),
  binary('ST_Contains', BOOLEAN, (a, b) => safeRelate(a, b).isContains()),
  binary('ST_Intersects', BOOLEAN, (a, b) => safeRelate(a, b).isIntersects()),
  // geo's relate: within both ways is topological equality.
  binary('ST_Equals', BOOLEAN, (a, b) => safeRelate(a, b).isWithin() && safeRelate(b, a).isWithin()),
  binary('ST_Disjoint', BOOLEAN, (a, b) => safeRelate(a, b).isDisjoint()),
  binary('ST_Within', BOOLEAN, (a, b) => safeRelate(a, b).isWithin()),
];
