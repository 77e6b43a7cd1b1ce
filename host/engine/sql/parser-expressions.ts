// Expressions: a Pratt parser with the precedence ladder below (PostgreSQL's order, which the
// brief fixes): OR < AND < NOT < comparison/IS/IN/BETWEEN/LIKE < | < ^ << >> < & < || < + - <
// * / % < unary - < :: < postfix [i] and .field. Unlike sqlparser-rs, unary minus binds tighter
// than `*`; the bitwise operators keep sqlparser 0.35's order among themselves (| 21, ^ and
// shifts 22, & 23), between comparison and ||.

import { bug } from '../../core/errors.js';
import type { BinaryOp, Expr, FrameBound, FunctionCall, OrderByExpr, Pos, WindowFrame, WindowSpec } from './ast.js';
import type { Parser } from './parser-base.js';
import { parseDataType } from './parser-data-types.js';
import { RESERVED, type Token } from './tokens.js';

export const PREC = {
  OR: 1,
  AND: 2,
  NOT: 3,
  COMPARE: 4,
  BIT_OR: 5,
  BIT_XOR: 6,
  BIT_AND: 7,
  CONCAT: 8,
  ADD: 9,
  MUL: 10,
  UNARY: 11,
  CAST: 12,
  POSTFIX: 13,
  ATOM: 100,
} as const;

const OP_PRECEDENCE: Readonly<Record<string, number>> = {
  '|': PREC.BIT_OR,
  '^': PREC.BIT_XOR,
  '<<': PREC.BIT_XOR,
  '>>': PREC.BIT_XOR,
  '&': PREC.BIT_AND,
  '||': PREC.CONCAT,
  '+': PREC.ADD,
  '-': PREC.ADD,
  '*': PREC.MUL,
  '/': PREC.MUL,
  '%': PREC.MUL,
  '=': PREC.COMPARE,
  '!=': PREC.COMPARE,
  '<>': PREC.COMPARE,
  '<': PREC.COMPARE,
  '<=': PREC.COMPARE,
  '>': PREC.COMPARE,
  '>=': PREC.COMPARE,
  '~': PREC.COMPARE,
  '~*': PREC.COMPARE,
  '!~': PREC.COMPARE,
  '!~*': PREC.COMPARE,
  '::': PREC.CAST,
  '[': PREC.POSTFIX,
  '.': PREC.POSTFIX,
};

/** Words after NOT that make it an infix operator (`x NOT IN (...)`). */
const NEGATABLE = new Set(['IN', 'BETWEEN', 'LIKE', 'ILIKE', 'SIMILAR']);
/** SQL's niladic functions, callable without parentheses. */
const BARE_FUNCTIONS = new Set(['CURRENT_DATE', 'CURRENT_TIME', 'CURRENT_TIMESTAMP', 'LOCALTIME', 'LOCALTIMESTAMP']);
/** Units accepted after INTERVAL 'n' (kept upper case, as written). */
const INTERVAL_UNITS = new Set([
  'CENTURY',
  'CENTURIES',
  'DECADE',
  'DECADES',
  'YEAR',
  'YEARS',
  'MONTH',
  'MONTHS',
  'WEEK',
  'WEEKS',
  'DAY',
  'DAYS',
  'HOUR',
  'HOURS',
  'MINUTE',
  'MINUTES',
  'SECOND',
  'SECONDS',
  'MILLISECOND',
  'MILLISECONDS',
  'MICROSECOND',
  'MICROSECONDS',
  'NANOSECOND',
  'NANOSECONDS',
]);
const WINDOW_CLAUSE_WORDS = new Set(['PARTITION', 'ORDER', 'ROWS', 'RANGE', 'GROUPS']);

function posOf(token: Token): Pos {
  return { line: token.line, column: token.column };
}

export function parseExpr(p: Parser): Expr {
  return parseSubexpr(p, 0);
}

