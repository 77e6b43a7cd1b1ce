// The binary operators of typed expressions, their text and DataFusion's display precedence.
// Coercion (coercion.ts) types them; the SQL names (sql/display-name.ts) and the plan's Display
// (plan/expr-display.ts) print them.

export type BinaryOperator =
  | 'AND'
  | 'OR'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'IS DISTINCT FROM'
  | 'IS NOT DISTINCT FROM'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||'
  | '~'
  | '~*'
  | '!~'
  | '!~*'
  | '&'
  | '|'
  | '^'
  | '<<'
  | '>>';

/** DataFusion's Operator Display: its bitwise XOR prints as PostgreSQL's `#`, however it was written. */
export function operatorText(op: string): string {
  return op === '^' ? '#' : op;
}

/**
 * DataFusion 27's Operator::precedence, by which its Display form (EXPLAIN, names that embed an
 * expression) parenthesises a binary operand; 0 for operators it always parenthesises. The SQL
 * parser and printer keep their own ladder (sql/parser-expressions.ts PREC, PostgreSQL's order):
 * it differs (NOT, the bitwise operators and || have levels there), and it decides how text
 * parses, not how DataFusion prints.
 */
const DISPLAY_PRECEDENCE: Readonly<Record<string, number>> = {
  OR: 5,
  AND: 10,
  '=': 20,
  '!=': 20,
  '<': 20,
  '<=': 20,
  '>': 20,
  '>=': 20,
  'IS DISTINCT FROM': 20,
  'IS NOT DISTINCT FROM': 20,
  '+': 30,
  '-': 30,
  '*': 40,
  '/': 40,
  '%': 40,
};

export function displayPrecedence(op: string): number {
  return DISPLAY_PRECEDENCE[op] ?? 0;
}
