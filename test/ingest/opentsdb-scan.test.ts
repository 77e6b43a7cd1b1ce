// The Wasm OpenTSDB text scanner (assembly/opentsdb/, host/ingest/opentsdb-scan.ts) against the
// TypeScript reference parser: every body it takes must give the reference's batches byte for
// byte (or row for row when windows and batch limits cut them differently), and every body the
// reference refuses it must leave to the reference, so errors keep their messages. Fuzzed with
// a seed over generated and mutated bodies.

import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../host/core/wasm.js';
import { OpenTsdbScanner } from '../../host/ingest/opentsdb-scan.js';
import { parseOpenTsdbText, type OpenTsdbOptions } from '../../host/ingest/opentsdb-text.js';
import { loadCore } from '../support/core.js';
import { mutate, rejection, rng, rowsOf, utf8 } from './ingest-support.js';

let core: Core;
let scanner: OpenTsdbScanner;
beforeAll(async () => {
  core = await loadCore();
  scanner = new OpenTsdbScanner(core);
});

const AUTO: OpenTsdbOptions = { precision: undefined, dbUnit: 'ns' };
const OPTIONS: OpenTsdbOptions[] = [
  AUTO,
  { precision: undefined, dbUnit: 'ms' },
  { precision: 'us', dbUnit: 'ns' },
  { precision: 'ns', dbUnit: 'ms' },
  { precision: 's', dbUnit: 'us' },
];

const hex = (batches: readonly Uint8Array[]): string[] => batches.map((b) => Buffer.from(b).toString('hex'));

/** The reference's outcome: its batches, or its error as [code, message]. */
function reference(body: Uint8Array, o: OpenTsdbOptions): Uint8Array[] | [string, string] {
  try {
    return parseOpenTsdbText(body, o);
  } catch {
    return rejection(() => parseOpenTsdbText(body, o));
  }
}

const ACCEPTED = [
  'put cpu.usage_idle 1700000000 98.5 cpu=cpu0 host=a\nput cpu.usage_idle 1700000010 97 cpu=cpu0 host=a\n',
  'm 1 1 t=a\r\n\r\n  m\t2   2.5 \tt=b  \n\n',
  'm 1 -3 k=a\nm 2 +.5 k=a\nm 3 1e3 k=a\nm 4 7. k=a\nm 5 -0 k=a\nm 6 0.000 k=a\nm 7 -1.5E-3 k=a',
  'm 1 1 k=a\nm 1700000000 1 k=a\nm 1700000000123 1 k=a\nm 99999999999 1 k=a\nm -5 1 k=a\nm 0000000001 1 k=a\nm -0 2 k=a',
  // Values only Number() gets right: many digits, tiny and huge exponents, 2^53 + 1.
  'm 1 0.1 k=a\nm 2 123456789012345678901234 k=a\nm 3 1e-300 k=a\nm 4 9007199254740993 k=a\nm 5 4.9e-324 k=a\nm 6 1.7976931348623157e308 k=a',
  // Names with bytes the series key escapes, '=' in a value, unicode, an empty tag set.
  'a,b 1 1 k\\x=v=w c,d=e f=g h\n  ré.gion 2 2 ünï=cödé\nm 3 3\nput put 4 4 x=y\n',
  // Tags in any order, the same tags on many metrics, a tag added to a table later, \r inside a value.
  'm 1 1 z=1 a=2 m=3\nn 1 1 a=2 m=3 z=1\nm 2 2 m=3 z=1 a=2\nm 3 3 a=2 m=3 z=1 q=9\nm 4 4 k=a\rb\n',
  'm 1 1 k=a',
  'm 1 1 k=a\r\r\n', // the value is 'a\r': only the last \r before \n ends a line
  '',
  '\n \n\t\r\n',
];