/** Parses an expression whose operators all bind tighter than `minPrec`. */
export function parseSubexpr(p: Parser, minPrec: number): Expr {
  p.enter();
  let left = parsePrefix(p);
  let folds = 0;
  for (;;) {
    const prec = nextPrecedence(p);
    if (prec <= minPrec) break;
    p.enter();
    folds++;
    left = parseInfix(p, left, prec);
  }
  p.leave(folds + 1);
  return left;
}

function nextPrecedence(p: Parser): number {
  const token = p.peek();
  if (token.kind === 'op') return OP_PRECEDENCE[token.value] ?? 0;
  if (token.kind !== 'word') return 0;
  switch (token.upper) {
    case 'OR':
      return PREC.OR;
    case 'AND':
      return PREC.AND;
    case 'IS':
    case 'IN':
    case 'BETWEEN':
    case 'LIKE':
    case 'ILIKE':
    case 'SIMILAR':
      return PREC.COMPARE;
    case 'NOT':
      return p.peek(1).kind === 'word' && NEGATABLE.has(p.peek(1).upper) ? PREC.COMPARE : 0;
    default:
      return 0;
  }
}

function parseInfix(p: Parser, left: Expr, prec: number): Expr {
  const token = p.next();
  const pos = posOf(token);
  if (token.kind === 'op') {
    switch (token.value) {
      case '::':
        return { kind: 'cast', pos, expr: left, dataType: parseDataType(p), try: false };
      case '[': {
        const index = parseExpr(p);
        p.expectOp(']');
        return { kind: 'index', pos, expr: left, index };
      }
      case '.': {
        const field = p.peek();
        if (field.kind !== 'word' && field.kind !== 'quoted') return p.expected('identifier');
        p.next();
        return { kind: 'fieldAccess', pos, expr: left, field: field.value };
      }
      default: {
        const op = (token.value === '<>' ? '!=' : token.value) as BinaryOp;
        return { kind: 'binary', pos, op, left, right: parseSubexpr(p, prec) };
      }
    }
  }
  switch (token.upper) {
    case 'OR':
    case 'AND':
      return { kind: 'binary', pos, op: token.upper as 'OR' | 'AND', left, right: parseSubexpr(p, prec) };
    case 'IS':
      return parseIs(p, left, pos);
    case 'NOT':
      return parseNegatable(p, left, pos, true);
    default:
      return parseNegatable(p, left, pos, false, token);
  }
}

function parseIs(p: Parser, expr: Expr, pos: Pos): Expr {
  const negated = p.parseKeyword('NOT');
  const token = p.next();
  if (token.kind === 'word') {
    switch (token.upper) {
      case 'NULL':
      case 'TRUE':
      case 'FALSE':
      case 'UNKNOWN':
        return { kind: 'is', pos, expr, negated, test: token.upper as 'NULL' | 'TRUE' | 'FALSE' | 'UNKNOWN' };
      case 'DISTINCT':
        p.expectKeyword('FROM');
        return { kind: 'isDistinctFrom', pos, left: expr, right: parseSubexpr(p, PREC.COMPARE), negated };
    }
  }
  return p.expected('[NOT] NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS', token);
}

/** IN, BETWEEN, LIKE, ILIKE, SIMILAR TO, after an optional NOT (already consumed if `negated`). */
function parseNegatable(p: Parser, expr: Expr, pos: Pos, negated: boolean, keyword: Token = p.next()): Expr {
  switch (keyword.upper) {
    case 'IN': {
      p.expectOp('(');
      if (p.peekKeyword('SELECT') || p.peekKeyword('WITH')) {
        const query = p.parseSubquery();
        p.expectOp(')');
        return { kind: 'inSubquery', pos, expr, query, negated };
      }
      const list = p.parseCommaSeparated(parseExpr);
      p.expectOp(')');
      return { kind: 'inList', pos, expr, list, negated };
    }
    case 'BETWEEN': {
      const low = parseSubexpr(p, PREC.COMPARE);
      p.expectKeyword('AND');
      const high = parseSubexpr(p, PREC.COMPARE);
      return { kind: 'between', pos, expr, low, high, negated };
    }
    case 'SIMILAR':
    case 'LIKE':
    case 'ILIKE': {
      if (keyword.upper === 'SIMILAR') p.expectKeyword('TO');
      const op = keyword.upper === 'SIMILAR' ? 'SIMILAR TO' : (keyword.upper as 'LIKE' | 'ILIKE');
      const pattern = parseSubexpr(p, PREC.COMPARE);
      if (!p.parseKeyword('ESCAPE')) return { kind: 'like', pos, op, expr, pattern, negated };
      return { kind: 'like', pos, op, expr, pattern, negated, escape: parseSubexpr(p, PREC.COMPARE) };
    }
  }
  throw bug(`parseNegatable called at ${keyword.text}`);
}

