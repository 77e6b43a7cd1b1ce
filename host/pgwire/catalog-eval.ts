// A small interpreter for the SELECTs that PostgreSQL tools run over pg_catalog and
// information_schema (catalog-queries.ts supplies the rows, catalog-select.ts parses them; JOINs
// give aliases only: each virtual row already carries its related tables' columns, keyed
// `table.column`). It evaluates expressions in PostgreSQL's three-valued logic, where anything
// it does not model is UNKNOWN: NULL as a value, and a condition that keeps the row. Never throws
// on odd SQL: it answers what it understood.

import { BOOLEAN, type DataType, type Field, FLOAT64, INT64, type Scalar, UTF8 } from '../engine/types/index.js';
import { quoteIdent, type LocalResult } from './session-commands.js';
import type { Node, Select } from './catalog-select.js';

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
  if (x !== undefined && y !== undefined && (typeof a !== 'string' || typeof b !== 'string'))
    return x < y ? -1 : x > y ? 1 : 0;
  const s = typeof a === 'boolean' ? (a ? 't' : 'f') : String(a);
  const t = typeof b === 'boolean' ? (b ? 't' : 'f') : String(b);
  return s < t ? -1 : s > t ? 1 : 0;
}

function likeRegExp(pattern: string, flags: string): RegExp {
  const re = pattern
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/%/g, '.*')
    .replace(/_/g, '.');
  return new RegExp(`^${re}$`, flags);
}

function parseIdent(text: string): string[] {
  const out: string[] = [];
  const re = /\s*(?:"((?:[^"]|"")*)"|([^."]+))\s*(?:\.|$)/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null && m[0] !== '')
    out.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2]!.trim().toLowerCase());
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
      const list: Value[] =
        node.list === 'search_path'
          ? (s.env.setting('search_path') ?? '').split(',').map((x) => x.trim())
          : node.list.map((n) => evaluate(n, s));
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
          hit =
            operand === UNKNOWN || w === UNKNOWN
              ? UNKNOWN
              : operand !== null && w !== null && compare(operand, w) === 0;
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
      return typeof first === 'string' ? quoteIdent(first) : (first ?? UNKNOWN);
    case 'lower':
      return typeof first === 'string' ? first.toLowerCase() : (first ?? UNKNOWN);
    case 'upper':
      return typeof first === 'string' ? first.toUpperCase() : (first ?? UNKNOWN);
    case 'trim':
    case 'btrim':
      return typeof first === 'string' ? first.trim() : (first ?? UNKNOWN);
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
      const named =
        o.node.k === 'col' && o.node.qual === undefined
          ? q.items.findIndex((i) => i.name === (o.node as { name: string }).name)
          : -1;
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
  const fields: Field[] = q.items.map((item, c) => ({
    name: item.name,
    type: typeOfValues(values.map((v) => v[c] ?? null)),
    nullable: true,
  }));
  return { fields, rows: values, tag: `SELECT ${values.length}` };
}
