import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { readWriteBatch } from '../../host/core/write-batch.js';
import { excerpt, precisionFactors, type LineProtocolOptions } from '../../host/ingest/line-protocol.js';
import { b, bytes, encode, f, hex, i, NS, printAll, pt, s, scanner, u, type Point } from './lp-support.js';

interface ValidCase {
  name: string;
  body: string | Uint8Array;
  points: Point[];
  options?: LineProtocolOptions;
}

const D = NS.defaultTs;

const VALID: ValidCase[] = [
  { name: 'empty body', body: '', points: [] },
  { name: 'comments and blank lines only', body: '# one\n\n   \n\t# two\r\n\r\n', points: [] },
  { name: 'minimal line', body: 'm f=1', points: [pt('m', [], D, f('f', 1))] },
  {
    name: 'tags, fields and timestamp',
    body: 'cpu,host=a,region=us usage=1.5,idle=2i 100\n',
    points: [
      pt(
        'cpu',
        [
          ['host', 'a'],
          ['region', 'us'],
        ],
        100n,
        f('usage', 1.5),
        i('idle', 2n),
      ),
    ],
  },
  {
    name: 'tags in another order name the same series',
    body: 'cpu,region=us,host=a v=1 1\ncpu,host=a,region=us v=2 2\n',
    points: [
      pt(
        'cpu',
        [
          ['host', 'a'],
          ['region', 'us'],
        ],
        1n,
        f('v', 1),
      ),
      pt(
        'cpu',
        [
          ['host', 'a'],
          ['region', 'us'],
        ],
        2n,
        f('v', 2),
      ),
    ],
  },
  {
    name: 'rows grouped by series in order of first appearance',
    body: 'c,h=a v=1 1\nc,h=b v=2 2\nc,h=a v=3 3\nc v=4 4\nc,h=b v=5 5\n',
    points: [
      pt('c', [['h', 'a']], 1n, f('v', 1)),
      pt('c', [['h', 'b']], 2n, f('v', 2)),
      pt('c', [['h', 'a']], 3n, f('v', 3)),
      pt('c', [], 4n, f('v', 4)),
      pt('c', [['h', 'b']], 5n, f('v', 5)),
    ],
  },
  {
    name: 'repeated series out of time order is not sorted',
    body: 'c v=1 30\nc v=2 10\nc v=3 20\nd v=1 1\nd v=1 1\n',
    points: [
      pt('c', [], 30n, f('v', 1)),
      pt('c', [], 10n, f('v', 2)),
      pt('c', [], 20n, f('v', 3)),
      pt('d', [], 1n, f('v', 1)),
      pt('d', [], 1n, f('v', 1)),
    ],
  },
  {
    name: 'multiple tables in order of first use',
    body: 'b x=1i 1\na y=t 2\nb x=2i 3\nc z="s" 4\n',
    points: [
      pt('b', [], 1n, i('x', 1n)),
      pt('a', [], 2n, b('y', true)),
      pt('b', [], 3n, i('x', 2n)),
      pt('c', [], 4n, s('z', 's')),
    ],
  },
  {
    name: 'columns in order of first use: new tags sorted, then new fields sorted',
    body: 'm,z=1,a=2 y=1,b=2 1\nm,c=3,a=2 x=1,a2=5,b=3 2\n',
    points: [
      pt(
        'm',
        [
          ['z', '1'],
          ['a', '2'],
        ],
        1n,
        f('y', 1),
        f('b', 2),
      ),
      pt(
        'm',
        [
          ['c', '3'],
          ['a', '2'],
        ],
        2n,
        f('x', 1),
        f('a2', 5),
        f('b', 3),
      ),
    ],
  },
  {
    name: 'sparse fields get validity vectors, absent strings are empty',
    body: 'm a=1,s="x" 1\nm b=2i 2\nm a=3,b=4i,t=f,s="yz" 3\n',
    points: [
      pt('m', [], 1n, f('a', 1), s('s', 'x')),
      pt('m', [], 2n, i('b', 2n)),
      pt('m', [], 3n, f('a', 3), i('b', 4n), b('t', false), s('s', 'yz')),
    ],
  },
  {
    name: 'repeated tag and field keys keep the first occurrence',
    body: 'm,k=1,k=2 f=1,f=2,g=3i,f="other type" 1\n',
    points: [pt('m', [['k', '1']], 1n, f('f', 1), i('g', 3n))],
  },
  {
    name: 'escapes in measurement, tag keys and values, field keys',
    body: 'my\\ cpu\\,x,t\\ k\\,\\==v\\ 1\\,\\= f\\ \\,\\=k=1 1\n',
    points: [pt('my cpu,x', [['t k,=', 'v 1,=']], 1n, f('f ,=k', 1))],
  },
  {
    name: 'backslash pairs stay verbatim in names but still pair up',
    body: 'm\\\\\\",t\\\'=a\\\\\\ b f\\\\=1 1\n',
    points: [pt('m\\\\\\"', [["t\\'", 'a\\\\ b']], 1n, f('f\\\\', 1))],
  },
  {
    name: 'equals sign is plain in a measurement and a tag value',
    body: 'a=b,t=x=y f=1 1\n',
    points: [pt('a=b', [['t', 'x=y']], 1n, f('f', 1))],
  },
  {
    name: 'quoted strings: escapes, separators and raw newlines',
    body: 'm a="x\\"y\\\\z\\\'w",b="1, 2 = 3",c="",d="line1\nline2\r\nline3" 1\nm a="second" 2\n',
    points: [
      pt('m', [], 1n, s('a', 'x"y\\z\\\'w'), s('b', '1, 2 = 3'), s('c', ''), s('d', 'line1\nline2\r\nline3')),
      pt('m', [], 2n, s('a', 'second')),
    ],
  },
  {
    name: 'integer suffixes at the ends of their ranges',
    body: 'm a=9223372036854775807i,b=-9223372036854775808i,c=18446744073709551615u,d=0u,e=-0i,g=+5i,h=007i,k=00000000000000000000001u 1\n',
    points: [
      pt(
        'm',
        [],
        1n,
        i('a', 9223372036854775807n),
        i('b', -9223372036854775808n),
        u('c', 18446744073709551615n),
        u('d', 0n),
        i('e', 0n),
        i('g', 5n),
        i('h', 7n),
        u('k', 1n),
      ),
    ],
  },
  {
    name: 'bare numbers are DOUBLE',
    body: 'm a=1,b=1.,c=-1.5e-3,d=+2E+2,e=1e22,g=0.1,h=-0,k=123456789012345678901234567890,l=1.e5,n=00.5 1\n',
    points: [
      pt(
        'm',
        [],
        1n,
        f('a', 1),
        f('b', 1),
        f('c', -1.5e-3),
        f('d', 200),
        f('e', 1e22),
        f('g', 0.1),
        f('h', -0),
        // biome-ignore lint/correctness/noPrecisionLoss: literals that round are the cases under test
        f('k', 123456789012345678901234567890),
        f('l', 1e5),
        f('n', 0.5),
      ),
    ],
  },
  {
    name: 'doubles outside the fast path are parsed by the host',
    body: 'm a=1e23,b=9007199254740993,c=2.2250738585072014e-308,d=5e-324,e=1e400,g=-1e-400,h=0.30000000000000004441 1\n',
    points: [
      pt(
        'm',
        [],
        1n,
        f('a', 1e23),
        // biome-ignore lint/correctness/noPrecisionLoss: literals that round are the cases under test
        f('b', 9007199254740993),
        f('c', 2.2250738585072014e-308),
        f('d', 5e-324),
        f('e', Infinity),
        f('g', -0),
        f('h', 0.30000000000000004),
      ),
    ],
  },
  {
    name: 'every boolean spelling',
    body: 'm a=t,b=T,c=true,d=True,e=TRUE,g=f,h=F,k=false,l=False,n=FALSE 1\n',
    points: [
      pt(
        'm',
        [],
        1n,
        b('a', true),
        b('b', true),
        b('c', true),
        b('d', true),
        b('e', true),
        b('g', false),
        b('h', false),
        b('k', false),
        b('l', false),
        b('n', false),
      ),
    ],
  },
  {
    name: 'CRLF, leading blanks, several spaces, trailing blanks',
    body: '  m,t=1   f=1    10   \r\n\tm f=2\t\r\nm f=3 30\t\n m f=4',
    points: [
      pt('m', [['t', '1']], 10n, f('f', 1)),
      pt('m', [], D, f('f', 2)),
      pt('m', [], 30n, f('f', 3)),
      pt('m', [], D, f('f', 4)),
    ],
  },
  {
    name: 'optional and negative timestamps',
    body: 'm f=1\nm f=2 -5\nm f=3 0\nm f=4 -9223372036854775808\nm f=5 9223372036854775807\n',
    points: [
      pt('m', [], D, f('f', 1)),
      pt('m', [], -5n, f('f', 2)),
      pt('m', [], 0n, f('f', 3)),
      pt('m', [], -9223372036854775808n, f('f', 4)),
      pt('m', [], 9223372036854775807n, f('f', 5)),
    ],
  },
  {
    name: 'seconds to nanoseconds multiply; the default timestamp is not converted',
    body: 'm f=1 2\nm f=2 -3\nm f=3\n',
    options: { ...precisionFactors('s', 'ns'), defaultTs: 77n },
    points: [
      pt('m', [], 2_000_000_000n, f('f', 1)),
      pt('m', [], -3_000_000_000n, f('f', 2)),
      pt('m', [], 77n, f('f', 3)),
    ],
  },
  {
    name: 'nanoseconds to milliseconds divide, truncating toward zero',
    body: 'm f=1 1999999\nm f=2 -1999999\nm f=3 999\n',
    options: { ...precisionFactors('ns', 'ms'), defaultTs: 0n },
    points: [pt('m', [], 1n, f('f', 1)), pt('m', [], -1n, f('f', 2)), pt('m', [], 0n, f('f', 3))],
  },
  {
    name: 'unicode names and values',
    body: 'température,城市=北京 值=1.5,s="😀 ü" 1\n',
    points: [pt('température', [['城市', '北京']], 1n, f('值', 1.5), s('s', '😀 ü'))],
  },
  {
    name: 'a comment in the middle and a hash inside a name',
    body: 'm f=1 1\n# m f=2 2\nm#x,t=#y f=3 3\n',
    points: [pt('m', [], 1n, f('f', 1)), pt('m#x', [['t', '#y']], 3n, f('f', 3))],
  },
  {
    name: 'a field named like a tag of another table',
    body: 'a,x=1 f=1 1\nb x=2 2\n',
    points: [pt('a', [['x', '1']], 1n, f('f', 1)), pt('b', [], 2n, f('x', 2))],
  },
  {
    name: 'field order differs between lines of a table',
    body: 'm a=1,b=2 1\nm b=3,a=4 2\nm c=5 3\nm a=6,b=7,c=8 4\n',
    points: [
      pt('m', [], 1n, f('a', 1), f('b', 2)),
      pt('m', [], 2n, f('b', 3), f('a', 4)),
      pt('m', [], 3n, f('c', 5)),
      pt('m', [], 4n, f('a', 6), f('b', 7), f('c', 8)),
    ],
  },
];

