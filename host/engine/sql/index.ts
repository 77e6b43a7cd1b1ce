// The SQL front end's public surface (STYLE §28): parse, print, name. Everything else in this
// folder is internal. Pipeline: lexer.ts -> parser*.ts -> ast.ts -> printer*.ts / display-name.ts.

export type * from './ast.js';
export { ALTERABLE_DATABASE_OPTIONS, CODECS, DATABASE_OPTIONS } from './ast.js';
export { SqlParseError, SqlTokenizeError } from './errors.js';
export { parseExpression, parseStatement, parseStatements } from './parser.js';
export { MAX_DEPTH } from './parser-base.js';
export { printExpr as printExpression, quoteIdent } from './printer-expressions.js';
export { printStatement } from './printer.js';
export {
  defaultLiteralName,
  exprDisplayName,
  formatRustF64,
  intervalMonthDayNano,
  type DisplayNameHooks,
} from './display-name.js';
