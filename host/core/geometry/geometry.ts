// The geometry model shared by the write check (storage, INSERT) and the GIS functions: the
// seven OGC types over planar x/y coordinates, as the WKT text said them. Rings stay as written
// (an unclosed ring stays unclosed), because ST_AsBinary encodes the text as it is while the
// computations close rings first (toPlanar), as CnosDB's two paths do (geozero WKT -> WKB
// directly; WKT -> Rust `geo` types for everything else).

/** One position; z and m of the text are dropped (every computation is two-dimensional). */
export type Coord = readonly [x: number, y: number];

export type Geometry =
  /** `null`: POINT EMPTY. */
  | { readonly kind: 'Point'; readonly coord: Coord | null }
  | { readonly kind: 'LineString'; readonly coords: readonly Coord[] }
  /** Exterior ring first, then the holes; POLYGON EMPTY has no rings. */
  | { readonly kind: 'Polygon'; readonly rings: readonly (readonly Coord[])[] }
  | { readonly kind: 'MultiPoint'; readonly points: readonly (Coord | null)[] }
  | { readonly kind: 'MultiLineString'; readonly lines: readonly (readonly Coord[])[] }
  | { readonly kind: 'MultiPolygon'; readonly polygons: readonly (readonly (readonly Coord[])[])[] }
  | { readonly kind: 'GeometryCollection'; readonly geometries: readonly Geometry[] };

export type GeometryKind = Geometry['kind'];

/** The sub types a GEOMETRY column may declare, as written in SQL, and the kind each admits. */
export const GEOMETRY_SUB_TYPES: Readonly<Record<string, GeometryKind>> = {
  POINT: 'Point',
  LINESTRING: 'LineString',
  POLYGON: 'Polygon',
  MULTIPOINT: 'MultiPoint',
  MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon',
  GEOMETRYCOLLECTION: 'GeometryCollection',
};

/** A GEOMETRY(<sub_type>, <srid>) column's declaration; srid is always 0 (Cartesian). */
export interface GeometryColumnType {
  readonly subType: string;
  readonly srid: number;
}

/** What CnosDB shows as the column's type: `Geometry(POINT, 0)`. */
export function geometryTypeName(g: GeometryColumnType): string {
  return `Geometry(${g.subType}, ${g.srid})`;
}