interface ErrorCase {
  name: string;
  body: string | Uint8Array;
  kind: string;
  message: string;
  options?: LineProtocolOptions;
}

const ERRORS: ErrorCase[] = [
  {
    name: 'invalid UTF-8 byte',
    body: new Uint8Array([...bytes('m f=1\nm s="a'), 0xff, ...bytes('" 1\n')]),
    kind: 'lineProtocol',
    message: "line 2, column 7: invalid UTF-8, found '\\xff'",
  },
  {
    name: 'overlong UTF-8',
    body: new Uint8Array([...bytes('m,t='), 0xc0, 0xaf, ...bytes(' f=1\n')]),
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid UTF-8, found '\\xc0\\xaf'",
  },
  {
    name: 'UTF-8 surrogate',
    body: new Uint8Array([...bytes('m f=1\n\nm g="'), 0xed, 0xa0, 0x80, ...bytes('"\n')]),
    kind: 'lineProtocol',
    message: "line 3, column 6: invalid UTF-8, found '\\xed\\xa0\\x80'",
  },
  {
    name: 'truncated UTF-8 at the end',
    body: new Uint8Array([...bytes('m f="x" 1\n#'), 0xe6, 0x97]),
    kind: 'lineProtocol',
    message: "line 2, column 2: invalid UTF-8, found '\\xe6\\x97'",
  },
  {
    name: 'invalid UTF-8 before a syntax error wins',
    body: new Uint8Array([...bytes('m'), 0xff, ...bytes(' f=x\n')]),
    kind: 'lineProtocol',
    message: "line 1, column 2: invalid UTF-8, found '\\xff'",
  },
  {
    name: 'empty measurement',
    body: 'm f=1\n,t=1 f=1\n',
    kind: 'lineProtocol',
    message: "line 2, column 1: expected a measurement name, found ','",
  },
  {
    name: 'line without a field set',
    body: 'cpu\n',
    kind: 'lineProtocol',
    message: 'line 1, column 4: expected a field set, found end of line',
  },
  {
    name: 'tags but no field set (CnosDB issue #1533)',
    body: 'cpu,host=a\r\n',
    kind: 'lineProtocol',
    message: 'line 1, column 12: expected a field set, found end of line',
  },
  {
    name: 'measurement followed by spaces only',
    body: 'cpu   \n',
    kind: 'lineProtocol',
    message: 'line 1, column 7: expected a field set, found end of line',
  },
  {
    name: 'escaped equals in a measurement',
    body: 'c\\=pu f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 2: invalid escape, found '\\\\='",
  },
  {
    name: 'unknown escape in a tag value',
    body: 'cpu,t=a\\nb f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 8: invalid escape, found '\\\\n'",
  },
  {
    name: 'unknown escape in a field key',
    body: 'cpu f\\x=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 6: invalid escape, found '\\\\x'",
  },
  {
    name: 'backslash at the end of a line',
    body: 'cpu,t=a\\\nx',
    kind: 'lineProtocol',
    message: "line 1, column 8: invalid escape, found '\\\\'",
  },
  {
    name: 'empty tag key',
    body: 'cpu,=a f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: expected a tag key, found '='",
  },
  {
    name: 'trailing comma after tags',
    body: 'cpu,a=1, f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 9: expected a tag key, found ' '",
  },
  {
    name: 'tag without equals',
    body: 'cpu,host f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 9: expected '=' after the tag key, found ' '",
  },
  {
    name: 'empty tag value',
    body: 'cpu,host= f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 10: expected a tag value, found ' '",
  },
  {
    name: 'empty tag value before a comma',
    body: 'cpu,host=,a=b f=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 10: expected a tag value, found ','",
  },
  {
    name: 'empty field key',
    body: 'cpu =1\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: expected a field key, found '='",
  },
  {
    name: 'trailing comma after fields',
    body: 'cpu f=1,\n',
    kind: 'lineProtocol',
    message: 'line 1, column 9: expected a field key, found end of line',
  },
  {
    name: 'field without equals',
    body: 'cpu f 1\n',
    kind: 'lineProtocol',
    message: "line 1, column 6: expected '=' after the field key, found ' '",
  },
  {
    name: 'field key at the end of the line',
    body: 'cpu f\n',
    kind: 'lineProtocol',
    message: "line 1, column 6: expected '=' after the field key, found end of line",
  },
  {
    name: 'empty field value',
    body: 'cpu f=,g=1\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid field value, expected a number, boolean or quoted string, found ','",
  },
  {
    name: 'empty field value at the end',
    body: 'cpu f=\n',
    kind: 'lineProtocol',
    message: 'line 1, column 7: invalid field value, expected a number, boolean or quoted string, found end of line',
  },
  {
    name: 'bare word',
    body: 'm f=1\nm f=1\nm,t=x usage=abc\n',
    kind: 'lineProtocol',
    message: "line 3, column 13: invalid field value, expected a number, boolean or quoted string, found 'abc'",
  },
  {
    name: 'leading dot',
    body: 'm f=.5\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid field value, expected a number, boolean or quoted string, found '.5'",
  },
  {
    name: 'inf and nan are not numbers',
    body: 'm f=inf\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid field value, expected a number, boolean or quoted string, found 'inf'",
  },
  {
    name: 'misspelt boolean',
    body: 'm f=tru\n',
    kind: 'lineProtocol',
    message:
      "line 1, column 5: invalid boolean, expected t, T, true, True, TRUE, f, F, false, False or FALSE, found 'tru'",
  },
  {
    name: 'mixed-case boolean',
    body: 'm f=fAlse 1\n',
    kind: 'lineProtocol',
    message:
      "line 1, column 5: invalid boolean, expected t, T, true, True, TRUE, f, F, false, False or FALSE, found 'fAlse'",
  },
  {
    name: 'integer suffix after a fraction',
    body: 'm f=1.5i\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid number, found '1.5i'",
  },
  {
    name: 'hexadecimal',
    body: 'm f=0x10\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid number, found '0x10'",
  },
  {
    name: 'sign without digits',
    body: 'm f=-\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid number, found '-'",
  },
  {
    name: 'exponent without digits',
    body: 'm f=1e+ 1\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid number, found '1e+'",
  },
  {
    name: 'junk after a suffix',
    body: 'm f=1ix\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: invalid number, found '1ix'",
  },
  {
    name: 'BIGINT above the range',
    body: 'm f=9223372036854775808i\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: integer out of range for BIGINT, found '9223372036854775808i'",
  },
  {
    name: 'BIGINT below the range',
    body: 'm f=-9223372036854775809i\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: integer out of range for BIGINT, found '-9223372036854775809i'",
  },
  {
    name: 'BIGINT with 20 digits',
    body: 'm f=10000000000000000000i\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: integer out of range for BIGINT, found '10000000000000000000i'",
  },
  {
    name: 'BIGINT UNSIGNED above the range',
    body: 'm f=18446744073709551616u\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: integer out of range for BIGINT UNSIGNED, found '18446744073709551616u'",
  },
  {
    name: 'BIGINT UNSIGNED with a sign',
    body: 'm f=-1u\n',
    kind: 'lineProtocol',
    message: "line 1, column 5: integer out of range for BIGINT UNSIGNED, found '-1u'",
  },
  {
    name: 'unterminated string',
    body: 'm f=1\nm s="abc\ndef',
    kind: 'lineProtocol',
    message: "line 2, column 5: unterminated quoted string, found '\"abc\\ndef'",
  },
  {
    name: 'unknown escape in a string',
    body: 'm s="a\\tb"\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid escape in a quoted string (allowed: \\\" \\\\ \\'), found '\\\\t'",
  },
  {
    name: 'text after a closing quote',
    body: 'm s="a"b\n',
    kind: 'lineProtocol',
    message: "line 1, column 8: expected ',' or a space after the field value, found 'b'",
  },
  {
    name: 'carriage return not before a newline',
    body: 'm f=1\r2\n',
    kind: 'lineProtocol',
    message: "line 1, column 6: expected ',' or a space after the field value, found '\\r'",
  },
  {
    name: 'error after a multi-line string counts its lines',
    body: 'm s="a\nb\nc",f=x 1\n',
    kind: 'lineProtocol',
    message: "line 3, column 6: invalid field value, expected a number, boolean or quoted string, found 'x'",
  },
  {
    name: 'timestamp with letters',
    body: 'm f=1 12x\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid timestamp, expected an integer, found '12x'",
  },
  {
    name: 'timestamp with a plus sign',
    body: 'm f=1 +12\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid timestamp, expected an integer, found '+12'",
  },
  {
    name: 'timestamp with a fraction',
    body: 'm f=1 1.5\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid timestamp, expected an integer, found '1.5'",
  },
  {
    name: 'timestamp followed by a comma',
    body: 'm f=1 15,\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: invalid timestamp, expected an integer, found '15,'",
  },
  {
    name: 'timestamp above the i64 range',
    body: 'm f=1 9223372036854775808\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: timestamp out of the 64-bit range, found '9223372036854775808'",
  },
  {
    name: 'timestamp below the i64 range',
    body: 'm f=1 -9223372036854775809\n',
    kind: 'lineProtocol',
    message: "line 1, column 7: timestamp out of the 64-bit range, found '-9223372036854775809'",
  },
  {
    name: 'a second timestamp',
    body: 'm f=1 1 2\n',
    kind: 'lineProtocol',
    message: "line 1, column 9: expected the end of the line after the timestamp, found '2'",
  },
  {
    name: 'tag key named time',
    body: 'm,time=1 f=1\n',
    kind: 'schemaConflict',
    message: "line 1, column 3: 'time' is reserved and cannot be a tag name",
  },
  {
    name: 'field key named time',
    body: 'm f=1,time=2\n',
    kind: 'schemaConflict',
    message: "line 1, column 7: 'time' is reserved and cannot be a field name",
  },
  {
    name: 'measurement name too long',
    body: `${'m'.repeat(65536)} f=1\n`,
    kind: 'lineProtocol',
    message: 'line 1, column 1: measurement name longer than 65535 bytes',
  },
  {
    name: 'tag key too long',
    body: `m,${'k'.repeat(65536)}=v f=1\n`,
    kind: 'lineProtocol',
    message: 'line 1, column 3: tag name longer than 65535 bytes',
  },
  {
    name: 'field key too long after unescaping',
    body: `m ${'\\ '.repeat(65536)}=1\n`,
    kind: 'lineProtocol',
    message: 'line 1, column 3: field name longer than 65535 bytes',
  },
  {
    name: 'field type changes between lines',
    body: 'cpu usage=1i\ncpu,h=a usage=2.5\n',
    kind: 'schemaConflict',
    message: "line 2, column 9: column 'usage' of table 'cpu' is BIGINT in this request, written as DOUBLE",
  },
  {
    name: 'field type changes within a line set',
    body: 'm a=1,b="x"\nm b=t\n',
    kind: 'schemaConflict',
    message: "line 2, column 3: column 'b' of table 'm' is STRING in this request, written as BOOLEAN",
  },
  {
    name: 'tag then field',
    body: 'm,h=a f=1\nm h=2u\n',
    kind: 'schemaConflict',
    message: "line 2, column 3: column 'h' of table 'm' is TAG in this request, written as BIGINT UNSIGNED",
  },
  {
    name: 'field then tag',
    body: 'm h=1\nm,h=a f=1\n',
    kind: 'schemaConflict',
    message: "line 2, column 3: column 'h' of table 'm' is DOUBLE in this request, written as TAG",
  },
  {
    name: 'tag and field of one line',
    body: 'm,h=a h=1\n',
    kind: 'schemaConflict',
    message: "line 1, column 7: column 'h' of table 'm' is TAG in this request, written as DOUBLE",
  },
  {
    name: 'escaped names in a conflict message',
    body: 'm\\ x a\\,b=1\nm\\ x a\\,b=1i\n',
    kind: 'schemaConflict',
    message: "line 2, column 6: column 'a,b' of table 'm x' is DOUBLE in this request, written as BIGINT",
  },
  {
    name: 'timestamp overflow after conversion',
    body: 'm f=1 9223372037\n',
    options: { ...precisionFactors('s', 'ns'), defaultTs: 0n },
    kind: 'timestampOverflow',
    message: "line 1, column 7: timestamp '9223372037' is out of range when converted to the database precision",
  },
  {
    name: 'negative timestamp overflow after conversion',
    body: 'm f=1 1\nm f=1 -9223372037\n',
    options: { ...precisionFactors('s', 'ns'), defaultTs: 0n },
    kind: 'timestampOverflow',
    message: "line 2, column 7: timestamp '-9223372037' is out of range when converted to the database precision",
  },
  {
    name: 'long excerpts are cut',
    body: `m f=${'x'.repeat(100)}\n`,
    kind: 'lineProtocol',
    message: `line 1, column 5: invalid field value, expected a number, boolean or quoted string, found '${'x'.repeat(40)}...'`,
  },
];