describe('OpenTSDB text in Wasm', () => {
  it('gives the reference batches byte for byte for every accepted shape and precision', () => {
    for (const text of ACCEPTED) {
      for (const o of OPTIONS) {
        const body = utf8(text);
        const want = reference(body, o);
        if (!Array.isArray(want[0]) && typeof want[0] === 'string') continue; // refused under this precision (overflow)
        const got = scanner.scan(body, o);
        expect(got, `${JSON.stringify(text)} ${JSON.stringify(o)}`).toBeDefined();
        expect(hex(got!), `${JSON.stringify(text)} ${JSON.stringify(o)}`).toEqual(hex(want as Uint8Array[]));
      }
    }
  });

  const REFUSED = [
    'm 1 1 k=a\nm 2',
    'm 1 1 k=a\nm 2 2',
    'm 1 1   \n',
    'm x 1 k=a',
    'm 1.5 1 k=a',
    'm - 1 k=a',
    'm 17000000001234 1 k=a',
    'm 1 NaN k=a',
    'm 1 1e999 k=a',
    'm 1 -1e999 k=a',
    'm 1 0x10 k=a',
    'm 1 . k=a',
    'm 1 1e k=a',
    'm 1 1.2.3 k=a',
    'm 1 1 k',
    'm 1 1 =v',
    'm 1 1 k=',
    'm 1 1 k=a k=b',
    'm 1 1 time=a',
    'm 1 1 value=a',
    'm 9223372037 1 k=a',
    'put',
    'put m 1',
  ];
  it('leaves every body the reference refuses to it, which gives its own error', () => {
    for (const text of REFUSED) {
      const body = utf8(text);
      expect(scanner.scan(body, AUTO), text).toBeUndefined();
      const want = rejection(() => parseOpenTsdbText(body, AUTO));
      expect(
        rejection(() => parseOpenTsdbText(body, { ...AUTO, core })),
        text,
      ).toEqual(want);
    }
    const bad = Uint8Array.from([0x6d, 0x20, 0x31, 0x20, 0x31, 0x20, 0x6b, 0x3d, 0xff]);
    expect(scanner.scan(bad, AUTO)).toBeUndefined();
    expect(rejection(() => parseOpenTsdbText(bad, { ...AUTO, core }))).toEqual([
      '040010',
      'the body is not valid UTF-8',
    ]);
  });

  it('leaves a tag given twice with the same value to the reference, which keeps one', () => {
    const body = utf8('m 1 1 k=a j=b k=a');
    expect(scanner.scan(body, AUTO)).toBeUndefined();
    expect(hex(parseOpenTsdbText(body, { ...AUTO, core }))).toEqual(hex(parseOpenTsdbText(body, AUTO)));
  });

  it('cuts big bodies into windows of whole lines and batches of bounded size, row for row as the reference', () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++)
      lines.push(
        `put m${i % 7} ${1_700_000_000 + (i >> 4)} ${i * 0.25} host=h${i % 13} dc=d${i % 3}${i % 100 === 0 ? ' extra=x' : ''}\n`,
      );
    const body = utf8(lines.join(''));
    const small = new OpenTsdbScanner(core, { windowBytes: 1000, maxBatchBytes: 4096 });
    const got = small.scan(body, AUTO)!;
    expect(got.length).toBeGreaterThan(10);
    expect(rowsOf(got)).toEqual(rowsOf(parseOpenTsdbText(body, AUTO)));
    // A line longer than the window grows it.
    const long = utf8(`m 1 1 ${Array.from({ length: 200 }, (_, i) => `k${i}=v${i}`).join(' ')}\nm 2 2 k0=v0\n`);
    expect(rowsOf(new OpenTsdbScanner(core, { windowBytes: 64 }).scan(long, AUTO)!)).toEqual(
      rowsOf(parseOpenTsdbText(long, AUTO)),
    );
  });

  it('agrees with the reference on generated and mutated bodies (seeded)', () => {
    const r = rng(42);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    // Good tokens mostly, bad ones (last in each list) now and then.
    const tokens = {
      metric: [['m', 'cpu.usage', 'a,b', 'ré', 'put', 'x=y', 'time', 'value'], []],
      ts: [
        ['1', '1700000000', '1700000000123', '-7', '0000000001', '99999999999'],
        ['9223372037', '17000000001234', '1.5', 'x', '-'],
      ],
      value: [
        ['1', '-2.5', '+.5', '7.', '1e3', '0.1', '1e-300', '123456789012345678901', '-0'],
        ['NaN', '1e999', '.', '1e', '0x1'],
      ],
      key: [
        ['host', 'dc', 'a', 'ünï', 'k,x', 'k\\'],
        ['time', 'value', ''],
      ],
      val: [
        ['a', 'b=c', 'v1', 'é'],
        ['', 'x y'],
      ],
    } as const;
    const tok = (t: readonly [readonly string[], readonly string[]]): string =>
      t[1].length > 0 && r() < 0.03 ? pick(t[1]) : pick(t[0]);
    const line = (): string => {
      // One or two tags, now and then none (a point needs one: refused).
      const tags = Array.from(
        { length: r() < 0.05 ? 0 : 1 + Math.floor(r() * 2) },
        () => `${tok(tokens.key)}=${tok(tokens.val)}`,
      );
      const sep = () => pick([' ', ' ', '  ', '\t']);
      const parts = [tok(tokens.metric), tok(tokens.ts), tok(tokens.value), ...tags];
      return (r() < 0.5 ? 'put ' : '') + parts.join(sep()) + pick(['\n', '\n', '\r\n', ' \n', '']);
    };
    const scanners = [scanner, new OpenTsdbScanner(core, { windowBytes: 48, maxBatchBytes: 600 })];
    let taken = 0;
    for (let i = 0; i < 2000; i++) {
      let body = utf8(Array.from({ length: 1 + Math.floor(r() * 6) }, line).join('\n'));
      if (r() < 0.3) body = mutate(body, r, ' \t\n\r=.,-+e0123456789putmk\\é');
      const o = pick(OPTIONS);
      const want = reference(body, o);
      const refused = typeof want[0] === 'string';
      for (const s of scanners) {
        const got = s.scan(body, o);
        const what = `${JSON.stringify(Buffer.from(body).toString('latin1'))} ${JSON.stringify(o)}`;
        if (refused) {
          expect(got, what).toBeUndefined();
          continue;
        }
        if (got === undefined) continue; // left to the reference (a repeated tag key): allowed
        taken++;
        if (s === scanner) expect(hex(got), what).toEqual(hex(want as Uint8Array[]));
        else expect(rowsOf(got), what).toEqual(rowsOf(want as Uint8Array[]));
      }
    }
    expect(taken).toBeGreaterThan(1000); // of 4000 runs; most others are refused, a few left to the reference
  });
});
