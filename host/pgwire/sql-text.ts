// A PostgreSQL-flavoured tokenizer for what the wire layer must see in SQL text before the
// engine does: where statements end (`;` outside strings, comments and dollar quotes), where the
// `$1` parameters stand, and the words of the catalog and session commands it answers itself.
// The engine's own lexer cannot serve: it rejects `$` (parameters, dollar quotes). Never throws:
// an unterminated string or comment ends the text (the engine then reports it).

export type PgTokenKind = 'word' | 'quoted' | 'string' | 'number' | 'param' | 'op';

export interface PgToken {
  kind: PgTokenKind;
  /** word: lower-cased; quoted: the name; string: the unescaped value; param: the number; op and number: the text. */
  value: string;
  /** Offsets into the text: [start, end). */
  start: number;
  end: number;
}

const OP_CHARS = '+-*/<>=~!@#%^&|`?';

function isWordStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c >= 128;
}

function isWordPart(c: number): boolean {
  return isWordStart(c) || (c >= 48 && c <= 57) || c === 36;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function tokenizePg(sql: string): PgToken[] {
  const out: PgToken[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql.charCodeAt(i);
    const start = i;
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) {
      i++;
    } else if (c === 45 && sql.charCodeAt(i + 1) === 45) {
      while (i < n && sql.charCodeAt(i) !== 10) i++;
    } else if (c === 47 && sql.charCodeAt(i + 1) === 42) {
      let depth = 0;
      while (i < n) {
        if (sql.charCodeAt(i) === 47 && sql.charCodeAt(i + 1) === 42) {
          depth++;
          i += 2;
        } else if (sql.charCodeAt(i) === 42 && sql.charCodeAt(i + 1) === 47) {
          depth--;
          i += 2;
          if (depth === 0) break;
        } else i++;
      }
    } else if (c === 39 || ((c === 69 || c === 101) && sql.charCodeAt(i + 1) === 39)) {
      const escapes = c !== 39;
      i += escapes ? 2 : 1;
      let value = '';
      while (i < n) {
        const d = sql.charCodeAt(i);
        if (d === 39) {
          if (sql.charCodeAt(i + 1) === 39) {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (escapes && d === 92 && i + 1 < n) {
          const e = sql[i + 1]!;
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === 'b' ? '\b' : e === 'f' ? '\f' : e;
          i += 2;
          continue;
        }
        value += sql[i];
        i++;
      }
      out.push({ kind: 'string', value, start, end: i });
    } else if (c === 34) {
      i++;
      let value = '';
      while (i < n) {
        if (sql.charCodeAt(i) === 34) {
          if (sql.charCodeAt(i + 1) === 34) {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += sql[i];
        i++;
      }
      out.push({ kind: 'quoted', value, start, end: i });
    } else if (c === 36 && isDigit(sql.charCodeAt(i + 1))) {
      i++;
      while (i < n && isDigit(sql.charCodeAt(i))) i++;
      out.push({ kind: 'param', value: sql.slice(start + 1, i), start, end: i });
    } else if (c === 36) {
      // A dollar quote: $$...$$ or $tag$...$tag$.
      let j = i + 1;
      while (j < n && isWordPart(sql.charCodeAt(j)) && sql.charCodeAt(j) !== 36) j++;
      if (sql.charCodeAt(j) === 36) {
        const tag = sql.slice(i, j + 1);
        const close = sql.indexOf(tag, j + 1);
        const bodyEnd = close < 0 ? n : close;
        i = close < 0 ? n : close + tag.length;
        out.push({ kind: 'string', value: sql.slice(j + 1, bodyEnd), start, end: i });
      } else {
        i++;
        out.push({ kind: 'op', value: '$', start, end: i });
      }
    } else if (isDigit(c) || (c === 46 && isDigit(sql.charCodeAt(i + 1)))) {
      while (i < n && (isDigit(sql.charCodeAt(i)) || sql.charCodeAt(i) === 46)) i++;
      if (
        (sql.charCodeAt(i) === 101 || sql.charCodeAt(i) === 69) &&
        (isDigit(sql.charCodeAt(i + 1)) ||
          ((sql[i + 1] === '+' || sql[i + 1] === '-') && isDigit(sql.charCodeAt(i + 2))))
      ) {
        i += 2;
        while (i < n && isDigit(sql.charCodeAt(i))) i++;
      }
      out.push({ kind: 'number', value: sql.slice(start, i), start, end: i });
    } else if (isWordStart(c)) {
      while (i < n && isWordPart(sql.charCodeAt(i))) i++;
      out.push({ kind: 'word', value: sql.slice(start, i).toLowerCase(), start, end: i });
    } else if (c === 58 && sql.charCodeAt(i + 1) === 58) {
      i += 2;
      out.push({ kind: 'op', value: '::', start, end: i });
    } else if (OP_CHARS.includes(sql[i]!)) {
      while (i < n && OP_CHARS.includes(sql[i]!) && !(sql.startsWith('--', i) || sql.startsWith('/*', i))) i++;
      if (i === start) i++;
      out.push({ kind: 'op', value: sql.slice(start, i), start, end: i });
    } else {
      i++;
      out.push({ kind: 'op', value: sql[start]!, start, end: i });
    }
  }
  return out;
}

/** One statement of a text: its tokens and its source (without the `;`). */
export interface StatementText {
  text: string;
  tokens: PgToken[];
}

/** Splits a simple Query's text at top-level `;`; statements without tokens are dropped. */
export function splitStatements(sql: string): StatementText[] {
  const tokens = tokenizePg(sql);
  const out: StatementText[] = [];
  let from = 0;
  let first = 0;
  let depth = 0;
  const cut = (to: number, last: number): void => {
    const slice = tokens.slice(first, last);
    if (slice.length > 0)
      out.push({
        text: sql.slice(from, to),
        tokens: slice.map((t) => ({ ...t, start: t.start - from, end: t.end - from })),
      });
  };
  tokens.forEach((t, k) => {
    if (t.kind !== 'op') return;
    if (t.value === '(') depth++;
    else if (t.value === ')') depth = Math.max(0, depth - 1);
    else if (t.value === ';' && depth === 0) {
      cut(t.start, k);
      from = t.end;
      first = k + 1;
    }
  });
  cut(sql.length, tokens.length);
  return out;
}

/** The words of a statement's first `count` tokens, lower-cased ('' for tokens that are not words). */
export function leadingWords(tokens: readonly PgToken[], count: number): string[] {
  return tokens.slice(0, count).map((t) => (t.kind === 'word' ? t.value : ''));
}
