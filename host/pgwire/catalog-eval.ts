// A small interpreter for the SELECTs that PostgreSQL tools run over pg_catalog and
// information_schema (catalog-queries.ts supplies the rows). It parses the select list, FROM with
// its JOINs (for the aliases only: each virtual row already carries its related tables' columns,
// keyed `table.column`), WHERE, ORDER BY and LIMIT, and evaluates expressions in PostgreSQL's
// three-valued logic, where anything it does not model is UNKNOWN: NULL as a value, and a
// condition that keeps the row. Never throws on odd SQL: it answers what it understood.

import { BOOLEAN, type DataType, type Field, FLOAT64, INT64, type Scalar, UTF8 } from '../engine/types/index.js';
import { quoteIdent, type LocalResult } from './session-commands.js';
import type { PgToken } from './sql-text.js';

/** A virtual row: `table.column` (the table's unqualified name) -> value. */
export type Row = Record<string, Scalar>;
/** Qualified table name (`pg_catalog.pg_class`) -> its rows. */
export type VirtualTables = Record<string, () => Row[]>;

export interface EvalEnv {
  currentDatabase: string;
  user: string;
  setting(name: string): string | null;
  typeName(oid: Scalar): string | null;
}

const UNKNOWN = Symbol('unknown');
type Value = Scalar | typeof UNKNOWN;

