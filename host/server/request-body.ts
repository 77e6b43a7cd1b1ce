// Reads a request body with its Content-Encoding undone and the size limit applied both to the
// bytes on the wire and to the decompressed bytes. Errors: unknown encoding 400 040005, corrupt
// stream 400 040013, too large 413 040014.
//
// The compressed bytes are collected first (at most `limit` of them), then decoded by a decoder
// that stops as soon as its output passes the limit, so a 10 KB bomb that expands to 1 GB costs
// `limit` bytes and a few milliseconds. The request stream is only ever read through events and
// drained on error, never destroyed: destroying a hapi request stream (as breaking out of
// `for await` does) waits for its 'close', which Node emits only after the response, and the
// request hangs.

import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type InputType, type ZlibOptions } from 'node:zlib';
import type * as ZstdBinding from 'zstd-napi/binding.js';
import { UserError } from '../core/errors.js';

const zstd = createRequire(import.meta.url)('zstd-napi/binding.js') as typeof ZstdBinding;

export const ENCODINGS = ['identity', 'gzip', 'x-gzip', 'deflate', 'br', 'zstd'] as const;

/** Throws unless `header` names one supported encoding (checked before the body is read). */
export function checkContentEncoding(header: string | undefined): string {
  const enc = (header ?? 'identity').trim().toLowerCase() || 'identity';
  if (!(ENCODINGS as readonly string[]).includes(enc)) {
    throw new UserError(
      'badHeader',
      `Content-Encoding '${header}' is not supported; use one of gzip, deflate, br, zstd, identity`,
    );
  }
  return enc;
}

function tooLarge(limit: number, what: string): UserError {
  return new UserError('bodyTooLarge', `request body ${what}exceeds the limit of ${limit} bytes`);
}

/**
 * Reads the whole body of `stream`, decoding `encoding` (from checkContentEncoding).
 * `declaredLength` is the Content-Length header, checked before anything is read.
 */
export async function readBody(
  stream: Readable,
  encoding: string,
  limit: number,
  declaredLength?: number,
): Promise<Buffer> {
  if (declaredLength !== undefined && declaredLength > limit) {
    stream.resume();
    throw tooLarge(limit, `of ${declaredLength} bytes `);
  }
  const raw = await readRaw(stream, limit);
  if (encoding === 'identity' || raw.length === 0) return raw;
  return decode(encoding, raw, limit);
}

/** Collects the bytes of `stream`; past `limit` it rejects and lets the rest drain unread. */
function readRaw(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const stop = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      stream.resume();
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > limit) {
        stop();
        reject(tooLarge(limit, ''));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes));
    };
    const onError = (err: Error): void => {
      stop();
      reject(new UserError('bodyDecode', `request body could not be read: ${err.message}`, { cause: err }));
    };
    const onClose = (): void => onError(new Error('the client closed the connection'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

type ZlibDecoder = (buf: InputType, options: ZlibOptions) => Promise<Buffer>;
const ZLIB: Record<string, ZlibDecoder> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  zlib: promisify(inflate),
  deflateRaw: promisify(inflateRaw),
  br: promisify(brotliDecompress) as ZlibDecoder,
};

/** A zlib stream has a 2-byte header whose first nibble is 8 (deflate) and which is a multiple of 31 (RFC 1950). */
function isZlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

async function decode(encoding: string, raw: Buffer, limit: number): Promise<Buffer> {
  if (encoding === 'zstd') return zstdDecode(raw, limit);
  // "deflate" is zlib-wrapped per RFC 9110, but many clients send raw deflate: detect.
  const name =
    encoding !== 'deflate' ? encoding : raw.length >= 2 && isZlibHeader(raw[0]!, raw[1]!) ? 'zlib' : 'deflateRaw';
  try {
    // maxOutputLength makes zlib stop (ERR_BUFFER_TOO_LARGE) as soon as the output passes it.
    return await ZLIB[name]!(raw, { maxOutputLength: limit });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit, 'after decompression ');
    throw new UserError('bodyDecode', `cannot decode ${encoding} request body: ${(e as Error).message}`, { cause: e });
  }
}

const ZSTD_STEP_BYTES = 1 << 20;

/** Decodes every zstd frame of `raw`, 1 MiB of output at a time, stopping past `limit`. */
function zstdDecode(raw: Buffer, limit: number): Buffer {
  const dctx = new zstd.DCtx();
  const out: Buffer[] = [];
  let outBytes = 0;
  let src: Buffer = raw;
  let inFrame = false;
  try {
    while (src.length > 0 || inFrame) {
      const dst = Buffer.allocUnsafe(ZSTD_STEP_BYTES);
      const [remaining, produced, consumed] = dctx.decompressStream(dst, src);
      outBytes += produced;
      if (outBytes > limit) throw tooLarge(limit, 'after decompression ');
      if (produced > 0) out.push(dst.subarray(0, produced));
      src = src.subarray(consumed);
      inFrame = remaining !== 0;
      // No input left, frame unfinished and no progress: the stream was cut short.
      if (src.length === 0 && inFrame && produced < ZSTD_STEP_BYTES)
        throw new Error('the stream ends in the middle of a frame');
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError('bodyDecode', `cannot decode zstd request body: ${(e as Error).message}`, { cause: e });
  }
  return Buffer.concat(out, outBytes);
}
