// The parser of the SELECTs that PostgreSQL tools run over pg_catalog and information_schema
// (catalog-eval.ts evaluates them): the select list, FROM with its JOINs (for the aliases only),
// WHERE, ORDER BY and LIMIT. What it does not model parses as `unknown`; it never throws.

import type { Scalar } from '../engine/types/index.js';
import type { PgToken } from './sql-text.js';

export type Node =
  | { k: 'lit'; v: Scalar }
  | { k: 'col'; qual: string | undefined; name: string }
  | { k: 'fn'; name: string; args: Node[] }
  | { k: 'case'; operand: Node | undefined; whens: Array<[Node, Node]>; otherwise: Node | undefined }
  | { k: 'bin'; op: string; l: Node; r: Node }
  | { k: 'not'; e: Node }
  | { k: 'in'; e: Node; list: Node[] | 'search_path' | undefined; negated: boolean }
  | { k: 'isnull'; e: Node; negated: boolean }
  | { k: 'index'; e: Node; index: Node }
  | { k: 'unknown' };

interface Item {
  node: Node;
  name: string;
}

export interface Select {
  items: Item[];
  /** alias -> unqualified table name; the first is the main table. */
  aliases: Map<string, string>;
  main: string | undefined;
  /** Tables joined without LEFT (or listed after a comma): each must have rows for any row to exist. */
  inner: string[];
  where: Node | undefined;
  order: Array<{ node: Node; position: number | undefined; desc: boolean }>;
  limit: number | undefined;
}

const STOP_WORDS = new Set(['from', 'where', 'order', 'group', 'limit', 'offset', 'union', 'having', 'window', 'for']);
const NOT_ALIASES = new Set(['end', 'null', 'true', 'false', 'and', 'or', 'not', 'desc', 'asc', 'then', 'else']);

class Cursor {
  i: number;
  constructor(
    readonly tokens: readonly PgToken[],
    start: number,
    readonly end: number,
  ) {
    this.i = start;
  }
  peek(o = 0): PgToken | undefined {
    return this.i + o < this.end ? this.tokens[this.i + o] : undefined;
  }
  is(value: string, o = 0): boolean {
    const t = this.peek(o);
    return t !== undefined && (t.kind === 'word' || t.kind === 'op') && t.value === value;
  }
  eat(value: string): boolean {
    if (!this.is(value)) return false;
    this.i++;
    return true;
  }
  /** Skips a balanced parenthesised group starting at '('. */
  skipGroup(): void {
    let depth = 0;
    while (this.i < this.end) {
      const t = this.tokens[this.i++]!;
      if (t.kind === 'op' && t.value === '(') depth++;
      else if (t.kind === 'op' && t.value === ')' && --depth === 0) return;
    }
  }
}

/** Index of the next top-level token matching `pred` in [from, end), or end. */
function findTop(tokens: readonly PgToken[], from: number, end: number, pred: (t: PgToken) => boolean): number {
  let depth = 0;
  for (let i = from; i < end; i++) {
    const t = tokens[i]!;
    if (t.kind === 'op' && (t.value === '(' || t.value === '[')) depth++;
    else if (t.kind === 'op' && (t.value === ')' || t.value === ']')) depth--;
    else if (depth === 0 && pred(t)) return i;
  }
  return end;
}

const isWord = (w: string) => (t: PgToken) => t.kind === 'word' && t.value === w;

