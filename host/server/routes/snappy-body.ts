// Snappy block format (not the framed format): the body framing of Prometheus remote write and
// read and of Loki's protobuf push. The uncompressed length leads the block as a varint, so a
// body that would expand past the limit is refused (413) before anything is allocated.

import { uncompressSync } from 'snappy';
import { UserError } from '../../core/errors.js';

/** The uncompressed length a snappy block declares, or -1 if the varint is malformed. */
function declaredLength(block: Uint8Array): number {
  let n = 0;
  for (let i = 0, shift = 0; i < block.length && i < 5; i++, shift += 7) {
    const b = block[i]!;
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return n;
  }
  return -1;
}

/** Decodes one snappy block; 400 040013 when corrupt, 413 040014 when it would pass `limit`. */
export function decodeSnappyBlock(block: Buffer, limit: number): Buffer {
  const n = declaredLength(block);
  if (n < 0)
    throw new UserError(
      'bodyDecode',
      'cannot decode snappy request body: the block does not start with a valid length',
    );
  if (n > limit)
    throw new UserError('bodyTooLarge', `request body exceeds the limit of ${limit} bytes after decompression`);
  try {
    return uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (e) {
    throw new UserError('bodyDecode', `cannot decode snappy request body: ${(e as Error).message}`, { cause: e });
  }
}
