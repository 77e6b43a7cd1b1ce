// Reads a request body with its Content-Encoding undone and the size limit applied both to the
// bytes on the wire and to the decompressed bytes. Decompression is streamed and stopped as soon
// as the limit is passed, so a small bomb that expands to gigabytes costs bounded memory and
// time. Errors: unknown encoding 400 040005, corrupt stream 400 040013, too large 413 040014.

import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { DecompressStream } from 'zstd-napi';
import { UserError } from '../core/errors.js';

export const ENCODINGS = ['identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd'] as const;

/** Throws unless `header` names one supported encoding (checked before the body is read). */
export function checkContentEncoding(header: string | undefined): string {
  const enc = (header ?? 'identity').trim().toLowerCase() || 'identity';
  if (!(ENCODINGS as readonly string[]).includes(enc)) {
    throw new UserError('badHeader', `Content-Encoding '${header}' is not supported; use one of gzip, deflate, br, zstd, identity`);
  }
  return enc;
}

/** A zlib stream has a 2-byte header whose first nibble is 8 (deflate) and which is a multiple of 31 (RFC 1950). */
function isZlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

function decoderFor(encoding: string, first: Buffer): Transform {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      // "deflate" is zlib-wrapped per RFC 9110, but many clients send raw deflate: detect.
      return first.length >= 2 && isZlibHeader(first[0]!, first[1]!) ? createInflate() : createInflateRaw();
    case 'br':
      return createBrotliDecompress();
    case 'zstd':
      return new DecompressStream() as unknown as Transform;
    default:
      throw new UserError('badHeader', `Content-Encoding '${encoding}' is not supported`);
  }
}

function tooLarge(limit: number, what: string): UserError {
  return new UserError('bodyTooLarge', `request body ${what} exceeds the limit of ${limit} bytes`);
}

/**
 * Reads the whole body of `stream`, decoding `encoding`. `declaredLength` is the Content-Length
 * header (checked up front). Resolves to the decoded bytes.
 */
export async function readBody(stream: Readable, encoding: string, limit: number, declaredLength?: number): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > limit) {
    stream.resume();
    throw tooLarge(limit, `of ${declaredLength} bytes`);
  }
  const raw: Buffer[] = [];
  let rawBytes = 0;
  let decoder: Transform | undefined;
  const out: Buffer[] = [];
  let outBytes = 0;
  let decodeError: Error | undefined;
  let overflow = false;

  const collect = (chunk: Buffer): void => {
    if (overflow) return;
    outBytes += chunk.length;
    if (outBytes > limit) {
      // Stop decompressing at once: a bomb must not run to its full size.
      overflow = true;
      out.length = 0;
      decoder?.destroy();
      return;
    }
    out.push(chunk);
  };

  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      rawBytes += chunk.length;
      if (rawBytes > limit) throw tooLarge(limit, '');
      if (encoding === 'identity') {
        raw.push(chunk);
        continue;
      }
      if (decoder === undefined) {
        decoder = decoderFor(encoding, chunk);
        decoder.on('data', collect);
        decoder.on('error', (e: Error) => (decodeError ??= e));
      }
      await writeTo(decoder, chunk);
      if (decodeError) break;
      if (overflow) throw tooLarge(limit, 'after decompression');
    }
  } catch (e) {
    decoder?.destroy();
    stream.resume();
    throw e;
  }
  if (encoding === 'identity') return raw.length === 1 ? raw[0]! : Buffer.concat(raw, rawBytes);
  if (decoder === undefined) {
    if (rawBytes === 0) return Buffer.alloc(0);
    throw new UserError('bodyDecode', `empty ${encoding} stream`);
  }
  if (!decodeError) await endOf(decoder).catch((e: Error) => (decodeError ??= e));
  decoder.destroy();
  if (overflow) throw tooLarge(limit, 'after decompression');
  if (decodeError) {
    stream.resume();
    throw new UserError('bodyDecode', `cannot decode ${encoding} request body: ${decodeError.message}`);
  }
  return Buffer.concat(out, outBytes);
}

/** Writes a chunk, waiting for the decoder to drain so a bomb is checked chunk by chunk. */
function writeTo(decoder: Transform, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (decoder.destroyed || decoder.write(chunk)) return resolve();
    const done = (): void => {
      decoder.off('drain', done);
      decoder.off('error', done);
      decoder.off('close', done);
      resolve();
    };
    decoder.on('drain', done);
    decoder.on('error', done);
    decoder.on('close', done);
  });
}

/** Ends the decoder and waits for its last output (or its error, or its destruction). */
function endOf(decoder: Transform): Promise<void> {
  return new Promise((resolve, reject) => {
    if (decoder.destroyed) return resolve();
    decoder.once('end', resolve);
    decoder.once('close', resolve);
    decoder.once('error', reject);
    decoder.end();
  });
}