export function parseSelect(_sql: string, tokens: readonly PgToken[]): Select | undefined {
  if (!(tokens[0]?.kind === 'word' && tokens[0].value === 'select')) return undefined;
  const n = tokens.length;
  let i = 1;
  if (tokens[i]?.value === 'distinct') i++;
  const fromAt = findTop(tokens, i, n, isWord('from'));
  const items: Item[] = [];
  for (let a = i; a < fromAt; ) {
    const b = findTop(tokens, a, fromAt, (t) => t.kind === 'op' && t.value === ',');
    items.push(parseItem(tokens, a, b));
    a = b + 1;
  }
  const clauseEnd = (from: number): number =>
    findTop(tokens, from, n, (t) => t.kind === 'word' && STOP_WORDS.has(t.value));
  const aliases = new Map<string, string>();
  const inner: string[] = [];
  let main: string | undefined;
  let where: Node | undefined;
  let order: Select['order'] = [];
  let limit: number | undefined;
  if (fromAt < n) {
    const fromEnd = clauseEnd(fromAt + 1);
    main = parseFrom(tokens, fromAt + 1, fromEnd, aliases, inner);
    let at = fromEnd;
    while (at < n) {
      const w = tokens[at]!.value;
      const next = clauseEnd(at + (w === 'order' || w === 'group' ? 2 : 1));
      if (w === 'where') where = parseExpr(new Cursor(tokens, at + 1, next));
      else if (w === 'order') order = parseOrder(tokens, at + 2, next);
      else if (w === 'limit' && tokens[at + 1]?.kind === 'number') limit = Number(tokens[at + 1]!.value);
      // UNION: the first branch answers (the branches of a catalog query read the same kind of rows).
      else if (w === 'union') break;
      at = next;
    }
  }
  return { items, aliases, main, inner, where, order, limit };
}

function parseItem(tokens: readonly PgToken[], a: number, b: number): Item {
  let end = b;
  let alias: string | undefined;
  const last = tokens[b - 1];
  const before = tokens[b - 2];
  if (
    last !== undefined &&
    b - a >= 2 &&
    (last.kind === 'quoted' || (last.kind === 'word' && !NOT_ALIASES.has(last.value)))
  ) {
    if (before?.kind === 'word' && before.value === 'as') {
      alias = last.value;
      end = b - 2;
    } else if (
      before !== undefined &&
      before.value !== '.' &&
      before.value !== '::' &&
      (before.kind !== 'op' || before.value === ')')
    ) {
      alias = last.value;
      end = b - 1;
    }
  }
  const node = parseExpr(new Cursor(tokens, a, end));
  return { node, name: alias ?? defaultName(node) };
}

function defaultName(node: Node): string {
  if (node.k === 'col') return node.name;
  if (node.k === 'fn') return node.name;
  if (node.k === 'case') return 'case';
  return '?column?';
}

function parseFrom(
  tokens: readonly PgToken[],
  from: number,
  end: number,
  aliases: Map<string, string>,
  inner: string[],
): string | undefined {
  const c = new Cursor(tokens, from, end);
  let main: string | undefined;
  let outer = false;
  while (c.i < end) {
    const t = c.peek()!;
    if (t.kind === 'op' && t.value === '(') {
      c.skipGroup();
      continue;
    }
    if (t.kind === 'word' && (t.value === 'on' || t.value === 'using')) {
      // Skip the join condition up to the next JOIN or comma.
      c.i = findTop(
        tokens,
        c.i + 1,
        end,
        (x) =>
          (x.kind === 'word' && ['join', 'left', 'right', 'inner', 'full', 'cross'].includes(x.value)) ||
          (x.kind === 'op' && x.value === ','),
      );
      continue;
    }
    if (
      t.kind === 'word' &&
      ['left', 'right', 'inner', 'full', 'outer', 'cross', 'join', 'lateral'].includes(t.value)
    ) {
      if (t.value === 'left' || t.value === 'right' || t.value === 'full') outer = true;
      c.i++;
      continue;
    }
    if (t.kind === 'op' && t.value === ',') {
      outer = false;
      c.i++;
      continue;
    }
    if (t.kind === 'word' || t.kind === 'quoted') {
      let schema: string | undefined;
      let name = t.value;
      c.i++;
      if (c.is('.') && c.peek(1) !== undefined) {
        schema = name;
        name = c.peek(1)!.value;
        c.i += 2;
      }
      const qualified = `${schema ?? (name.startsWith('pg_') ? 'pg_catalog' : '')}.${name}`;
      let alias = name;
      if (c.eat('as')) {
        alias = c.peek()?.value ?? name;
        c.i++;
      } else if (
        (c.peek()?.kind === 'word' || c.peek()?.kind === 'quoted') &&
        !['left', 'right', 'inner', 'full', 'join', 'on', 'cross', 'natural', 'using'].includes(c.peek()!.value)
      ) {
        alias = c.peek()!.value;
        c.i++;
      }
      if (c.is('(')) c.skipGroup(); // a function's column list: `unnest(x) AS u(y)`
      aliases.set(alias, qualified);
      if (main !== undefined && !outer) inner.push(qualified);
      main ??= qualified;
      outer = false;
      continue;
    }
    c.i++;
  }
  return main;
}

