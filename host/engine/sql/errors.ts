// SQL front-end errors: both are UserError('sqlParse') (code 010009), with CnosDB's message shape
// "sql parser error: Expected X, found: Y" plus the position as sqlparser-rs writes it,
// "at Line: L, Column C" (STYLE §14; CnosDB's tokenizer errors read exactly so).

import { UserError } from '../../core/errors.js';
import type { Pos } from './tokens.js';

/** A statement that does not parse; `detail` is the message without prefix and position. */
export class SqlParseError extends UserError {
  readonly detail: string;
  readonly line: number;
  readonly column: number;

  constructor(detail: string, pos: Pos) {
    super('sqlParse', `sql parser error: ${detail} at Line: ${pos.line}, Column ${pos.column}`);
    this.detail = detail;
    this.line = pos.line;
    this.column = pos.column;
  }
}

/** Input that cannot even be split into tokens: an unterminated string, comment or identifier. */
export class SqlTokenizeError extends SqlParseError {}
