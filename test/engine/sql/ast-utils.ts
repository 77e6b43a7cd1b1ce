// Test helpers: ASTs without positions, the parse-print-parse check (sqlparser-rs's
// verified_stmt), and an S-expression view of expressions for precedence tables.

import { expect } from 'vitest';
import type { Expr } from '../../../host/engine/sql/ast.js';
import {
  parseExpression,
  parseStatements,
  printExpression,
  printStatement,
  SqlParseError,
} from '../../../host/engine/sql/index.js';

/**
 * A deep copy of `value` without the source spellings the printer does not keep: every `pos`, and
 * a type's `written` text (the printer writes the canonical `GEOMETRY(POINT, 0)`).
 */
export function stripPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripPositions);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value))
    if (key !== 'pos' && key !== 'written') out[key] = stripPositions(child);
  return out;
}

/** Parses `sql`, checks it prints as `printed` and that the printed text parses to the same tree. */
export function expectRoundTrip(sql: string, printed: string): void {
  const statements = parseStatements(sql);
  expect(statements).toHaveLength(1);
  const text = printStatement(statements[0]!);
  expect(text).toBe(printed);
  const again = parseStatements(text);
  expect(stripPositions(again)).toEqual(stripPositions(statements));
  expect(printStatement(again[0]!)).toBe(text);
}

/** The same for a lone expression. */
export function expectExprRoundTrip(sql: string, printed: string): void {
  const expr = parseExpression(sql);
  const text = printExpression(expr);
  expect(text).toBe(printed);
  expect(stripPositions(parseExpression(text))).toEqual(stripPositions(expr));
}

/** The error `run` throws: a SqlParseError, whose full message is returned. */
export function parseErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SqlParseError);
    expect((error as SqlParseError).kind).toBe('sqlParse');
    return (error as Error).message;
  }
  throw new Error('expected a parse error, but parsing succeeded');
}

/** `1 + 2 * 3` as `(+ 1 (* 2 3))`: the tree shape, for precedence tests. */
export function tree(e: Expr): string {
  switch (e.kind) {
    case 'binary':
      return `(${e.op} ${tree(e.left)} ${tree(e.right)})`;
    case 'unary':
      return `(${e.op} ${tree(e.expr)})`;
    case 'is':
      return `(IS${e.negated ? ' NOT' : ''} ${e.test} ${tree(e.expr)})`;
    case 'isDistinctFrom':
      return `(IS${e.negated ? ' NOT' : ''} DISTINCT FROM ${tree(e.left)} ${tree(e.right)})`;
    case 'between':
      return `(${e.negated ? 'NOT ' : ''}BETWEEN ${tree(e.expr)} ${tree(e.low)} ${tree(e.high)})`;
    case 'inList':
      return `(${e.negated ? 'NOT ' : ''}IN ${tree(e.expr)} [${e.list.map(tree).join(' ')}])`;
    case 'like':
      return `(${e.negated ? 'NOT ' : ''}${e.op} ${tree(e.expr)} ${tree(e.pattern)}${e.escape === undefined ? '' : ` ${tree(e.escape)}`})`;
    case 'cast':
      return `(${e.try ? 'TRY_CAST' : 'CAST'} ${tree(e.expr)} ${printExpression({ ...e, expr: { kind: 'number', pos: e.pos, text: '0' } }).replace(/^.*AS (.*)\)$/, '$1')})`;
    case 'index':
      return `([] ${tree(e.expr)} ${tree(e.index)})`;
    case 'fieldAccess':
      return `(. ${tree(e.expr)} ${e.field})`;
    case 'column':
      return e.parts.join('.');
    case 'function':
      return `${e.name}(${e.args.map(tree).join(' ')})`;
    default:
      return printExpression(e);
  }
}