function parsePrefix(p: Parser): Expr {
  const token = p.peek();
  const pos = posOf(token);
  switch (token.kind) {
    case 'number':
      p.next();
      return { kind: 'number', pos, text: token.value };
    case 'string':
      p.next();
      return { kind: 'string', pos, value: token.value };
    case 'variable':
      p.next();
      return { kind: 'variable', pos, name: token.value };
    case 'quoted':
      return parseNameExpr(p);
    case 'op':
      switch (token.value) {
        case '(':
          return parseParenthesized(p);
        case '[': {
          p.next();
          const items = p.peekOp(']') ? [] : p.parseCommaSeparated(parseExpr);
          p.expectOp(']');
          return { kind: 'array', pos, items };
        }
        case '-':
        case '+': {
          p.next();
          const parenthesized = p.peekOp('(');
          const expr = parseSubexpr(p, PREC.UNARY);
          return {
            kind: 'unary',
            pos,
            op: token.value as '-' | '+',
            expr,
            ...(parenthesized ? { parenthesized } : {}),
          };
        }
      }
      return p.expected('an expression:');
    case 'word':
      return parseWordPrefix(p, token, pos);
    default:
      return p.expected('an expression:');
  }
}

function parseWordPrefix(p: Parser, token: Token, pos: Pos): Expr {
  const call = p.peekOp('(', 1);
  switch (token.upper) {
    case 'TRUE':
    case 'FALSE':
      p.next();
      return { kind: 'boolean', pos, value: token.upper === 'TRUE' };
    case 'NULL':
      p.next();
      return { kind: 'null', pos };
    case 'NOT':
      p.next();
      if (p.peekKeyword('EXISTS') && p.peekOp('(', 1)) {
        p.next();
        return { kind: 'exists', pos, query: parseParenthesizedQuery(p), negated: true };
      }
      return { kind: 'unary', pos, op: 'NOT', expr: parseSubexpr(p, PREC.NOT) };
    case 'EXISTS':
      if (!call) break;
      p.next();
      return { kind: 'exists', pos, query: parseParenthesizedQuery(p), negated: false };
    case 'ARRAY': {
      // sqlparser's `ARRAY[a, b]`: the same list as `[a, b]` (DataFusion plans both as make_array).
      if (!p.peekOp('[', 1)) break;
      p.next();
      p.next();
      const items = p.peekOp(']') ? [] : p.parseCommaSeparated(parseExpr);
      p.expectOp(']');
      return { kind: 'array', pos, items, named: true };
    }
    case 'CASE':
      return parseCase(p, pos);
    case 'CAST':
    case 'TRY_CAST': {
      if (!call) break;
      p.next();
      p.next();
      const expr = parseExpr(p);
      p.expectKeyword('AS');
      const dataType = parseDataType(p);
      p.expectOp(')');
      return { kind: 'cast', pos, expr, dataType, try: token.upper === 'TRY_CAST' };
    }
    case 'INTERVAL': {
      const next = p.peek(1);
      if (next.kind !== 'string' && next.kind !== 'number' && !call && !p.peekOp('-', 1)) break;
      p.next();
      const value = parseSubexpr(p, PREC.CAST);
      const unit = p.peek();
      if (unit.kind === 'word' && INTERVAL_UNITS.has(unit.upper)) {
        p.next();
        return { kind: 'interval', pos, value, unit: unit.upper };
      }
      return { kind: 'interval', pos, value };
    }
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIME':
      if (p.peek(1).kind !== 'string') break;
      p.next();
      return {
        kind: 'typedString',
        pos,
        dataType: { name: token.upper, custom: false, unsigned: false, params: [] },
        value: p.parseStringLiteral(),
      };
    case 'EXTRACT':
      if (call) return parseExtract(p, pos);
      break;
    case 'POSITION':
      if (call) return parsePosition(p, pos);
      break;
    case 'SUBSTRING':
      if (call) return parseSubstring(p, pos);
      break;
    case 'TRIM':
      if (call) return parseTrim(p, pos);
      break;
    default:
      if (BARE_FUNCTIONS.has(token.upper) && !call) {
        p.next();
        return { kind: 'function', pos, name: token.value, args: [], distinct: false, orderBy: [], bare: true };
      }
  }
  // Any other word followed by '(' is a function call (`left(s, 2)` too); otherwise a name.
  if (RESERVED.has(token.upper) && !call) return p.expected('an expression:');
  return parseNameExpr(p);
}