function parseOrder(tokens: readonly PgToken[], from: number, end: number): Select['order'] {
  const out: Select['order'] = [];
  for (let a = from; a < end; ) {
    const b = findTop(tokens, a, end, (t) => t.kind === 'op' && t.value === ',');
    let e = b;
    let desc = false;
    while (
      e > a &&
      tokens[e - 1]!.kind === 'word' &&
      ['asc', 'desc', 'nulls', 'first', 'last'].includes(tokens[e - 1]!.value)
    ) {
      if (tokens[e - 1]!.value === 'desc') desc = true;
      e--;
    }
    const position = e === a + 1 && tokens[a]!.kind === 'number' ? Number(tokens[a]!.value) : undefined;
    out.push({ node: parseExpr(new Cursor(tokens, a, e)), position, desc });
    a = b + 1;
  }
  return out;
}

// ---- expressions: OR < AND < NOT < comparison < || and arithmetic < postfix < primary

function parseExpr(c: Cursor): Node {
  try {
    const node = parseOr(c);
    return c.i === c.end ? node : { k: 'unknown' };
  } catch {
    return { k: 'unknown' };
  }
}

function parseOr(c: Cursor): Node {
  let l = parseAnd(c);
  while (c.eat('or')) l = { k: 'bin', op: 'or', l, r: parseAnd(c) };
  return l;
}

function parseAnd(c: Cursor): Node {
  let l = parseNot(c);
  while (c.eat('and')) l = { k: 'bin', op: 'and', l, r: parseNot(c) };
  return l;
}

function parseNot(c: Cursor): Node {
  if (c.eat('not')) return { k: 'not', e: parseNot(c) };
  return parseComparison(c);
}

const COMPARISONS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=', '~', '!~', '~*', '!~*']);

function parseComparison(c: Cursor): Node {
  const l = parseConcat(c);
  for (;;) {
    const t = c.peek();
    if (t === undefined) return l;
    if (t.kind === 'op' && COMPARISONS.has(t.value)) {
      c.i++;
      return { k: 'bin', op: t.value, l, r: parseConcat(c) };
    }
    if (c.is('operator') && c.is('(', 1)) {
      // OPERATOR(pg_catalog.~)
      c.i += 2;
      let op = '';
      while (c.peek() !== undefined && !c.is(')')) {
        const x = c.peek()!;
        if (x.kind === 'op' && x.value !== '.') op = x.value;
        c.i++;
      }
      c.eat(')');
      return { k: 'bin', op, l, r: parseConcat(c) };
    }
    const negated = c.is('not') && (c.is('in', 1) || c.is('like', 1) || c.is('ilike', 1));
    if (negated) c.i++;
    if (c.eat('in')) {
      if (!c.is('(')) return { k: 'unknown' };
      if (c.is('select', 1)) {
        const start = c.i;
        c.skipGroup();
        const mentionsSearchPath = c.tokens
          .slice(start, c.i)
          .some((x) => x.kind === 'string' && x.value === 'search_path');
        return { k: 'in', e: l, list: mentionsSearchPath ? 'search_path' : undefined, negated };
      }
      c.i++;
      const list: Node[] = [];
      while (c.peek() !== undefined && !c.is(')')) {
        list.push(parseConcat(c));
        c.eat(',');
      }
      c.eat(')');
      return { k: 'in', e: l, list, negated };
    }
    if (c.is('like') || c.is('ilike')) {
      const op = c.peek()!.value;
      c.i++;
      const r = parseConcat(c);
      const node: Node = { k: 'bin', op, l, r };
      return negated ? { k: 'not', e: node } : node;
    }
    if (c.eat('is')) {
      const not = c.eat('not');
      if (c.eat('null')) return { k: 'isnull', e: l, negated: not };
      if (c.eat('true')) return not ? { k: 'not', e: l } : l;
      if (c.eat('false')) return not ? l : { k: 'not', e: l };
      return { k: 'unknown' };
    }
    return l;
  }
}

