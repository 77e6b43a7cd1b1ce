/// <reference types="@as-pect/assembly/types/as-pect" />
// The line-protocol grammar as the Wasm scanner reads it (CONTRACT.md): each case's batch
// printed as text (tables with typed columns, series keys, rows), one table of cases, one loop.
import { errorText, LAST, printBatch, progress, scan } from './lp-support';

class Case {
  constructor(public name: string, public body: string, public want: string, public mul: i64 = 1, public div: i64 = 1) {}
}

const CASES: Case[] = [
  new Case('a minimal line gets the default timestamp', 'm f=1', "table m f:f64\n  m\n    1000 f=1.0"),
  new Case('tags are sorted into the series key', 'cpu,region=us,host=a usage=1.5,idle=2i 100\n', "table cpu host:tag region:tag idle:i64 usage:f64\n  cpu,host=a,region=us\n    100 idle=2i usage=1.5"),
  new Case('every value type', 'm d=1.5,i=-3i,u=18446744073709551615u,b=t,s="x" 1\n', "table m b:bool d:f64 i:i64 s:str u:u64\n  m\n    1 b=true d=1.5 i=-3i s=\"x\" u=18446744073709551615u"),
  new Case('bare numbers are DOUBLE', 'm a=1,b=-2,c=+3,d=1.5e3,e=2E-2,f=0,g=-0,h=007 1\n', "table m a:f64 b:f64 c:f64 d:f64 e:f64 f:f64 g:f64 h:f64\n  m\n    1 a=1.0 b=-2.0 c=3.0 d=1500.0 e=0.02 f=0.0 g=-0 h=7.0"),
  new Case('doubles outside the exact fast path are left to the host', 'm a=0.1e-30,b=12345678901234567890 1\n', "table m a:f64 b:f64\n  m\n    1 a=fix(0.1e-30) b=fix(12345678901234567890)"),
  new Case('integer extremes', 'm a=9223372036854775807i,b=-9223372036854775808i,c=0u,d=18446744073709551615u 1\n', "table m a:i64 b:i64 c:u64 d:u64\n  m\n    1 a=9223372036854775807i b=-9223372036854775808i c=0u d=18446744073709551615u"),
  new Case('every boolean spelling', 'm a=t,b=T,c=true,d=True,e=TRUE,f=f,g=F,h=false,i=False,j=FALSE 1\n', "table m a:bool b:bool c:bool d:bool e:bool f:bool g:bool h:bool i:bool j:bool\n  m\n    1 a=true b=true c=true d=true e=true f=false g=false h=false i=false j=false"),
  new Case('quoted strings with escapes and separators', 'm s="a \\"b\\" c\\\\d \\\'e, f=g" 1\n', "table m s:str\n  m\n    1 s=\"a \"b\" c\\d \\'e, f=g\""),
  new Case('a raw newline inside a quoted string', 'm s="line1\nline2" 5\n', "table m s:str\n  m\n    5 s=\"line1\nline2\""),
  new Case('escapes in measurement, tag keys and values, field keys', 'm\\ e\\,a,t\\ k\\=x=v\\ 1\\,2 f\\ k\\=y=1 1\n', "table m e,a t k=x:tag f k=y:f64\n  m\\ e\\,a,t\\ k\\=x=v\\ 1\\,2\n    1 f k=y=1.0"),
  new Case('backslash pairs stay verbatim in names', 'm\\\\x,t=a\\"b f\\\'=1 1\n', "table m\\\\x t:tag f\\':f64\n  m\\\\\\\\x,t=a\\\\\"b\n    1 f\\'=1.0"),
  new Case('comments, blank lines and leading blanks', '# comment\n\n   \n\t# another\nm f=1 1\n  m f=2 2\n', "table m f:f64\n  m\n    1 f=1.0\n    2 f=2.0"),
  new Case('CRLF line ends and trailing blanks', 'm f=1 1\r\nm f=2 2  \r\nm f=3\r\n', "table m f:f64\n  m\n    1 f=1.0\n    2 f=2.0\n    1000 f=3.0"),
  new Case('several spaces and tabs before the timestamp', 'm f=1   \t 7\n', "table m f:f64\n  m\n    7 f=1.0"),
  new Case('optional and negative timestamps', 'm f=1\nm f=2 -5\nm f=3 -9223372036854775808\nm f=4 9223372036854775807\n', "table m f:f64\n  m\n    1000 f=1.0\n    -5 f=2.0\n    -9223372036854775808 f=3.0\n    9223372036854775807 f=4.0"),
  new Case('seconds to nanoseconds multiply', 'm f=1 3\nm f=2 -3\nm f=3\n', "table m f:f64\n  m\n    3000000000 f=1.0\n    -3000000000 f=2.0\n    1000 f=3.0", 1000000000, 1),
  new Case('nanoseconds to milliseconds divide toward zero', 'm f=1 1999999\nm f=2 -1999999\n', "table m f:f64\n  m\n    1 f=1.0\n    -1 f=2.0", 1, 1000000),
  new Case('sparse fields get validity vectors', 'm a=1,s="x" 1\nm b=2i 2\nm a=3,b=4i 3\n', "table m a:f64? s:str? b:i64?\n  m\n    1 a=1.0 s=\"x\"\n    2 b=2i\n    3 a=3.0 b=4i"),
  new Case('repeated tag and field keys keep the first', 'm,t=1,t=2 f=1,f=2 1\n', "table m t:tag f:f64\n  m,t=1\n    1 f=1.0"),
  new Case('rows are grouped by series, tables kept in order of first use', 'b,h=1 x=1i 1\na y=t 2\nb,h=2 x=2i 3\nb,h=1 x=3i 4\n', "table b h:tag x:i64\n  b,h=1\n    1 x=1i\n    4 x=3i\n  b,h=2\n    3 x=2i\ntable a y:bool\n  a\n    2 y=true"),
  new Case('an equals sign is plain in a measurement and a tag value', 'm=1,t=a=b f=1 1\n', "table m=1 t:tag f:f64\n  m\\=1,t=a\\=b\n    1 f=1.0"),
  new Case('unicode names and values', 'mé,t=日本 f="🦀" 1\n', "table mé t:tag f:str\n  mé,t=日本\n    1 f=\"🦀\""),
  new Case('a hash inside a name is not a comment', 'm#1 f=1 1\n#m f=2 2\n', "table m#1 f:f64\n  m#1\n    1 f=1.0"),
  new Case('an empty body and a comment-only body give no batch', '', "(no batch)"),
];

describe('line protocol grammar', () => {
  it('scans every case of the table (the message names a failing case)', () => {
    let failed = '';
    for (let i = 0; i < CASES.length; i++) {
      const c = CASES[i];
      const rc = scan(c.body, LAST, c.mul, c.div);
      const got = rc == 0 ? printBatch() : errorText(rc);
      if (got != c.want) {
        log('case: ' + c.name + '\n' + got);
        failed += (failed.length > 0 ? ', ' : '') + c.name;
      }
    }
    expect<string>(failed).toBe('');
  });
  it('reports what it consumed', () => {
    expect<i32>(scan('m f=1 1\n# c\nm s="a\nb" 2\n')).toBe(0);
    expect<string>(progress()).toBe('consumed=24 lines=4 rows=2');
  });
});