type Node =
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
  const clauseEnd = (from: number): number => findTop(tokens, from, n, (t) => t.kind === 'word' && STOP_WORDS.has(t.value));
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
  if (last !== undefined && b - a >= 2 && (last.kind === 'quoted' || (last.kind === 'word' && !NOT_ALIASES.has(last.value)))) {
    if (before?.kind === 'word' && before.value === 'as') {
      alias = last.value;
      end = b - 2;
    } else if (before !== undefined && before.value !== '.' && before.value !== '::' && (before.kind !== 'op' || before.value === ')')) {
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

function parseFrom(tokens: readonly PgToken[], from: number, end: number, aliases: Map<string, string>, inner: string[]): string | undefined {
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
      c.i = findTop(tokens, c.i + 1, end, (x) => (x.kind === 'word' && ['join', 'left', 'right', 'inner', 'full', 'cross'].includes(x.value)) || (x.kind === 'op' && x.value === ','));
      continue;
    }
    if (t.kind === 'word' && ['left', 'right', 'inner', 'full', 'outer', 'cross', 'join', 'lateral'].includes(t.value)) {
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
      } else if ((c.peek()?.kind === 'word' || c.peek()?.kind === 'quoted') && !['left', 'right', 'inner', 'full', 'join', 'on', 'cross', 'natural', 'using'].includes(c.peek()!.value)) {
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
    while (e > a && tokens[e - 1]!.kind === 'word' && ['asc', 'desc', 'nulls', 'first', 'last'].includes(tokens[e - 1]!.value)) {
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
        const mentionsSearchPath = c.tokens.slice(start, c.i).some((x) => x.kind === 'string' && x.value === 'search_path');
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
    return e.k === 'lit' && typeof e.v === 'bigint' ? { k: 'lit', v: -e.v } : e.k === 'lit' && typeof e.v === 'number' ? { k: 'lit', v: -e.v } : { k: 'unknown' };
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
    if (['current_user', 'session_user', 'user', 'current_schema', 'current_catalog', 'current_role'].includes(w)) return { k: 'fn', name: w, args: [] };
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

interface Scope {
  row: Row;
  aliases: Map<string, string>;
  main: string | undefined;
  env: EvalEnv;
}

function tableOf(qualified: string | undefined): string {
  return qualified === undefined ? '' : qualified.slice(qualified.lastIndexOf('.') + 1);
}

function column(node: Extract<Node, { k: 'col' }>, s: Scope): Value {
  if (node.qual !== undefined) {
    const key = `${tableOf(s.aliases.get(node.qual) ?? node.qual)}.${node.name}`;
    return key in s.row ? s.row[key]! : UNKNOWN;
  }
  const mainKey = `${tableOf(s.main)}.${node.name}`;
  if (mainKey in s.row) return s.row[mainKey]!;
  for (const k of Object.keys(s.row)) if (k.endsWith(`.${node.name}`)) return s.row[k]!;
  return UNKNOWN;
}

function truth(v: Value): boolean | typeof UNKNOWN {
  if (v === UNKNOWN || v === null) return UNKNOWN;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v === 't' || v === 'true';
  return UNKNOWN;
}

function numeric(v: Value): number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return Number(v);
  if (typeof v === 'string' && /^-?[0-9]+(\.[0-9]+)?$/.test(v)) return Number(v);
  return undefined;
}

function compare(a: Scalar, b: Scalar): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined && (typeof a !== 'string' || typeof b !== 'string')) return x < y ? -1 : x > y ? 1 : 0;
  const s = typeof a === 'boolean' ? (a ? 't' : 'f') : String(a);
  const t = typeof b === 'boolean' ? (b ? 't' : 'f') : String(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

function likeRegExp(pattern: string, flags: string): RegExp {
  const re = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${re}$`, flags);
}

function parseIdent(text: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^."]+))\s*(?:\.|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null && m[0] !== '') out.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.trim().toLowerCase());
  return out;
}

function evaluate(node: Node, s: Scope): Value {
  switch (node.k) {
    case 'lit':
      return node.v;
    case 'col':
      return column(node, s);
    case 'unknown':
      return UNKNOWN;
    case 'not': {
      const v = truth(evaluate(node.e, s));
      return v === UNKNOWN ? UNKNOWN : !v;
    }
    case 'isnull': {
      const v = evaluate(node.e, s);
      if (v === UNKNOWN) return UNKNOWN;
      return (v === null) !== node.negated;
    }
    case 'in': {
      const v = evaluate(node.e, s);
      if (v === UNKNOWN || v === null || node.list === undefined) return UNKNOWN;
      const list: Value[] = node.list === 'search_path' ? (s.env.setting('search_path') ?? '').split(',').map((x) => x.trim()) : node.list.map((n) => evaluate(n, s));
      if (list.some((x) => x === UNKNOWN)) return UNKNOWN;
      const found = list.some((x) => x !== null && compare(v, x as Scalar) === 0);
      return found !== node.negated;
    }
    case 'index': {
      const a = evaluate(node.e, s);
      const i = numeric(evaluate(node.index, s));
      if (!Array.isArray(a) || i === undefined) return UNKNOWN;
      return (a[i - 1] as Scalar | undefined) ?? null;
    }
    case 'case': {
      const operand = node.operand === undefined ? undefined : evaluate(node.operand, s);
      for (const [when, then] of node.whens) {
        let hit: boolean | typeof UNKNOWN;
        if (operand === undefined) hit = truth(evaluate(when, s));
        else {
          const w = evaluate(when, s);
          hit = operand === UNKNOWN || w === UNKNOWN ? UNKNOWN : operand !== null && w !== null && compare(operand, w) === 0;
        }
        if (hit === UNKNOWN) return UNKNOWN;
        if (hit) return evaluate(then, s);
      }
      return node.otherwise === undefined ? null : evaluate(node.otherwise, s);
    }
    case 'bin':
      return binary(node.op, node.l, node.r, s);
    case 'fn':
      return call(node.name, node.args, s);
  }
}

function binary(op: string, ln: Node, rn: Node, s: Scope): Value {
  if (op === 'and' || op === 'or') {
    const l = truth(evaluate(ln, s));
    if (op === 'and' && l === false) return false;
    if (op === 'or' && l === true) return true;
    const r = truth(evaluate(rn, s));
    if (op === 'and') return r === false ? false : l === UNKNOWN || r === UNKNOWN ? UNKNOWN : true;
    return r === true ? true : l === UNKNOWN || r === UNKNOWN ? UNKNOWN : false;
  }
  const l = evaluate(ln, s);
  const r = evaluate(rn, s);
  if (l === UNKNOWN || r === UNKNOWN) return UNKNOWN;
  if (l === null || r === null) return op === '||' ? null : null;
  switch (op) {
    case '||':
      return String(l) + String(r);
    case '=':
      return compare(l, r) === 0;
    case '<>':
    case '!=':
      return compare(l, r) !== 0;
    case '<':
      return compare(l, r) < 0;
    case '>':
      return compare(l, r) > 0;
    case '<=':
      return compare(l, r) <= 0;
    case '>=':
      return compare(l, r) >= 0;
    case '~':
    case '!~':
    case '~*':
    case '!~*': {
      let re: RegExp;
      try {
        re = new RegExp(String(r), op.endsWith('*') ? 'i' : '');
      } catch {
        return UNKNOWN;
      }
      return re.test(String(l)) !== op.startsWith('!');
    }
    case 'like':
    case 'ilike':
      return likeRegExp(String(r), op === 'ilike' ? 'i' : '').test(String(l));
    case '+':
    case '-':
    case '*':
    case '/': {
      const x = numeric(l);
      const y = numeric(r);
      if (x === undefined || y === undefined) return UNKNOWN;
      const v = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : y === 0 ? NaN : Math.trunc(x / y);
      return Number.isSafeInteger(v) ? BigInt(v) : UNKNOWN;
    }
    default:
      return UNKNOWN;
  }
}

function call(name: string, argNodes: Node[], s: Scope): Value {
  const args = argNodes.map((a) => evaluate(a, s));
  const first = args[0];
  switch (name) {
    case 'pg_get_userbyid':
    case 'pg_encoding_to_char':
      return first ?? UNKNOWN;
    case 'format_type':
      return first === UNKNOWN || first === undefined ? UNKNOWN : s.env.typeName(first);
    case 'quote_ident':
      return typeof first === 'string' ? quoteIdent(first) : first ?? UNKNOWN;
    case 'lower':
      return typeof first === 'string' ? first.toLowerCase() : first ?? UNKNOWN;
    case 'upper':
      return typeof first === 'string' ? first.toUpperCase() : first ?? UNKNOWN;
    case 'trim':
    case 'btrim':
      return typeof first === 'string' ? first.trim() : first ?? UNKNOWN;
    case 'coalesce':
      for (const a of args) {
        if (a === UNKNOWN) return UNKNOWN;
        if (a !== null) return a;
      }
      return null;
    case 'pg_table_is_visible':
      return s.row.visible === undefined ? UNKNOWN : s.row.visible;
    case 'current_setting':
      return typeof first === 'string' ? s.env.setting(first.toLowerCase()) : UNKNOWN;
    case 'current_database':
    case 'current_schema':
    case 'current_catalog':
      return s.env.currentDatabase;
    case 'current_user':
    case 'session_user':
    case 'user':
    case 'current_role':
      return s.env.user;
    case 'parse_ident':
      return typeof first === 'string' ? parseIdent(first) : UNKNOWN;
    case 'array_length':
      return Array.isArray(first) ? BigInt(first.length) : UNKNOWN;
    case 'has_table_privilege':
    case 'has_schema_privilege':
    case 'has_database_privilege':
    case 'has_column_privilege':
      return true;
    case 'array_to_string':
    case 'obj_description':
    case 'col_description':
    case 'shobj_description':
    case 'pg_get_expr':
    case 'pg_size_pretty':
    case 'pg_table_size':
    case 'pg_relation_size':
    case 'pg_total_relation_size':
    case 'pg_get_partkeydef':
      return null;
    default:
      return UNKNOWN;
  }
}

function typeOfValues(values: readonly Scalar[]): DataType {
  const v = values.find((x) => x !== null);
  if (typeof v === 'boolean') return BOOLEAN;
  if (typeof v === 'bigint') return INT64;
  if (typeof v === 'number') return FLOAT64;
  return UTF8;
}

/** Runs a parsed catalog SELECT over the virtual tables. */
export function evaluateSelect(q: Select, tables: VirtualTables, env: EvalEnv): LocalResult {
  const unmodelled = q.inner.some((t) => tables[t] === undefined);
  const source = q.main === undefined ? [{}] : unmodelled ? [] : (tables[q.main]?.() ?? []);
  const scope = (row: Row): Scope => ({ row, aliases: q.aliases, main: q.main, env });
  let rows = source.filter((row) => q.where === undefined || truth(evaluate(q.where, scope(row))) !== false);
  const project = (row: Row): Scalar[] =>
    q.items.map((item) => {
      const v = evaluate(item.node, scope(row));
      if (v === UNKNOWN) return null;
      return Array.isArray(v) ? `{${v.join(',')}}` : v;
    });
  let out = rows.map((row) => ({ row, values: project(row) }));
  if (q.order.length > 0) {
    const key = (r: { row: Row; values: Scalar[] }, o: Select['order'][number]): Scalar => {
      if (o.position !== undefined) return r.values[o.position - 1] ?? null;
      const named = o.node.k === 'col' && o.node.qual === undefined ? q.items.findIndex((i) => i.name === (o.node as { name: string }).name) : -1;
      if (named >= 0) return r.values[named] ?? null;
      const v = evaluate(o.node, scope(r.row));
      return v === UNKNOWN ? null : (v as Scalar);
    };
    out = out.sort((a, b) => {
      for (const o of q.order) {
        const x = key(a, o);
        const y = key(b, o);
        const c = x === null ? (y === null ? 0 : 1) : y === null ? -1 : compare(x, y);
        if (c !== 0) return o.desc ? -c : c;
      }
      return 0;
    });
  }
  if (q.limit !== undefined) out = out.slice(0, q.limit);
  rows = [];
  const values = out.map((r) => r.values);
  const fields: Field[] = q.items.map((item, c) => ({ name: item.name, type: typeOfValues(values.map((v) => v[c] ?? null)), nullable: true }));
  return { fields, rows: values, tag: `SELECT ${values.length}` };
}
