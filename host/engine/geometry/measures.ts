// ST_Area and ST_Distance as the Rust `geo` crate computes them (planar, Euclidean): area by the
// shoelace formula with every ring shifted to its first position (geo's guard against
// cancellation), holes subtracted, an unclosed ring counting 0; distance between the pairs of
// types CnosDB's ST_Distance accepts, 0 when the geometries intersect, else the least distance
// between their points and segments, with geo's point-to-segment formula.

import type { Coord, Geometry } from '../../core/geometry/geometry.js';
import { geoWktDebug } from '../../core/geometry/rust-format.js';
import { relate } from './relate.js';

/** geo's twice_signed_ring_area: 0 below three positions or when the ring is not closed. */
function twiceSignedRingArea(ring: readonly Coord[]): number {
  if (ring.length < 3) return 0;
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (first[0] !== last[0] || first[1] !== last[1]) return 0;
  const [sx, sy] = first;
  let tmp = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i]!;
    const b = ring[i + 1]!;
    tmp += (a[0] - sx) * (b[1] - sy) - (a[1] - sy) * (b[0] - sx);
  }
  return tmp;
}

/** geo's Polygon::signed_area: the exterior's sign, holes' absolute areas subtracted. */
function polygonSignedArea(rings: readonly (readonly Coord[])[]): number {
  if (rings.length === 0) return 0;
  const area = twiceSignedRingArea(rings[0]!) / 2;
  let total = Math.abs(area);
  for (const hole of rings.slice(1)) total -= Math.abs(twiceSignedRingArea(hole) / 2);
  return area < 0 ? -total : total;
}

/** geo's unsigned_area of a planar geometry (rings closed). */
export function unsignedArea(g: Geometry): number {
  switch (g.kind) {
    case 'Polygon':
      return Math.abs(polygonSignedArea(g.rings));
    case 'MultiPolygon':
      return g.polygons.reduce((sum, p) => sum + Math.abs(polygonSignedArea(p)), 0);
    case 'GeometryCollection':
      return g.geometries.reduce((sum, x) => sum + unsignedArea(x), 0);
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Distance

/** geo's line_segment_distance (the comp.graphics.algorithms FAQ formula, with hypot). */
function pointSegment(p: Coord, a: Coord, b: Coord): number {
  if (a[0] === b[0] && a[1] === b[1]) return Math.hypot(p[0] - a[0], p[1] - a[1]);
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const r = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2;
  if (r <= 0) return Math.hypot(p[0] - a[0], p[1] - a[1]);
  if (r >= 1) return Math.hypot(p[0] - b[0], p[1] - b[1]);
  const s = ((a[1] - p[1]) * dx - (a[0] - p[0]) * dy) / len2;
  return Math.abs(s) * Math.hypot(dx, dy);
}

interface Parts {
  points: Coord[];
  segments: [Coord, Coord][];
}

function partsOf(g: Geometry, out: Parts = { points: [], segments: [] }): Parts {
  const line = (cs: readonly Coord[]): void => {
    if (cs.length === 1) out.points.push(cs[0]!);
    for (let i = 0; i + 1 < cs.length; i++) out.segments.push([cs[i]!, cs[i + 1]!]);
  };
  switch (g.kind) {
    case 'Point':
      out.points.push(g.coord!);
      break;
    case 'MultiPoint':
      for (const p of g.points) out.points.push(p!);
      break;
    case 'LineString':
      line(g.coords);
      break;
    case 'MultiLineString':
      g.lines.forEach(line);
      break;
    case 'Polygon':
      g.rings.forEach(line);
      break;
    case 'MultiPolygon':
      for (const p of g.polygons) p.forEach(line);
      break;
    case 'GeometryCollection':
      for (const x of g.geometries) partsOf(x, out);
      break;
  }
  return out;
}

/** The least distance between the points and segments of two geometries that do not intersect. */
function partsDistance(a: Parts, b: Parts): number {
  let best = Infinity;
  for (const p of a.points) {
    for (const q of b.points) best = Math.min(best, Math.hypot(p[0] - q[0], p[1] - q[1]));
    for (const [s, e] of b.segments) best = Math.min(best, pointSegment(p, s, e));
  }
  for (const [s, e] of a.segments) {
    for (const q of b.points) best = Math.min(best, pointSegment(q, s, e));
    for (const [t, u] of b.segments)
      best = Math.min(best, pointSegment(s, t, u), pointSegment(e, t, u), pointSegment(t, s, e), pointSegment(u, s, e));
  }
  return best === Infinity ? 0 : best;
}

/** The right-hand types each left-hand type's distance exists for in CnosDB's ST_Distance. */
const DISTANCE_PAIRS: Readonly<Record<string, readonly string[]>> = {
  Point: ['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'],
  LineString: ['Point', 'LineString', 'Polygon'],
  Polygon: ['Point', 'LineString', 'Polygon'],
  MultiPoint: ['Point'],
  MultiLineString: ['Point'],
  MultiPolygon: ['Point'],
};

/** CnosDB's error for a pair it does not compute; the left side by name when it has one. */
export class UnsupportedDistance extends Error {}

/** The Euclidean distance of two planar geometries, or UnsupportedDistance with CnosDB's text. */
export function euclideanDistance(a: Geometry, b: Geometry): number {
  const rights = DISTANCE_PAIRS[a.kind];
  if (rights === undefined || !rights.includes(b.kind)) {
    const left = rights === undefined ? geoWktDebug(a) : a.kind.toUpperCase();
    throw new UnsupportedDistance(`Calculating the distance between ${left} and ${geoWktDebug(b)} is not supported`);
  }
  if (a.kind === 'Point' && b.kind === 'Point') return Math.hypot(a.coord![0] - b.coord![0], a.coord![1] - b.coord![1]);
  const pa = partsOf(a);
  const pb = partsOf(b);
  if (pa.points.length + pa.segments.length === 0 || pb.points.length + pb.segments.length === 0) return 0;
  return relate(a, b).isIntersects() ? 0 : partsDistance(pa, pb);
}