/** A column reference `a.b.c`, or a function call `f(...)`. */
function parseNameExpr(p: Parser): Expr {
  const first = p.next();
  const pos = posOf(first);
  const parts = [first.value];
  while (p.peekOp('.')) {
    const part = p.peek(1);
    if (part.kind !== 'word' && part.kind !== 'quoted') break;
    p.next();
    p.next();
    parts.push(part.value);
  }
  if (p.peekOp('.') && p.peekOp('*', 1)) {
    p.next();
    return p.expected('identifier');
  }
  if (!p.peekOp('(')) return { kind: 'column', pos, parts };
  if (parts.length > 1) return p.expected('end of identifier');
  return parseFunctionCall(p, first.value, pos);
}

/** `*` or `a.b.*` when next, for select items and function arguments; undefined otherwise. */
export function tryParseWildcard(p: Parser): Expr | undefined {
  const pos = p.pos();
  if (p.consumeOp('*')) return { kind: 'wildcard', pos };
  let k = 0;
  for (;;) {
    const token = p.peek(k);
    if ((token.kind !== 'word' && token.kind !== 'quoted') || !p.peekOp('.', k + 1)) break;
    k += 2;
  }
  if (k === 0 || !p.peekOp('*', k)) return undefined;
  const qualifier: string[] = [];
  for (let i = 0; i < k; i += 2) {
    qualifier.push(p.next().value);
    p.next();
  }
  p.next();
  return { kind: 'wildcard', pos, qualifier };
}

function parseFunctionArg(p: Parser): Expr {
  return tryParseWildcard(p) ?? parseExpr(p);
}

/** `name(` [DISTINCT | ALL] args [ORDER BY ...] `)` [FILTER (WHERE ...)] [OVER ...]; at the `(`. */
export function parseFunctionCall(p: Parser, name: string, pos: Pos): FunctionCall {
  p.expectOp('(');
  let distinct = false;
  let args: Expr[] = [];
  let orderBy: OrderByExpr[] = [];
  if (name.toLowerCase() === 'array_agg') {
    // sqlparser's own grammar: ARRAY_AGG([DISTINCT] expr [ORDER BY ...]), exactly one argument.
    distinct = p.parseKeyword('DISTINCT');
    args = [parseExpr(p)];
    if (p.parseKeywords('ORDER', 'BY')) orderBy = p.parseCommaSeparated(parseOrderByExpr);
    p.expectOp(')');
  } else if (!p.consumeOp(')')) {
    distinct = p.parseKeyword('DISTINCT');
    if (!distinct) p.parseKeyword('ALL');
    args = p.parseCommaSeparated(parseFunctionArg);
    if (p.parseKeywords('ORDER', 'BY')) orderBy = p.parseCommaSeparated(parseOrderByExpr);
    p.expectOp(')');
  }
  let call: FunctionCall = { kind: 'function', pos, name, args, distinct, orderBy, bare: false };
  if (p.peekKeyword('FILTER') && p.peekOp('(', 1)) {
    p.next();
    p.next();
    p.expectKeyword('WHERE');
    call = { ...call, filter: parseExpr(p) };
    p.expectOp(')');
  }
  if (p.parseKeyword('OVER')) {
    if (p.consumeOp('(')) {
      call = { ...call, over: parseWindowSpec(p) };
      p.expectOp(')');
    } else {
      call = { ...call, over: { baseName: p.parseIdentifier(), partitionBy: [], orderBy: [] } };
    }
  }
  return call;
}

