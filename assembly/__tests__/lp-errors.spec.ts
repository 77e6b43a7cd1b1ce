/// <reference types="@as-pect/assembly/types/as-pect" />
// Every error the line-protocol scanner reports (assembly/lineprotocol/status.ts, codes 1-25),
// as `E<code> <line>:<column> @<offset>+<length> [measurement|tag|field]` from the result
// record: the first offending byte, the token the host quotes, and nothing stored.
import { lp_result } from '../lineprotocol/index';
import { CONTINUED, conflictText, errorText, LAST, scan, scanBytes } from './lp-support';

class Case {
  constructor(public name: string, public body: string, public want: string, public mul: i64 = 1) {}
}

const CASES: Case[] = [
  new Case('E2 a line starting with a comma', 'm f=1\n,t=1 f=1\n', 'E2 2:1 @6+1'),
  new Case('E3 escaped equals in a measurement', 'c\\=pu f=1\n', 'E3 1:2 @1+2 measurement'),
  new Case('E3 unknown escape in a tag value', 'cpu,t=a\\nb f=1\n', 'E3 1:8 @7+2 tag'),
  new Case('E3 unknown escape in a field key', 'cpu f\\x=1\n', 'E3 1:6 @5+2 field'),
  new Case('E3 backslash at the end of a line', 'cpu,t=a\\\nx', 'E3 1:8 @7+1 tag'),
  new Case('E4 empty tag key', 'cpu,=a f=1\n', 'E4 1:5 @4+1'),
  new Case('E4 trailing comma after tags', 'cpu,a=1, f=1\n', 'E4 1:9 @8+1'),
  new Case('E5 tag key without equals', 'cpu,host f=1\n', 'E5 1:9 @8+1'),
  new Case('E6 empty tag value', 'cpu,host= f=1\n', 'E6 1:10 @9+1'),
  new Case('E6 empty tag value before a comma', 'cpu,host=,a=b f=1\n', 'E6 1:10 @9+1'),
  new Case('E7 no field set', 'cpu\n', 'E7 1:4 @3+0'),
  new Case('E7 tags but no field set, CRLF', 'cpu,host=a\r\n', 'E7 1:12 @11+0'),
  new Case('E7 measurement followed by spaces only', 'cpu   \n', 'E7 1:7 @6+0'),
  new Case('E8 empty field key', 'cpu =1\n', 'E8 1:5 @4+1'),
  new Case('E8 trailing comma after fields', 'cpu f=1,\n', 'E8 1:9 @8+0'),
  new Case('E9 field key without equals', 'cpu f 1\n', 'E9 1:6 @5+1'),
  new Case('E9 field key at the end of the line', 'cpu f\n', 'E9 1:6 @5+0'),
  new Case('E10 empty field value', 'cpu f=,g=1\n', 'E10 1:7 @6+1'),
  new Case('E10 empty field value at the end', 'cpu f=\n', 'E10 1:7 @6+0'),
  new Case('E10 a bare word on line 3', 'm f=1\nm f=1\nm,t=x usage=abc\n', 'E10 3:13 @24+3'),
  new Case('E10 leading dot', 'm f=.5\n', 'E10 1:5 @4+2'),
  new Case('E10 inf is not a number', 'm f=inf\n', 'E10 1:5 @4+3'),
  new Case('E11 misspelt boolean', 'm f=tru\n', 'E11 1:5 @4+3'),
  new Case('E11 mixed-case boolean', 'm f=fAlse 1\n', 'E11 1:5 @4+5'),
  new Case('E12 integer suffix after a fraction', 'm f=1.5i\n', 'E12 1:5 @4+4'),
  new Case('E12 hexadecimal', 'm f=0x10\n', 'E12 1:5 @4+4'),
  new Case('E12 sign without digits', 'm f=-\n', 'E12 1:5 @4+1'),
  new Case('E12 exponent without digits', 'm f=1e+ 1\n', 'E12 1:5 @4+3'),
  new Case('E12 junk after a suffix', 'm f=1ix\n', 'E12 1:5 @4+3'),
  new Case('E13 BIGINT above the range', 'm f=9223372036854775808i\n', 'E13 1:5 @4+20'),
  new Case('E13 BIGINT below the range', 'm f=-9223372036854775809i\n', 'E13 1:5 @4+21'),
  new Case('E13 BIGINT with 20 digits', 'm f=10000000000000000000i\n', 'E13 1:5 @4+21'),
  new Case('E14 BIGINT UNSIGNED above the range', 'm f=18446744073709551616u\n', 'E14 1:5 @4+21'),
  new Case('E14 BIGINT UNSIGNED with a minus sign', 'm f=-1u\n', 'E14 1:5 @4+3'),
  new Case('E14 BIGINT UNSIGNED with a plus sign', 'm f=+1u\n', 'E14 1:5 @4+3'),
  new Case('E15 unterminated string at the end of the body', 'm f=1\nm s="abc\ndef', 'E15 2:5 @10+8'),
  new Case('E15 unterminated string ending in a backslash', 'm s="abc\\', 'E15 1:5 @4+5'),
  new Case('E16 unknown escape in a string', 'm s="a\\tb"\n', 'E16 1:7 @6+2'),
  new Case('E17 text after a closing quote', 'm s="a"b\n', 'E17 1:8 @7+1'),
  new Case('E17 carriage return not before a newline', 'm f=1\r2\n', 'E17 1:6 @5+1'),
  new Case('E10 after a multi-line string counts its lines', 'm s="a\nb\nc",f=x 1\n', 'E10 3:6 @14+1'),
  new Case('E18 timestamp with letters', 'm f=1 12x\n', 'E18 1:7 @6+3'),
  new Case('E18 timestamp with a plus sign', 'm f=1 +12\n', 'E18 1:7 @6+3'),
  new Case('E18 timestamp with a fraction', 'm f=1 1.5\n', 'E18 1:7 @6+3'),
  new Case('E18 timestamp followed by a comma', 'm f=1 15,\n', 'E18 1:7 @6+3'),
  new Case('E19 timestamp above the i64 range', 'm f=1 9223372036854775808\n', 'E19 1:7 @6+19'),
  new Case('E19 timestamp below the i64 range', 'm f=1 -9223372036854775809\n', 'E19 1:7 @6+20'),
  new Case('E20 a second timestamp', 'm f=1 1 2\n', 'E20 1:9 @8+1'),
  new Case('E23 tag key named time', 'm,time=1 f=1\n', 'E23 1:3 @2+4 tag'),
  new Case('E23 field key named time', 'm f=1,time=2\n', 'E23 1:7 @6+4 field'),
  new Case('E24 field type changes between lines', 'cpu usage=1i\ncpu,h=a usage=2.5\n', 'E24 2:9 @21+5'),
  new Case('E24 tag then field', 'm,h=a f=1\nm h=2u\n', 'E24 2:3 @12+1'),
  new Case('E24 field then tag', 'm h=1\nm,h=a f=1\n', 'E24 2:3 @8+1'),
  new Case('E24 tag and field of one line', 'm,h=a h=1\n', 'E24 1:7 @6+1'),
  new Case('E25 timestamp overflow after conversion', 'm f=1 9223372037\n', 'E25 1:7 @6+10', 1000000000),
  new Case('E25 negative timestamp overflow after conversion', 'm f=1 1\nm f=1 -9223372037\n', 'E25 2:7 @14+11', 1000000000),
];