describe('LineProtocolScanner', () => {
  for (const c of VALID) {
    it(`scans ${c.name}`, async () => {
      const sc = await scanner();
      const body = typeof c.body === 'string' ? bytes(c.body) : c.body;
      const got = sc.scan(body, c.options ?? NS);
      const want = encode(c.points);
      expect(printAll(got)).toBe(printAll(want));
      expect(hex(got)).toEqual(hex(want));
      for (const batch of got) {
        expect(batch.byteOffset % 8).toBe(0);
        readWriteBatch(batch);
      }
    });
  }

  for (const c of ERRORS) {
    it(`rejects ${c.name}`, async () => {
      const sc = await scanner();
      const body = typeof c.body === 'string' ? bytes(c.body) : c.body;
      let error: unknown;
      try {
        sc.scan(body, c.options ?? NS);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).message).toBe(c.message);
      expect((error as UserError).kind).toBe(c.kind);
    });
  }

  it('keeps working after an error', async () => {
    const sc = await scanner();
    expect(() => sc.scan(bytes('m f=x\n'), NS)).toThrow(UserError);
    expect(hex(sc.scan(bytes('m f=1 1\n'), NS))).toEqual(hex(encode([pt('m', [], 1n, f('f', 1))])));
  });

  it('forgets the column types of the previous request', async () => {
    const sc = await scanner();
    sc.scan(bytes('m f=1i 1\n'), NS);
    expect(hex(sc.scan(bytes('m f=1 1\n'), NS))).toEqual(hex(encode([pt('m', [], 1n, f('f', 1))])));
  });
});

