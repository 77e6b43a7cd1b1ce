// Well-known binary, two-dimensional, as geozero writes and reads it for CnosDB's ST_AsBinary and
// ST_GeomFromWKB: little-endian output, a uint32 type code (1 Point ... 7 GeometryCollection),
// counts as uint32, x and y as float64; an empty point is NaN, NaN. The reader takes either byte
// order per geometry, never trusts a count past the bytes left, and rejects trailing bytes.

import type { Coord, Geometry, GeometryKind } from '../../core/geometry/geometry.js';

const TYPE_CODES: Readonly<Record<GeometryKind, number>> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
};

class ByteWriter {
  bytes = new Uint8Array(64);
  view = new DataView(this.bytes.buffer);
  length = 0;

  #room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  header(kind: GeometryKind): void {
    this.#room(5);
    this.bytes[this.length] = 1;
    this.view.setUint32(this.length + 1, TYPE_CODES[kind], true);
    this.length += 5;
  }

  u32(n: number): void {
    this.#room(4);
    this.view.setUint32(this.length, n, true);
    this.length += 4;
  }

  coord(c: Coord | null): void {
    this.#room(16);
    this.view.setFloat64(this.length, c === null ? NaN : c[0], true);
    this.view.setFloat64(this.length + 8, c === null ? NaN : c[1], true);
    this.length += 16;
  }

  coords(cs: readonly Coord[]): void {
    this.u32(cs.length);
    for (const c of cs) this.coord(c);
  }

  rings(rs: readonly (readonly Coord[])[]): void {
    this.u32(rs.length);
    for (const r of rs) this.coords(r);
  }
}

function writeGeometry(w: ByteWriter, g: Geometry): void {
  w.header(g.kind);
  switch (g.kind) {
    case 'Point':
      return w.coord(g.coord);
    case 'LineString':
      return w.coords(g.coords);
    case 'Polygon':
      return w.rings(g.rings);
    case 'MultiPoint':
      w.u32(g.points.length);
      for (const p of g.points) writeGeometry(w, { kind: 'Point', coord: p });
      return;
    case 'MultiLineString':
      w.u32(g.lines.length);
      for (const l of g.lines) writeGeometry(w, { kind: 'LineString', coords: l });
      return;
    case 'MultiPolygon':
      w.u32(g.polygons.length);
      for (const p of g.polygons) writeGeometry(w, { kind: 'Polygon', rings: p });
      return;
    case 'GeometryCollection':
      w.u32(g.geometries.length);
      for (const x of g.geometries) writeGeometry(w, x);
      return;
  }
}

/** The WKB of a geometry, as lowercase hex (the engine's Binary values). */
export function encodeWkbHex(g: Geometry): string {
  const w = new ByteWriter();
  writeGeometry(w, g);
  let out = '';
  for (let i = 0; i < w.length; i++) out += w.bytes[i]!.toString(16).padStart(2, '0');
  return out;
}

class ByteReader {
  readonly view: DataView;
  pos = 0;
  constructor(bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(n: number): void {
    if (this.pos + n > this.view.byteLength)
      throw new RangeError(`WKB too short: ${n} bytes wanted at offset ${this.pos}`);
  }
}

const MAX_DEPTH = 64;

function readGeometry(r: ByteReader, depth: number): Geometry {
  if (depth > MAX_DEPTH) throw new RangeError('WKB nested too deeply');
  r.need(5);
  const order = r.view.getUint8(r.pos);
  if (order > 1) throw new RangeError(`WKB byte order ${order} at offset ${r.pos}`);
  const le = order === 1;
  const code = r.view.getUint32(r.pos + 1, le);
  r.pos += 5;
  const u32 = (): number => {
    r.need(4);
    const n = r.view.getUint32(r.pos, le);
    r.pos += 4;
    return n;
  };
  const coord = (): Coord => {
    r.need(16);
    const c: Coord = [r.view.getFloat64(r.pos, le), r.view.getFloat64(r.pos + 8, le)];
    r.pos += 16;
    return c;
  };
  // A count is bounded by the bytes left (each item takes at least `size` bytes).
  const count = (size: number): number => {
    const n = u32();
    r.need(n * size);
    return n;
  };
  const coords = (): Coord[] => Array.from({ length: count(16) }, coord);
  const rings = (): Coord[][] => Array.from({ length: count(4) }, coords);
  const members = <K extends GeometryKind>(kind: K): Extract<Geometry, { kind: K }>[] =>
    Array.from({ length: count(5) }, () => {
      const g = readGeometry(r, depth + 1);
      if (g.kind !== kind) throw new RangeError(`WKB member ${g.kind} where ${kind} was expected`);
      return g as Extract<Geometry, { kind: K }>;
    });
  switch (code) {
    case 1: {
      const c = coord();
      return { kind: 'Point', coord: Number.isNaN(c[0]) && Number.isNaN(c[1]) ? null : c };
    }
    case 2:
      return { kind: 'LineString', coords: coords() };
    case 3:
      return { kind: 'Polygon', rings: rings() };
    case 4:
      return { kind: 'MultiPoint', points: members('Point').map((p) => p.coord) };
    case 5:
      return { kind: 'MultiLineString', lines: members('LineString').map((l) => l.coords) };
    case 6:
      return { kind: 'MultiPolygon', polygons: members('Polygon').map((p) => p.rings) };
    case 7:
      return {
        kind: 'GeometryCollection',
        geometries: Array.from({ length: count(5) }, () => readGeometry(r, depth + 1)),
      };
    default:
      throw new RangeError(`WKB geometry type ${code} is not a two-dimensional OGC type`);
  }
}

/** Reads WKB from lowercase hex; null when the bytes are not one whole geometry. */
export function decodeWkbHex(hex: string): Geometry | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-f]*$/.test(hex)) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  const r = new ByteReader(bytes);
  try {
    const g = readGeometry(r, 0);
    return r.pos === bytes.length ? g : null;
  } catch (e) {
    if (e instanceof RangeError) return null;
    throw e;
  }
}