/** The inside of `OVER ( ... )` or `WINDOW w AS ( ... )`, without the parentheses. */
export function parseWindowSpec(p: Parser): WindowSpec {
  const token = p.peek();
  let baseName: string | undefined;
  if (token.kind === 'quoted' || (token.kind === 'word' && !WINDOW_CLAUSE_WORDS.has(token.upper)))
    baseName = p.parseIdentifier();
  const partitionBy = p.parseKeywords('PARTITION', 'BY') ? p.parseCommaSeparated(parseExpr) : [];
  const orderBy = p.parseKeywords('ORDER', 'BY') ? p.parseCommaSeparated(parseOrderByExpr) : [];
  const units = p.peek().upper;
  let frame: WindowFrame | undefined;
  if (units === 'ROWS' || units === 'RANGE' || units === 'GROUPS') {
    p.next();
    if (p.parseKeyword('BETWEEN')) {
      const start = parseFrameBound(p);
      p.expectKeyword('AND');
      frame = { units, start, end: parseFrameBound(p) };
    } else {
      frame = { units, start: parseFrameBound(p) };
    }
  } else if (!p.peekOp(')')) {
    // Anything else before `)` is read as a frame, as sqlparser does.
    p.expected('ROWS, RANGE, GROUPS');
  }
  const spec: WindowSpec = { partitionBy, orderBy };
  return { ...(baseName === undefined ? {} : { baseName }), ...spec, ...(frame === undefined ? {} : { frame }) };
}

function parseFrameBound(p: Parser): FrameBound {
  if (p.parseKeywords('CURRENT', 'ROW')) return { kind: 'currentRow' };
  const offset = p.parseKeyword('UNBOUNDED') ? undefined : parseSubexpr(p, PREC.COMPARE);
  const direction = p.peek();
  if (direction.kind !== 'word' || (direction.upper !== 'PRECEDING' && direction.upper !== 'FOLLOWING')) {
    return p.expected('PRECEDING or FOLLOWING');
  }
  p.next();
  const kind = direction.upper === 'PRECEDING' ? 'preceding' : 'following';
  return offset === undefined ? { kind } : { kind, offset };
}

export function parseOrderByExpr(p: Parser): OrderByExpr {
  const expr = parseExpr(p);
  let asc: boolean | undefined;
  if (p.parseKeyword('ASC')) asc = true;
  else if (p.parseKeyword('DESC')) asc = false;
  let nullsFirst: boolean | undefined;
  if (p.parseKeywords('NULLS', 'FIRST')) nullsFirst = true;
  else if (p.parseKeywords('NULLS', 'LAST')) nullsFirst = false;
  return { expr, ...(asc === undefined ? {} : { asc }), ...(nullsFirst === undefined ? {} : { nullsFirst }) };
}

/** `( expr )` or a scalar subquery `( SELECT ... )`. */
function parseParenthesized(p: Parser): Expr {
  const pos = p.pos();
  if (p.peekKeyword('SELECT', 1) || p.peekKeyword('WITH', 1))
    return { kind: 'subquery', pos, query: parseParenthesizedQuery(p) };
  p.expectOp('(');
  const expr = parseExpr(p);
  p.expectOp(')');
  return expr;
}

function parseParenthesizedQuery(p: Parser) {
  p.expectOp('(');
  const query = p.parseSubquery();
  p.expectOp(')');
  return query;
}