describe('line protocol errors', () => {
  it('reports every case of the table (the log shows the failing ones)', () => {
    let failed = '';
    for (let i = 0; i < CASES.length; i++) {
      const c = CASES[i];
      const got = errorText(scan(c.body, LAST, c.mul));
      if (got != c.want) {
        log('case: ' + c.name + ' => ' + got);
        failed += (failed.length > 0 ? ', ' : '') + c.name;
      }
    }
    expect<string>(failed).toBe('');
  });
});

function bytesOf(s: string): u8[] {
  const b = Uint8Array.wrap(String.UTF8.encode(s));
  const out = new Array<u8>(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b[i];
  return out;
}

function cat(a: u8[], b: u8[], c: u8[]): u8[] {
  return a.concat(b).concat(c);
}

describe('line protocol errors beyond the table', () => {
  it('E1 reports invalid UTF-8 at its first byte, before any later error', () => {
    expect<string>(errorText(scanBytes(cat(bytesOf('m f=1\nm s="a'), [0xff], bytesOf('" 1\n'))))).toBe('E1 2:7 @12+1');
    // overlong encoding, surrogate, truncated sequence at the end
    expect<string>(errorText(scanBytes(cat(bytesOf('m,t='), [0xc0, 0xaf], bytesOf(' f=1\n'))))).toBe('E1 1:5 @4+1');
    expect<string>(errorText(scanBytes(cat(bytesOf('m f=1\n\nm g="'), [0xed, 0xa0, 0x80], bytesOf('"\n'))))).toBe('E1 3:6 @12+1');
    expect<string>(errorText(scanBytes(cat(bytesOf('m f="x" 1\n#'), [0xe6, 0x97], [])))).toBe('E1 2:2 @11+1');
    // before a syntax error later on the same line
    expect<string>(errorText(scanBytes(cat(bytesOf('m'), [0xff], bytesOf(' f=x\n'))))).toBe('E1 1:2 @1+1');
  });
  it('E21 rejects names longer than 65535 bytes, after unescaping', () => {
    expect<string>(errorText(scan('m'.repeat(65536) + ' f=1\n'))).toBe('E21 1:1 @0+65536 measurement');
    expect<string>(errorText(scan('m,' + 'k'.repeat(65536) + '=v f=1\n'))).toBe('E21 1:3 @2+65536 tag');
    expect<string>(errorText(scan('m ' + '\\ '.repeat(65536) + '=1\n'))).toBe('E21 1:3 @2+131072 field');
    // 65535 bytes is allowed
    expect<string>(errorText(scan('m ' + 'f'.repeat(65535) + '=1\n'))).toBe('rc 0');
  });
  it('E22 rejects a 65536th column in one table', () => {
    const fields = new Array<string>(65536);
    for (let i = 0; i < 65536; i++) fields[i] = 'f' + i.toString() + '=1';
    expect<string>(errorText(scan('m ' + fields.slice(0, 65535).join(',') + ' 1\n'))).toBe('rc 0');
    const body = 'm ' + fields.join(',') + ' 1\n';
    const rc = scan(body);
    expect<i32>(rc).toBe(22);
    expect<u32>(load<u32>(lp_result(), 32)).toBe(1);
  });
  it('E24 names the table, the column and both types', () => {
    expect<i32>(scan('cpu usage=1i\ncpu,h=a usage=2.5\n')).toBe(24);
    expect<string>(conflictText()).toBe('cpu.usage 2->1');
    expect<i32>(scan('m,h=a f=1\nm h=2u\n')).toBe(24);
    expect<string>(conflictText()).toBe('m.h 0->3');
    expect<i32>(scan('m\\ x a\\,b=1\nm\\ x a\\,b=1i\n')).toBe(24);
    expect<string>(conflictText()).toBe('m x.a,b 1->2');
  });
  it('E24 catches a conflict with an earlier window of the same request', () => {
    expect<i32>(scan('m f=1i 1\n', 0)).toBe(0);
    expect<i32>(scan('m f="s" 2\n', LAST | CONTINUED)).toBe(24);
    expect<string>(conflictText()).toBe('m.f 2->5');
    // A new request forgets the types.
    expect<i32>(scan('m f="s" 2\n', LAST)).toBe(0);
  });
  it('stores nothing of a body with an error and recovers on the next call', () => {
    expect<i32>(scan('m f=1 1\nm f=x 2\n')).toBe(10);
    expect<u32>(load<u32>(lp_result(), 8)).toBe(0); // no batch
    expect<i32>(scan('m f=1 1\n')).toBe(0);
    expect<u32>(load<u32>(lp_result(), 16)).toBe(1);
  });
});
