// The DE-9IM relation of two planar geometries, through JSTS (the JavaScript port of JTS, whose
// RelateComputer the Rust `geo` crate's Relate was ported from, so the predicates agree):
// ST_Contains, ST_Intersects, ST_Within, ST_Equals and ST_Disjoint read its matrix. JSTS is
// pure JavaScript (no Node built-ins), so the engine stays browser-runnable.
// biome-ignore-all lint/suspicious/noExplicitAny: JSTS's own types are `any` (see below)

import Coordinate from 'jsts/org/locationtech/jts/geom/Coordinate.js';
import GeometryFactory from 'jsts/org/locationtech/jts/geom/GeometryFactory.js';
import RelateOp from 'jsts/org/locationtech/jts/operation/relate/RelateOp.js';
import type { Coord, Geometry } from '../../core/geometry/geometry.js';

/** The DE-9IM predicates the GIS functions read (JTS's IntersectionMatrix). */
export interface Relation {
  isContains(): boolean;
  isIntersects(): boolean;
  isWithin(): boolean;
  isDisjoint(): boolean;
}

// JSTS is typed loosely (its .d.ts files say `any`); this file is the only place that touches it.
const factory: any = new GeometryFactory();

const coordinate = (c: Coord): any => new Coordinate(c[0], c[1]);

/**
 * A ring JTS accepts: geo keeps a closed ring of fewer than four positions (`(0 0, 1 1, 0 0)`),
 * JTS refuses it, so the last position is repeated; the ring's shape and area do not change.
 */
function ring(cs: readonly Coord[]): any {
  if (cs.length === 0) return factory.createLinearRing([]);
  const padded = [...cs];
  while (padded.length < 4) padded.push(padded[padded.length - 1]!);
  return factory.createLinearRing(padded.map(coordinate));
}

function polygon(rings: readonly (readonly Coord[])[]): any {
  if (rings.length === 0 || rings[0]!.length === 0) return factory.createPolygon();
  return factory.createPolygon(ring(rings[0]!), rings.slice(1).map(ring));
}

/** A JSTS geometry of a planar geometry (toPlanar's output: rings closed, no empty points). */
function toJsts(g: Geometry): any {
  switch (g.kind) {
    case 'Point':
      return factory.createPoint(coordinate(g.coord!));
    case 'LineString':
      return factory.createLineString(g.coords.map(coordinate));
    case 'Polygon':
      return polygon(g.rings);
    case 'MultiPoint':
      return factory.createMultiPoint(g.points.map((p) => factory.createPoint(coordinate(p!))));
    case 'MultiLineString':
      return factory.createMultiLineString(g.lines.map((l) => factory.createLineString(l.map(coordinate))));
    case 'MultiPolygon':
      return factory.createMultiPolygon(g.polygons.map(polygon));
    case 'GeometryCollection':
      return factory.createGeometryCollection(g.geometries.map(toJsts));
  }
}

/** The relation of `a` to `b`. Throws what JSTS throws on a geometry it cannot build (a one-position line). */
export function relate(a: Geometry, b: Geometry): Relation {
  return RelateOp.relate(toJsts(a), toJsts(b)) as Relation;
}
