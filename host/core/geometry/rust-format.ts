// How CnosDB prints geometries and numbers, reproduced from Rust: f64 Debug (`30.0`, `1e16`) and
// Display (`30`, never an exponent); the `geo` crate's derived Debug of its structures, which the
// write check prints (`LineString([Coord { x: 30.0, y: 10.0 }])`); the WKT-like Debug of newer
// geo-types, which ST_Distance's errors print (`POINT(40.0 10.0)`); and geozero's WKT writer,
// which ST_GeomFromWKB answers with (`POINT(0 0)`). Also toPlanar: the conversion to `geo`
// values, which closes rings and refuses an empty point, as geozero's GeoWriter does.

import type { Coord, Geometry } from './geometry.js';
import { WktError } from './wkt-reader.js';

/** Rust's `{:?}` of an f64: shortest round-trip digits, `.0` on integers, exponent outside [1e-4, 1e16). */
export function rustDebugF64(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const a = Math.abs(x);
  if (a < 1e-4 || a >= 1e16) return x.toExponential().replace('e+', 'e');
  const s = String(x);
  return s.includes('.') ? s : `${s}.0`;
}

/** Rust's `{}` of an f64: shortest round-trip digits in plain decimal notation. */
export function rustDisplayF64(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  let out: string;
  if (exp < 0) out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else if (digits.length <= exp + 1) out = digits + '0'.repeat(exp + 1 - digits.length);
  else out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return x < 0 ? `-${out}` : out;
}

/** Rust's Debug of a &str: quoted, with `"`, `\` and control characters escaped. */
export function rustDebugStr(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else if (c < 0x20 || c === 0x7f) out += `\\u{${c.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

// ---------------------------------------------------------------------------------------------
// Conversion to geo values

/** Closes a ring as geo's Polygon::new does: the first position appended unless already last. */
function closeRing(ring: readonly Coord[]): readonly Coord[] {
  if (ring.length === 0) return ring;
  const a = ring[0]!;
  const b = ring[ring.length - 1]!;
  return a[0] === b[0] && a[1] === b[1] ? ring : [...ring, a];
}

const closePolygon = (rings: readonly (readonly Coord[])[]): (readonly Coord[])[] =>
  rings.length === 0 ? [[]] : rings.map(closeRing);

function requirePoint(c: Coord | null): Coord {
  if (c === null) throw new WktError("The input was an empty Point, but the output doesn't support empty Points");
  return c;
}

/**
 * The geometry as `geo` holds it: rings closed, POLYGON EMPTY as one empty exterior ring, an
 * empty point refused (WktError, geozero's text).
 */
export function toPlanar(g: Geometry): Geometry {
  switch (g.kind) {
    case 'Point':
      return { kind: 'Point', coord: requirePoint(g.coord) };
    case 'LineString':
    case 'MultiLineString':
      return g;
    case 'Polygon':
      return { kind: 'Polygon', rings: closePolygon(g.rings) };
    case 'MultiPoint':
      return { kind: 'MultiPoint', points: g.points.map(requirePoint) };
    case 'MultiPolygon':
      return { kind: 'MultiPolygon', polygons: g.polygons.map(closePolygon) };
    case 'GeometryCollection':
      return { kind: 'GeometryCollection', geometries: g.geometries.map(toPlanar) };
  }
}

// ---------------------------------------------------------------------------------------------
// geo's derived Debug (the write check's "got ..." text)

const debugCoord = (c: Coord): string => `Coord { x: ${rustDebugF64(c[0])}, y: ${rustDebugF64(c[1])} }`;
const debugLine = (cs: readonly Coord[]): string => `LineString([${cs.map(debugCoord).join(', ')}])`;
function debugPolygon(rings: readonly (readonly Coord[])[]): string {
  return `Polygon { exterior: ${debugLine(rings[0] ?? [])}, interiors: [${rings.slice(1).map(debugLine).join(', ')}] }`;
}

/** geo's `{:?}` of a value (of toPlanar): `Point(Coord { x: 0.0, y: 0.0 })`. */
function debugValue(g: Geometry): string {
  switch (g.kind) {
    case 'Point':
      return `Point(${debugCoord(g.coord!)})`;
    case 'LineString':
      return debugLine(g.coords);
    case 'Polygon':
      return debugPolygon(g.rings);
    case 'MultiPoint':
      return `MultiPoint([${g.points.map((p) => `Point(${debugCoord(p!)})`).join(', ')}])`;
    case 'MultiLineString':
      return `MultiLineString([${g.lines.map(debugLine).join(', ')}])`;
    case 'MultiPolygon':
      return `MultiPolygon([${g.polygons.map(debugPolygon).join(', ')}])`;
    case 'GeometryCollection':
      return `GeometryCollection([${g.geometries.map(geoDebug).join(', ')}])`;
  }
}

/** geo's `{:?}` of a `Geometry` enum value: `LineString(LineString([...]))`. */
export function geoDebug(g: Geometry): string {
  return `${g.kind}(${debugValue(g)})`;
}

// ---------------------------------------------------------------------------------------------
// WKT texts

type NumberText = (x: number) => string;

function wktBody(g: Geometry, num: NumberText): string {
  const pos = (c: Coord): string => `${num(c[0])} ${num(c[1])}`;
  const line = (cs: readonly Coord[]): string => `(${cs.map(pos).join(',')})`;
  const poly = (rings: readonly (readonly Coord[])[]): string => `(${rings.map(line).join(',')})`;
  switch (g.kind) {
    case 'Point':
      return g.coord === null ? '' : `(${pos(g.coord)})`;
    case 'LineString':
      return g.coords.length === 0 ? '' : line(g.coords);
    case 'Polygon':
      return g.rings.length === 0 || g.rings[0]!.length === 0 ? '' : poly(g.rings);
    case 'MultiPoint':
      return g.points.length === 0 ? '' : `(${g.points.map((p) => (p === null ? 'EMPTY' : pos(p))).join(',')})`;
    case 'MultiLineString':
      return g.lines.length === 0 ? '' : `(${g.lines.map(line).join(',')})`;
    case 'MultiPolygon':
      return g.polygons.length === 0 ? '' : `(${g.polygons.map(poly).join(',')})`;
    case 'GeometryCollection':
      return g.geometries.length === 0 ? '' : `(${g.geometries.map((x) => wktText(x, num)).join(',')})`;
  }
}

function wktText(g: Geometry, num: NumberText): string {
  const body = wktBody(g, num);
  return `${g.kind.toUpperCase()}${body === '' ? ' EMPTY' : body}`;
}

/** geozero's WKT writer: `MULTIPOINT(10 40,40 30)`, numbers as Rust's Display. */
export function writeWkt(g: Geometry): string {
  return wktText(g, rustDisplayF64);
}

/** Newer geo-types' Debug, WKT with Debug numbers: `POINT(40.0 10.0)`. */
export function geoWktDebug(g: Geometry): string {
  return wktText(g, rustDebugF64);
}
