// The CnosDB column codec names CREATE/ALTER TABLE accept, per value type, and the error texts
// CnosDB gives for the others (reference/cnosdb-sql.md §1.1; conformance ddl/alter_codec.slt).
// Only names are checked here; which codec actually encodes a block is the codecs' business.

import { UserError } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';

/** CnosDB's spelling of each encoding in messages ("Unsupported encoding type Snappy for F64"). */
const DISPLAY: Record<string, string> = {
  DEFAULT: 'Default',
  NULL: 'Null',
  DELTA: 'Delta',
  DELTATS: 'DeltaTs',
  QUANTILE: 'Quantile',
  GORILLA: 'Gorilla',
  GZIP: 'Gzip',
  BZIP: 'Bzip',
  ZSTD: 'Zstd',
  SNAPPY: 'Snappy',
  ZLIB: 'Zlib',
  BITPACK: 'BitPack',
};

const INTEGER = ['DEFAULT', 'NULL', 'DELTA', 'DELTATS', 'QUANTILE'];
const ALLOWED: Record<number, { type: string; names: string[] }> = {
  [ValueType.Double]: { type: 'F64', names: ['DEFAULT', 'NULL', 'GORILLA', 'QUANTILE'] },
  [ValueType.BigInt]: { type: 'I64', names: INTEGER },
  [ValueType.Unsigned]: { type: 'U64', names: INTEGER },
  [ValueType.Boolean]: { type: 'Boolean', names: ['DEFAULT', 'NULL', 'BITPACK'] },
  [ValueType.String]: { type: 'String', names: ['DEFAULT', 'NULL', 'GZIP', 'BZIP', 'ZSTD', 'SNAPPY', 'ZLIB'] },
};
const TIME = { type: 'Timestamp', names: INTEGER };

/**
 * Returns the canonical (upper-case) codec name for a field of `type` (or the time column when
 * `type` is 'time'), or throws UserError with CnosDB's message.
 */
export function checkCodec(codec: string | undefined, type: ValueType | 'time'): string {
  if (codec === undefined) return 'DEFAULT';
  const name = codec.toUpperCase();
  if (DISPLAY[name] === undefined) throw new UserError('sqlParse', `${codec} is not valid encoding`);
  const allowed = type === 'time' ? TIME : ALLOWED[type];
  if (allowed === undefined) throw new UserError('sqlPlan', 'Tag does not support compression');
  if (!allowed.names.includes(name)) {
    throw new UserError('sqlPlan', `Unsupported encoding type ${DISPLAY[name]} for ${allowed.type}`);
  }
  return name;
}