function parseConcat(c: Cursor): Node {
  let l = parsePostfix(c);
  for (;;) {
    const t = c.peek();
    if (t?.kind === 'op' && ['||', '+', '-', '*', '/'].includes(t.value)) {
      c.i++;
      l = { k: 'bin', op: t.value, l, r: parsePostfix(c) };
    } else return l;
  }
}

function parsePostfix(c: Cursor): Node {
  let e = parsePrimary(c);
  for (;;) {
    if (c.eat('::')) {
      // A cast: the type name, possibly qualified; kept as the value (text, int, regtype...).
      c.i++;
      while (c.is('.')) c.i += 2;
      if (c.is('[')) c.i += 2;
    } else if (c.is('collate')) {
      c.i += 2;
      while (c.is('.')) c.i += 2;
    } else if (c.eat('[')) {
      const index = parseOr(c);
      c.eat(']');
      e = { k: 'index', e, index };
    } else return e;
  }
}

function parsePrimary(c: Cursor): Node {
  const t = c.peek();
  if (t === undefined) throw new Error('end of expression');
  c.i++;
  if (t.kind === 'string') return { k: 'lit', v: t.value };
  if (t.kind === 'number') return { k: 'lit', v: /^[0-9]+$/.test(t.value) ? BigInt(t.value) : Number(t.value) };
  if (t.kind === 'param') return { k: 'unknown' };
  if (t.kind === 'op' && t.value === '(') {
    if (c.is('select')) {
      c.i--;
      c.skipGroup();
      return { k: 'unknown' };
    }
    const e = parseOr(c);
    if (!c.eat(')')) throw new Error('unbalanced parenthesis');
    return e;
  }
  if (t.kind === 'op' && t.value === '-') {
    const e = parsePostfix(c);
    return e.k === 'lit' && typeof e.v === 'bigint'
      ? { k: 'lit', v: -e.v }
      : e.k === 'lit' && typeof e.v === 'number'
        ? { k: 'lit', v: -e.v }
        : { k: 'unknown' };
  }
  if (t.kind === 'word') {
    const w = t.value;
    if (w === 'null') return { k: 'lit', v: null };
    if (w === 'true' || w === 'false') return { k: 'lit', v: w === 'true' };
    if (w === 'case') return parseCase(c);
    if (w === 'array' || w === 'exists') {
      if (c.is('(') || c.is('[')) c.skipGroup();
      return { k: 'unknown' };
    }
    if (w === 'pg_catalog' && c.is('.')) return parsePrimary((c.i++, c));
    if (c.is('(')) {
      c.i++;
      const args: Node[] = [];
      c.eat('distinct');
      while (c.peek() !== undefined && !c.is(')')) {
        args.push(parseOr(c));
        if (!c.eat(',')) break;
      }
      if (!c.eat(')')) throw new Error('unbalanced call');
      return { k: 'fn', name: w, args };
    }
    if (c.is('.') && c.peek(1) !== undefined) {
      const name = c.peek(1)!.value;
      c.i += 2;
      return { k: 'col', qual: w, name };
    }
    if (['current_user', 'session_user', 'user', 'current_schema', 'current_catalog', 'current_role'].includes(w))
      return { k: 'fn', name: w, args: [] };
    return { k: 'col', qual: undefined, name: w };
  }
  if (t.kind === 'quoted') {
    if (c.is('.') && c.peek(1) !== undefined) {
      const name = c.peek(1)!.value;
      c.i += 2;
      return { k: 'col', qual: t.value, name };
    }
    return { k: 'col', qual: undefined, name: t.value };
  }
  throw new Error(`unexpected ${t.value}`);
}

function parseCase(c: Cursor): Node {
  const operand = c.is('when') ? undefined : parseConcat(c);
  const whens: Array<[Node, Node]> = [];
  let otherwise: Node | undefined;
  while (c.eat('when')) {
    const cond = parseOr(c);
    if (!c.eat('then')) throw new Error('CASE without THEN');
    whens.push([cond, parseOr(c)]);
  }
  if (c.eat('else')) otherwise = parseOr(c);
  if (!c.eat('end')) throw new Error('CASE without END');
  return { k: 'case', operand, whens, otherwise };
}

// ---- evaluation
