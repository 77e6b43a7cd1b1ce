// The binary operators of typed expressions and their text. Coercion (coercion.ts) types them,
// the SQL names (sql/display-name.ts) and the plan's Display (plan/expr-display.ts) print them.

export type BinaryOperator =
  | 'AND' | 'OR'
  | '=' | '!=' | '<' | '<=' | '>' | '>='
  | 'IS DISTINCT FROM' | 'IS NOT DISTINCT FROM'
  | '+' | '-' | '*' | '/' | '%'
  | '||'
  | '~' | '~*' | '!~' | '!~*'
  | '&' | '|' | '^' | '<<' | '>>';

/** DataFusion's Operator Display: its bitwise XOR prints as PostgreSQL's `#`, however it was written. */
export function operatorText(op: string): string {
  return op === '^' ? '#' : op;
}
