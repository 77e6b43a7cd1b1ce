// A JSON reader for /api/v1/sql answers that keeps what JSON.parse loses: the exact text of each
// number (64-bit integers beyond 2^53, and `1.0` vs `1`, which tells DOUBLE from BIGINT) and
// every key of an object in order, duplicates included (`SELECT 1, 1` has two `Int64(1)` columns).

export type JsonValue =
  | { t: 'null' }
  | { t: 'bool'; v: boolean }
  | { t: 'number'; raw: string }
  | { t: 'string'; v: string }
  | { t: 'array'; items: JsonValue[] }
  | { t: 'object'; entries: Array<[string, JsonValue]> };

export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

const MAX_DEPTH = 64;

/**
 * Parses one or more JSON values separated by optional whitespace: CnosDB's chunked answers are
 * one array per batch, Sundial's are one array, possibly followed by an error object.
 */
export function parseJsonSequence(text: string): JsonValue[] {
  const p = new Reader(text);
  const out: JsonValue[] = [];
  p.ws();
  while (!p.done()) {
    out.push(p.value(0));
    p.ws();
  }
  return out;
}

class Reader {
  #s: string;
  #i = 0;

  constructor(s: string) {
    this.#s = s;
  }

  done(): boolean {
    return this.#i >= this.#s.length;
  }

  ws(): void {
    const s = this.#s;
    while (this.#i < s.length) {
      const c = s.charCodeAt(this.#i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.#i++;
    }
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) throw new JsonSyntaxError(this.#i, `nesting deeper than ${MAX_DEPTH}`);
    this.ws();
    const s = this.#s;
    const c = s[this.#i];
    if (c === '{') return this.#object(depth);
    if (c === '[') return this.#array(depth);
    if (c === '"') return { t: 'string', v: this.#string() };
    if (s.startsWith('null', this.#i)) return ((this.#i += 4), { t: 'null' });
    if (s.startsWith('true', this.#i)) return ((this.#i += 4), { t: 'bool', v: true });
    if (s.startsWith('false', this.#i)) return ((this.#i += 5), { t: 'bool', v: false });
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = this.#i;
    const num = m.exec(s);
    if (num === null || num[0] === '')
      throw new JsonSyntaxError(
        this.#i,
        `expected a JSON value, found ${JSON.stringify(s.slice(this.#i, this.#i + 12))}`,
      );
    this.#i += num[0].length;
    return { t: 'number', raw: num[0] };
  }

  #object(depth: number): JsonValue {
    const entries: Array<[string, JsonValue]> = [];
    this.#i++;
    this.ws();
    if (this.#s[this.#i] === '}') return (this.#i++, { t: 'object', entries });
    for (;;) {
      this.ws();
      if (this.#s[this.#i] !== '"') throw new JsonSyntaxError(this.#i, 'expected a key');
      const key = this.#string();
      this.ws();
      this.#expect(':');
      entries.push([key, this.value(depth + 1)]);
      this.ws();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] === '}') return (this.#i++, { t: 'object', entries });
      else throw new JsonSyntaxError(this.#i, "expected ',' or '}'");
    }
  }

  #array(depth: number): JsonValue {
    const items: JsonValue[] = [];
    this.#i++;
    this.ws();
    if (this.#s[this.#i] === ']') return (this.#i++, { t: 'array', items });
    for (;;) {
      items.push(this.value(depth + 1));
      this.ws();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] === ']') return (this.#i++, { t: 'array', items });
      else throw new JsonSyntaxError(this.#i, "expected ',' or ']'");
    }
  }

  #string(): string {
    // The body between the quotes, validated and decoded by JSON.parse (escapes, surrogates).
    const s = this.#s;
    const start = this.#i;
    let i = start + 1;
    while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
    if (i >= s.length) throw new JsonSyntaxError(start, 'unterminated string');
    this.#i = i + 1;
    try {
      return JSON.parse(s.slice(start, i + 1)) as string;
    } catch (cause) {
      throw new JsonSyntaxError(start, `invalid string: ${(cause as Error).message}`);
    }
  }

  #expect(c: string): void {
    if (this.#s[this.#i] !== c) throw new JsonSyntaxError(this.#i, `expected '${c}'`);
    this.#i++;
  }
}

/** The value of the first entry named `key` of an object value. */
export function field(v: JsonValue, key: string): JsonValue | undefined {
  return v.t === 'object' ? v.entries.find(([k]) => k === key)?.[1] : undefined;
}