describe('precisionFactors', () => {
  const cases: Array<[Parameters<typeof precisionFactors>, bigint, bigint]> = [
    [['ns', 'ns'], 1n, 1n],
    [['s', 'ns'], 1_000_000_000n, 1n],
    [['ms', 'us'], 1_000n, 1n],
    [['ns', 'ms'], 1n, 1_000_000n],
    [['us', 'ms'], 1n, 1_000n],
  ];
  for (const [args, mul, div] of cases) {
    it(`maps ${args[0]} to ${args[1]}`, () => {
      expect(precisionFactors(...args)).toEqual({ tsMultiplier: mul, tsDivisor: div });
    });
  }
});

describe('excerpt', () => {
  const cases: Array<[string, Uint8Array, string]> = [
    ['printable ASCII as is, backslash doubled', bytes("a b'\\"), "a b'\\\\"],
    ['control bytes escaped', new Uint8Array([0x0a, 0x0d, 0x09, 0x00, 0x7f]), '\\n\\r\\t\\x00\\x7f'],
    ['valid UTF-8 kept', bytes('é日😀'), 'é日😀'],
    ['invalid bytes as hex', new Uint8Array([0x61, 0xff, 0xc3, 0x28]), 'a\\xff\\xc3('],
  ];
  for (const [name, input, want] of cases) it(`shows ${name}`, () => expect(excerpt(input)).toBe(want));
});
