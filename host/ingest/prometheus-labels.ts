// The Prometheus label-set text `{job="api", path="/a\"b"}`, which Loki's protobuf push carries
// as a stream's labels. Values are Go-quoted strings (strconv.Quote, as Promtail writes them);
// names follow Prometheus' [a-zA-Z_][a-zA-Z0-9_]*. Runtime-agnostic.

const NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;
const SPACE = /[ \t\r\n]*/y;

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** Parses a label set; returns the pairs in order, or a string saying what is wrong. */
export function parseLabelSet(text: string): Array<[string, string]> | string {
  const out: Array<[string, string]> = [];
  let pos = 0;
  const skip = (): void => {
    SPACE.lastIndex = pos;
    SPACE.exec(text);
    pos = SPACE.lastIndex;
  };
  const fail = (what: string): string => `invalid label set at offset ${pos}: expected ${what}`;
  skip();
  if (text[pos] !== '{') return fail("'{'");
  pos++;
  skip();
  if (text[pos] === '}') {
    pos++;
    skip();
    return pos === text.length ? out : fail('the end after the closing brace');
  }
  for (;;) {
    skip();
    NAME.lastIndex = pos;
    const m = NAME.exec(text);
    if (m === null) return fail('a label name');
    const name = m[0];
    pos = NAME.lastIndex;
    skip();
    if (text[pos] !== '=') return fail("'='");
    pos++;
    skip();
    if (text[pos] !== '"') return fail('a double-quoted label value');
    pos++;
    let value = '';
    for (;;) {
      if (pos >= text.length) return fail('the closing quote of the label value');
      const c = text[pos]!;
      if (c === '"') {
        pos++;
        break;
      }
      if (c !== '\\') {
        value += c;
        pos++;
        continue;
      }
      const e = text[pos + 1];
      if (e === undefined) return fail('an escape sequence');
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        value += simple;
        pos += 2;
        continue;
      }
      const n = HEX_DIGITS[e];
      const hex = n === undefined ? '' : text.slice(pos + 2, pos + 2 + n);
      if (n === undefined || !/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) return fail('a valid escape sequence');
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return fail('a valid code point');
      value += String.fromCodePoint(cp);
      pos += 2 + n;
    }
    out.push([name, value]);
    skip();
    if (text[pos] === ',') {
      pos++;
      skip();
      if (text[pos] !== '}') continue;
    }
    if (text[pos] === '}') {
      pos++;
      skip();
      return pos === text.length ? out : fail('the end after the closing brace');
    }
    return fail("',' or '}'");
  }
}