function parseCase(p: Parser, pos: Pos): Expr {
  p.next();
  const operand = p.peekKeyword('WHEN') ? undefined : parseExpr(p);
  const whens: { when: Expr; then: Expr }[] = [];
  p.expectKeyword('WHEN');
  do {
    const when = parseExpr(p);
    p.expectKeyword('THEN');
    whens.push({ when, then: parseExpr(p) });
  } while (p.parseKeyword('WHEN'));
  const elseResult = p.parseKeyword('ELSE') ? parseExpr(p) : undefined;
  p.expectKeyword('END');
  return {
    kind: 'case',
    pos,
    ...(operand === undefined ? {} : { operand }),
    whens,
    ...(elseResult === undefined ? {} : { elseResult }),
  };
}

/** `EXTRACT(field FROM x)`; any other shape is a plain call of a function named extract. */
function parseExtract(p: Parser, pos: Pos): Expr {
  const start = p.mark();
  p.next();
  p.next();
  const field = p.peek();
  if (field.kind === 'word' && p.peekKeyword('FROM', 1)) {
    p.next();
    p.next();
    const expr = parseExpr(p);
    p.expectOp(')');
    return { kind: 'extract', pos, field: field.upper, expr };
  }
  p.reset(start);
  return parseFunctionCall(p, p.next().value, pos);
}

/** `POSITION(needle IN haystack)`; any other shape is a plain call of a function named position. */
function parsePosition(p: Parser, pos: Pos): Expr {
  const start = p.mark();
  p.next();
  p.next();
  if (!p.peekOp(')')) {
    const needle = parseSubexpr(p, PREC.COMPARE);
    if (p.parseKeyword('IN')) {
      const haystack = parseExpr(p);
      p.expectOp(')');
      return { kind: 'position', pos, needle, haystack };
    }
  }
  p.reset(start);
  return parseFunctionCall(p, p.next().value, pos);
}

/** `SUBSTRING(x [FROM a] [FOR b])`; the comma form is a plain call of a function named substring. */
function parseSubstring(p: Parser, pos: Pos): Expr {
  const start = p.mark();
  p.next();
  p.next();
  if (!p.peekOp(')')) {
    const expr = parseExpr(p);
    if (p.peekKeyword('FROM') || p.peekKeyword('FOR')) {
      const from = p.parseKeyword('FROM') ? parseExpr(p) : undefined;
      const length = p.parseKeyword('FOR') ? parseExpr(p) : undefined;
      p.expectOp(')');
      return {
        kind: 'substring',
        pos,
        expr,
        ...(from === undefined ? {} : { from }),
        ...(length === undefined ? {} : { for: length }),
      };
    }
  }
  p.reset(start);
  return parseFunctionCall(p, p.next().value, pos);
}

/** `TRIM([BOTH | LEADING | TRAILING] [chars] FROM x)`, `TRIM(x)` and `TRIM(x, chars)`. */
function parseTrim(p: Parser, pos: Pos): Expr {
  p.next();
  p.next();
  const side = p.peek().upper;
  let where: 'BOTH' | 'LEADING' | 'TRAILING' | undefined;
  if (side === 'BOTH' || side === 'LEADING' || side === 'TRAILING') {
    p.next();
    where = side;
  }
  // sqlparser 0.35's grammar: [BOTH|LEADING|TRAILING] [chars FROM] expr, nothing else; in
  // `TRIM(BOTH FROM x)` it reads FROM as a name and then wants the `)`.
  if (where !== undefined && p.parseKeyword('FROM')) {
    p.expectOp(')');
  }
  let expr = parseExpr(p);
  let chars: Expr | undefined;
  if (p.parseKeyword('FROM')) {
    chars = expr;
    expr = parseExpr(p);
  }
  p.expectOp(')');
  return {
    kind: 'trim',
    pos,
    expr,
    ...(where === undefined ? {} : { where }),
    ...(chars === undefined ? {} : { chars }),
  };
}
