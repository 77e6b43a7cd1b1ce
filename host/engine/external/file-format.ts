// COPY's FILE_FORMAT and COPY_OPTIONS lists, checked as CnosDB's FileFormatOptionsBuilder and
// CopyOptionsBuilder check them (query_server/spi/src/query/ast.rs): option names are matched
// lower-cased, an unknown one is "Semantic error: Unsupported option [x]", and the defaults are
// TYPE 'CSV', DELIMITER ',', WITH_HEADER true. CnosDB's JSON is newline-delimited JSON (arrow-json).

import { UserError } from '../../core/errors.js';
import { notImplemented, semanticError } from '../errors.js';
import type { OptionValue, SqlOption } from '../sql/ast.js';

export type FileType = 'CSV' | 'JSON' | 'PARQUET';

export interface FileFormat {
  readonly type: FileType;
  /** One character (a byte of ASCII: arrow-csv splits bytes). */
  readonly delimiter: string;
  readonly withHeader: boolean;
}

export interface CopyOptions {
  /** Read the file's own schema instead of the table's (CnosDB's auto_infer_schema). */
  readonly autoInferSchema: boolean;
}

/** The file extension COPY INTO 'dir/' gives a new file of this type. */
export const FILE_EXTENSIONS: Readonly<Record<FileType, string>> = { CSV: 'csv', JSON: 'json', PARQUET: 'parquet' };

/** CnosDB's parse_*_value errors are sqlparser ParserErrors (010009), shown with the value's SQL text. */
function valueError(want: string, v: OptionValue): UserError {
  const text =
    v.kind === 'string'
      ? `'${v.value}'`
      : v.kind === 'number'
        ? v.text
        : v.kind === 'boolean'
          ? String(v.value)
          : 'NULL';
  return new UserError('sqlParse', `sql parser error: expected ${want} value, but got ${text}`);
}

function stringValue(v: OptionValue): string {
  if (v.kind !== 'string') throw valueError('string', v);
  return v.value;
}

function boolValue(v: OptionValue): boolean {
  if (v.kind === 'boolean') return v.value;
  throw valueError('boolean', v);
}

function charValue(v: OptionValue): string {
  if (v.kind !== 'string' || v.value.length !== 1) throw valueError('char', v);
  return v.value;
}

export function fileFormatOptions(options: readonly SqlOption[]): FileFormat {
  let type: FileType = 'CSV';
  let delimiter = ',';
  let withHeader = true;
  for (const { name, value } of options) {
    switch (name.toLowerCase()) {
      case 'type': {
        const t = stringValue(value).toUpperCase();
        if (t === 'AVRO') throw notImplemented('COPY of AVRO files');
        if (t !== 'CSV' && t !== 'JSON' && t !== 'PARQUET')
          throw semanticError(`Unknown FileType: ${t}, only support AVRO | PARQUET | CSV | JSON`);
        type = t;
        break;
      }
      case 'delimiter':
        delimiter = charValue(value);
        if (delimiter.charCodeAt(0) > 127 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
          throw semanticError(
            `Unsupported delimiter [${delimiter}]: one ASCII character other than a quote or a line break`,
          );
        }
        break;
      case 'with_header':
        withHeader = boolValue(value);
        break;
      case 'file_compression_type': {
        const c = stringValue(value).toUpperCase();
        if (c === '') break;
        if (c === 'GZIP' || c === 'GZ' || c === 'BZIP2' || c === 'BZ2')
          throw notImplemented(`COPY of ${c} compressed files`);
        throw semanticError(`Unknown FileCompressionType: ${c}, only support GZIP | BZIP2`);
      }
      default:
        throw semanticError(`Unsupported option [${name.toLowerCase()}]`);
    }
  }
  return { type, delimiter, withHeader };
}

export function copyOptions(options: readonly SqlOption[]): CopyOptions {
  let autoInferSchema = false;
  for (const { name, value } of options) {
    if (name.toLowerCase() !== 'auto_infer_schema') throw semanticError(`Unsupported option [${name.toLowerCase()}]`);
    autoInferSchema = boolValue(value);
  }
  return { autoInferSchema };
}
