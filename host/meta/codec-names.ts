// Checks a CODEC(...) name of CREATE/ALTER TABLE against the column type, with the error texts
// CnosDB gives (reference/cnosdb-sql.md §1.1; conformance ddl/alter_codec.slt). Which names a
// type takes is the codecs' business (host/core/codecs.ts codecAllowed); this file only words
// the refusals as CnosDB does.

import { CODEC_DISPLAY_NAMES, codecAllowed } from '../core/codecs.js';
import { UserError } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';

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
  if (CODEC_DISPLAY_NAMES[name] === undefined) throw new UserError('sqlParse', `${codec} is not valid encoding`);
  if (type === ValueType.Tag) throw new UserError('sqlPlan', 'Tag does not support compression');
  if (!codecAllowed(type, name)) {
    throw new UserError(
      'sqlPlan',
      `Unsupported encoding type ${CODEC_DISPLAY_NAMES[name]} for ${type === 'time' ? 'Timestamp' : TYPE_NAMES[type]}`,
    );
  }
  return name;
}
