// Puts the expected rows of an .slt record and the rows the server returned into one comparable
// text (cnosdb-sql.md §7.3-§7.5). CnosDB renders cells with Arrow's display through Flight and
// quotes strings (`"NULL"` for a NULL string); over HTTP the types are gone, so both sides are
// normalised: quotes stripped, `NULL`, `"NULL"` and an empty string made equal, runs of
// whitespace collapsed, cells joined by one space (as sqllogictest-rs's default validator joins
// them). DOUBLEs in the JSON answer are re-rendered as Arrow displays them (`1.0e-6`), a struct
// as `{start: .., end: ..}`, a list as `[a, b]`, and a last cell holding newlines (EXPLAIN) is
// split into extra rows with leading spaces turned into `-`, as CnosDB's normalize.rs does.

import { formatArrowF64 } from '../../host/engine/format/index.js';
import type { JsonValue } from './json-values.js';

const NULL = 'NULL';

/** Arrow's display (with NULL as `NULL`) of one JSON value of Sundial's answer. */
export function cellText(v: JsonValue): string {
  switch (v.t) {
    case 'null':
      return NULL;
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'number':
      return /[.eE]/.test(v.raw) ? formatArrowF64(Number(v.raw)) : v.raw;
    case 'string':
      return v.v;
    case 'array':
      return `[${v.items.map(cellText).join(', ')}]`;
    case 'object':
      return `{${v.entries.map(([k, x]) => `${k}: ${cellText(x)}`).join(', ')}}`;
  }
}

/** CnosDB's expand_row: a last cell with newlines becomes extra one-cell rows. */
function expandRow(cells: string[]): string[][] {
  const last = cells[cells.length - 1];
  if (last === undefined) return [cells];
  const lines = last.split('\n').filter((l) => l !== '');
  if (lines.length < 2) return [cells];
  const extra = lines.map((l) => {
    const content = l.trimStart();
    return ['-'.repeat(l.length - content.length) + content];
  });
  return [cells.slice(0, -1), ...extra];
}

function canonicalCell(text: string): string {
  return text === '' || text === NULL ? NULL : text;
}

function joinCells(cells: readonly string[]): string {
  return cells.map(canonicalCell).join(' ').trim().split(/\s+/).join(' ');
}

/** The server's rows as normalised lines. */
export function actualLines(rows: readonly JsonValue[][]): string[] {
  return rows.flatMap((row) => expandRow(row.map(cellText))).map(joinCells);
}

/**
 * Splits an expected line into cells: `"..."` (with `\"` for a quote inside), `{...}` and `[...]`
 * kept whole, else runs of non-space.
 */
export function expectedCells(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let text = '';
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        // `\"` is an escaped quote, except before a space or the end of the line: CnosDB does not
        // escape backslashes, so the string `}\` prints as `"}\"` and that quote closes it.
        if (line[j] === '\\' && line[j + 1] === '"' && j + 2 < line.length && !/\s/.test(line[j + 2]!)) j++;
        text += line[j];
      }
      out.push(text);
      i = j + 1;
      continue;
    }
    let j = i;
    if (c === '{' || c === '[') {
      let depth = 0;
      for (; j < line.length; j++) {
        if (line[j] === '{' || line[j] === '[') depth++;
        else if (line[j] === '}' || line[j] === ']') depth--;
        if (depth === 0) break;
      }
      j++;
    } else while (j < line.length && !/\s/.test(line[j]!)) j++;
    out.push(line.slice(i, j));
    i = j;
  }
  return out;
}

/** The expected rows as normalised lines. */
export function expectedLines(rows: readonly string[]): string[] {
  return rows.map((r) => joinCells(expectedCells(r)));
}

/** `valuesort`: every value of the result on its own line, sorted. */
export function valueSorted(lines: readonly string[]): string[] {
  return lines.flatMap((l) => l.split(' ')).sort();
}

/** Phases CnosDB's Flight status wraps around the message that HTTP sends as error_message. */
const FLIGHT_PHASES = ['Build logical plan: ', 'Execute logical plan: ', 'Could not chunk result: '];
/** sqllogictest's Flight client wraps an ArrowError of its own so. */
const CLIENT_ARROW = 'Arrow error: ';

/**
 * The regex to search in an HTTP error_message for an .slt error regex (cnosdb-sql.md §7.5): from
 * a Flight status (`... message: "<phase>: <msg>", metadata: ...`) the part inside `message: "`,
 * without its phase prefix and with the Debug escapes undone (`\\"` is a quote); an error the
 * Flight client raised itself (`Arrow error: <ArrowError>`: a value its Arrow display cannot write,
 * which CnosDB's HTTP writers answer as `Fetch result: <ArrowError>`) without the client's
 * prefix; any other regex as written. Throws SyntaxError when JavaScript cannot compile it.
 */
export function errorRegex(source: string): RegExp {
  const start = source.indexOf('message: "');
  if (start < 0) return new RegExp(source.startsWith(CLIENT_ARROW) ? source.slice(CLIENT_ARROW.length) : source);
  let body = source.slice(start + 'message: "'.length);
  const end = body.indexOf('", metadata: ');
  body = body.slice(0, end >= 0 ? end : body.lastIndexOf('"'));
  const phase = FLIGHT_PHASES.find((p) => body.startsWith(p));
  if (phase !== undefined) body = body.slice(phase.length);
  // Rust's Debug escaped `"` as `\"` and `\` as `\\`; the regex matched those escapes.
  body = body
    .replaceAll('\\\\\\\\', '\\\\')
    .replaceAll('\\\\"', '"')
    .replaceAll('\\\\n', '\\n')
    .replaceAll('\\\\t', '\\t');
  return new RegExp(body);
}
