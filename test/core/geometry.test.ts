// The geometry model shared by the write check and the GIS functions: the WKT reader (the Rust
// `wkt` crate's grammar and errors), Rust's number and Debug texts, geozero's WKT writer, the
// write check's messages, and the WKB codec (engine/geometry/wkb.ts) as hex, round trip and
// fuzzed with a seed.

import { describe, expect, it } from 'vitest';
import { checkGeometryValue } from '../../host/core/geometry/check-geometry.js';
import {
  geoDebug,
  geoWktDebug,
  rustDebugF64,
  rustDebugStr,
  rustDisplayF64,
  toPlanar,
  writeWkt,
} from '../../host/core/geometry/rust-format.js';
import { readWkt, WktError } from '../../host/core/geometry/wkt-reader.js';
import { decodeWkbHex, encodeWkbHex } from '../../host/engine/geometry/wkb.js';

const wktError = (text: string): string => {
  try {
    readWkt(text);
  } catch (e) {
    if (e instanceof WktError) return e.reason;
    throw e;
  }
  return 'parsed';
};

describe('readWkt', () => {
  const texts: [string, string][] = [
    ['POINT(1 2)', 'POINT(1 2)'],
    ['point ( -1.5 +2e3 7 )', 'POINT(-1.5 2000)'],
    ['MULTIPOINT ((1 2), (3 4))', 'MULTIPOINT(1 2,3 4)'],
    ['MULTIPOINT (1 2, 3 4)', 'MULTIPOINT(1 2,3 4)'],
    [
      'POLYGON ((0 0, 1 0, 0 1), (0.1 0.1, 0.2 0.1, 0.1 0.2, 0.1 0.1))',
      'POLYGON((0 0,1 0,0 1),(0.1 0.1,0.2 0.1,0.1 0.2,0.1 0.1))',
    ],
    ['MULTIPOLYGON (((0 0, 1 0, 0 1, 0 0)))', 'MULTIPOLYGON(((0 0,1 0,0 1,0 0)))'],
    ['GEOMETRYCOLLECTION (POINT (1 1), LINESTRING EMPTY)', 'GEOMETRYCOLLECTION(POINT(1 1),LINESTRING EMPTY)'],
    ['LINEARRING (0 0, 1 1) trailing words are ignored', 'LINESTRING(0 0,1 1)'],
    ['POLYGON EMPTY', 'POLYGON EMPTY'],
  ];
  for (const [text, wkt] of texts) it(`reads ${text}`, () => expect(writeWkt(readWkt(text))).toBe(wkt));

  const errors: [string, string][] = [
    ['', 'Invalid WKT format'],
    ['-1', 'Invalid WKT format'],
    ['1999-12-31', 'Unable to parse input number as the desired output type'],
    ['CIRCLE(1 1)', 'Invalid type encountered'],
    ['POINT(0, 0)', 'Expected a number for the Y coordinate'],
    ['POINT(a 0)', 'Expected a number for the X coordinate'],
    ['POINT 1 2', 'Missing open parenthesis for type'],
    ['POINT(1 2', 'Missing closing parenthesis for type'],
    ['GEOMETRYCOLLECTION(1 2)', 'Expected a word in GEOMETRYCOLLECTION'],
    ['PÖINT(1 2)', 'Encountered non-ascii word'],
    ['GEOMETRYCOLLECTION('.repeat(100), 'Invalid WKT format'],
  ];
  for (const [text, reason] of errors)
    it(`refuses ${JSON.stringify(text.slice(0, 30))}`, () => expect(wktError(text)).toBe(reason));

  it('wraps its reason as geozero does', () => expect(new WktError('x').message).toBe('processing geometry `x`'));

  it('never throws anything but WktError on random text (seed 7)', () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = [
      'POINT',
      'POLYGON',
      'MULTIPOINT',
      'GEOMETRYCOLLECTION',
      'EMPTY',
      '(',
      ')',
      ',',
      ' ',
      '1',
      '-2.5',
      'e',
      '+',
      '.',
      'x',
    ];
    for (let i = 0; i < 2000; i++) {
      let s = '';
      for (let k = Math.floor(rand() * 20); k > 0; k--) s += alphabet[Math.floor(rand() * alphabet.length)];
      expect(() => {
        try {
          toPlanar(readWkt(s));
        } catch (e) {
          if (!(e instanceof WktError)) throw e;
        }
      }, s).not.toThrow();
    }
  });
});

