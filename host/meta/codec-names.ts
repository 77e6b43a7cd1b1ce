// Checks a CODEC(...) name of CREATE/ALTER TABLE against the column type, with the error texts
// CnosDB gives (reference/cnosdb-sql.md §1.1; conformance ddl/alter_codec.slt). Which names a
// type takes is the codecs' business (host/core/codecs.ts codecAllowed); this file only words
// the refusals as CnosDB does.

import { codecAllowed } from '../core/codecs.js';
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

/** CnosDB's names of the physical types in those messages. */
const TYPE_NAMES: Record<number, string> = {
  [ValueType.Double]: 'F64',
  [ValueType.BigInt]: 'I64',
  [ValueType.Unsigned]: 'U64',
  [ValueType.Boolean]: 'Boolean',
  [ValueType.String]: 'String',
};

/**
 * Returns the canonical (upper-case) codec name for a field of `type` (or the time column when
 * `type` is 'time'), or throws UserError with CnosDB's message. Tags take no codec.
 */
export function checkCodec(codec: string | undefined, type: ValueType | 'time'): string {
  if (codec === undefined) return 'DEFAULT';
  const name = codec.toUpperCase();
  if (DISPLAY[name] === undefined) throw new UserError('sqlParse', `${codec} is not valid encoding`);
  if (type === ValueType.Tag) throw new UserError('sqlPlan', 'Tag does not support compression');
  if (!codecAllowed(type, name)) {
    throw new UserError(
      'sqlPlan',
      `Unsupported encoding type ${DISPLAY[name]} for ${type === 'time' ? 'Timestamp' : TYPE_NAMES[type]}`,
    );
  }
  return name;
}
