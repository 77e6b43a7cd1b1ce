// Splits the SQL text of one .slt record into CnosDB's `--#NAME[ = value]` instructions and the
// request to send (SQL, a line-protocol or OpenTSDB body, or nothing), as CnosDB's own runner
// does in query_server/sqllogicaltests/src/db_request.rs (cnosdb-sql.md §7.4).

/** One `--#NAME` or `--#NAME = value` line; `value` is the first whitespace-free run after `=`. */
export interface Instruction {
  /** Upper-cased name, e.g. `DATABASE`, `LP_BEGIN`, `HTTP`. */
  name: string;
  value: string | undefined;
  /** 0-based index of the line within the record's SQL text (blank lines included). */
  lineOffset: number;
}

export type RequestBody =
  | { kind: 'sql'; text: string }
  | { kind: 'line-protocol'; text: string }
  | { kind: 'opentsdb'; text: string }
  | { kind: 'opentsdb-json'; text: string }
  /** Only instructions: CnosDB answers it as an empty success without contacting the server. */
  | { kind: 'none' }
  /** A write block without its end marker, or with lines after it (CnosDB fails the record). */
  | { kind: 'invalid'; reason: string };

export interface SltRequest {
  /** Instructions in order of appearance; the runner applies them before sending `body`. */
  instructions: Instruction[];
  /** A `--#HTTP` line: CnosDB sends this SQL to /api/v1/sql as CSV instead of Flight. */
  http: boolean;
  body: RequestBody;
}

// `--`, optional spaces, `#`, then the name. CnosDB matches the name as a case-insensitive
// prefix, so its `--#HTTP_PORT = 1` counts as `--#HTTP`; here the whole word is the name.
const INSTRUCTION = /^--\s*#([A-Za-z_][A-Za-z0-9_]*)?\s*(?:=\s*(\S+))?/;

/** Whether a line of SQL text is an instruction (`^--\s*#`), not SQL. */
export function isInstructionLine(line: string): boolean {
  return /^--\s*#/.test(line);
}

export function parseInstruction(line: string, lineOffset: number): Instruction | undefined {
  const m = INSTRUCTION.exec(line);
  if (m === null) return undefined;
  return { name: (m[1] ?? '').toUpperCase(), value: m[2], lineOffset };
}

const BLOCKS: ReadonlyArray<{ begin: string; end: string; kind: 'line-protocol' | 'opentsdb' | 'opentsdb-json' }> = [
  { begin: 'LP_BEGIN', end: 'LP_END', kind: 'line-protocol' },
  { begin: 'OPENTSDB_BEGIN', end: 'OPENTSDB_END', kind: 'opentsdb' },
  { begin: 'OPENTSDB_JSON_BEGIN', end: 'OPENTSDB_JSON_END', kind: 'opentsdb-json' },
];

/**
 * Parses a record's SQL text. Blank lines are dropped; every line that is not an instruction,
 * `-- comments` included, is SQL and the SQL lines are joined with `\n`. A write block runs from
 * its BEGIN line to an END line that must be the last non-blank line; SQL lines before it are
 * ignored, as CnosDB ignores them.
 */
export function parseRequest(sqlText: string): SltRequest {
  const lines = sqlText
    .split(/\r?\n/)
    .map((text, offset) => ({ text, offset }))
    .filter((l) => l.text.trim() !== '');
  const instructions: Instruction[] = [];
  const sql: string[] = [];
  let http = false;
  for (let i = 0; i < lines.length; i++) {
    const { text, offset } = lines[i]!;
    const ins = isInstructionLine(text) ? parseInstruction(text, offset) : undefined;
    if (ins === undefined) {
      sql.push(text);
      continue;
    }
    const block = BLOCKS.find((b) => b.begin === ins.name);
    if (block !== undefined) {
      instructions.push(ins);
      const rest = lines.slice(i + 1);
      const endAt = rest.findIndex(
        (l) => isInstructionLine(l.text) && parseInstruction(l.text, l.offset)?.name === block.end,
      );
      if (endAt < 0)
        return {
          instructions,
          http,
          body: { kind: 'invalid', reason: `expected block ending --#${block.end}, found none` },
        };
      if (endAt !== rest.length - 1) {
        return {
          instructions,
          http,
          body: {
            kind: 'invalid',
            reason: `expected block ending --#${block.end} on the last line, found it ${rest.length - 1 - endAt} line(s) earlier`,
          },
        };
      }
      return {
        instructions,
        http,
        body: {
          kind: block.kind,
          text: rest
            .slice(0, endAt)
            .map((l) => l.text)
            .join('\n'),
        },
      };
    }
    if (ins.name === 'HTTP') http = true;
    else instructions.push(ins);
  }
  return { instructions, http, body: sql.length === 0 ? { kind: 'none' } : { kind: 'sql', text: sql.join('\n') } };
}