describe('Rust texts', () => {
  it('formats f64 as Debug does', () => {
    expect([0, -0, 30, 1.5, 1e-4, 5e-5, 1e15, 1e16, 1.25e17, -3, NaN, -Infinity].map(rustDebugF64)).toEqual([
      '0.0',
      '-0.0',
      '30.0',
      '1.5',
      '0.0001',
      '5e-5',
      '1000000000000000.0',
      '1e16',
      '1.25e17',
      '-3.0',
      'NaN',
      '-inf',
    ]);
  });
  it('formats f64 as Display does', () => {
    expect([0, 30, 1.5, 1e-7, 1.25e21, -2.5e-3, Infinity].map(rustDisplayF64)).toEqual([
      '0',
      '30',
      '1.5',
      '0.0000001',
      '1250000000000000000000',
      '-0.0025',
      'inf',
    ]);
  });
  it('quotes a str as Debug does', () => expect(rustDebugStr('a"b\\c\n\u0001')).toBe('"a\\"b\\\\c\\n\\u{1}"'));
  it("prints geo's derived Debug of closed rings", () => {
    expect(geoDebug(toPlanar(readWkt('POLYGON((0 0, 2 0, 0 2),(0.5 0.5, 1 0.5, 0.5 1))')))).toBe(
      'Polygon(Polygon { exterior: LineString([Coord { x: 0.0, y: 0.0 }, Coord { x: 2.0, y: 0.0 }, Coord { x: 0.0, y: 2.0 }, Coord { x: 0.0, y: 0.0 }]), interiors: [LineString([Coord { x: 0.5, y: 0.5 }, Coord { x: 1.0, y: 0.5 }, Coord { x: 0.5, y: 1.0 }, Coord { x: 0.5, y: 0.5 }])] })',
    );
    expect(geoDebug(toPlanar(readWkt('GEOMETRYCOLLECTION(MULTIPOINT(1 2))')))).toBe(
      'GeometryCollection(GeometryCollection([MultiPoint(MultiPoint([Point(Coord { x: 1.0, y: 2.0 })]))]))',
    );
  });
  it("prints newer geo-types' WKT Debug", () =>
    expect(geoWktDebug(toPlanar(readWkt('MULTILINESTRING((1 2, 3 4.5))')))).toBe('MULTILINESTRING((1.0 2.0,3.0 4.5))'));
  it('refuses an empty point where geo needs one', () =>
    expect(() => toPlanar(readWkt('MULTIPOINT(EMPTY)'))).toThrow(WktError));
});

describe('checkGeometryValue', () => {
  const point = { subType: 'POINT', srid: 0 };
  it('accepts WKT of the sub type', () => expect(() => checkGeometryValue(point, 'POINT (3 4)')).not.toThrow());
  it('names what it got', () =>
    expect(() => checkGeometryValue(point, 'LINESTRING(1 1, 2 2)')).toThrow(
      'Invalid geometry type, error: expect Point, got LineString(LineString([Coord { x: 1.0, y: 1.0 }, Coord { x: 2.0, y: 2.0 }]))',
    ));
  it('quotes text that is not WKT', () =>
    expect(() => checkGeometryValue(point, 'POINT EMPTY')).toThrow(
      'Invalid geometry type, error: processing geometry `The input was an empty Point, but the output doesn\'t support empty Points`, expect Point, got "POINT EMPTY"',
    ));
  it('has code 010073', () => {
    let code: string | undefined;
    try {
      checkGeometryValue(point, 'x');
    } catch (e) {
      code = (e as { code: string }).code;
    }
    expect(code).toBe('010073');
  });
});

describe('WKB', () => {
  it('encodes little-endian, rings as written', () => {
    expect(encodeWkbHex(readWkt('POINT(1 2)'))).toBe('0101000000000000000000f03f0000000000000040');
    expect(encodeWkbHex(readWkt('LINESTRING(0 0, 1 1)'))).toBe(
      '010200000002000000' + '00'.repeat(16) + '000000000000f03f000000000000f03f',
    );
    expect(encodeWkbHex(readWkt('POINT EMPTY'))).toBe('0101000000000000000000f87f000000000000f87f');
  });
  it('round-trips every type', () => {
    for (const text of [
      'POINT(1 2)',
      'LINESTRING(1 2,3 4)',
      'POLYGON((0 0,1 0,0 1))',
      'MULTIPOINT(1 2,3 4)',
      'MULTILINESTRING((1 2,3 4),(5 6,7 8))',
      'MULTIPOLYGON(((0 0,1 0,0 1,0 0)),((5 5,6 5,5 6,5 5)))',
      'GEOMETRYCOLLECTION(POINT(1 2),LINESTRING EMPTY)',
      'POINT EMPTY',
    ]) {
      expect(writeWkt(decodeWkbHex(encodeWkbHex(readWkt(text)))!)).toBe(text);
    }
  });
  it('reads big-endian', () =>
    expect(writeWkt(decodeWkbHex('00000000013ff00000000000004000000000000000')!)).toBe('POINT(1 2)'));
  it('refuses short, trailing, odd and unknown input', () => {
    for (const hex of [
      '',
      '01',
      '0101000000000000000000f03f',
      '0101000000000000000000f03f000000000000004000',
      '0108000000',
      '02010000',
      'zz',
      '010400000001000000010200000000000000',
      '0102000000ffffffff',
    ])
      expect(decodeWkbHex(hex), hex).toBeNull();
  });
  it('never throws on random bytes (seed 11)', () => {
    let seed = 11;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      const prefix = ['01', '0101000000', '0103000000', '0107000000'][i % 4]!;
      let hex = prefix;
      for (let k = Math.floor(rand() * 40); k > 0; k--)
        hex += Math.floor(rand() * 256)
          .toString(16)
          .padStart(2, '0');
      expect(() => decodeWkbHex(hex), hex).not.toThrow();
    }
  });
});
