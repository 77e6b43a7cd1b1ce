// The bytes of one `sundial import` input: a file or stdin, decompressed when its first bytes are
// gzip's or zstd's magic number (the extension is not trusted: `data.lp` may be gzip, and
// `data.gz` is read as plain text when it is not). Streamed in chunks, so a multi-gigabyte file
// takes constant memory; `onRaw` counts the bytes as read from disk, for progress against the
// file's size.

import { createReadStream } from 'node:fs';
import { Readable, type Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { DecompressStream } from 'zstd-napi';

const GZIP = [0x1f, 0x8b];
const ZSTD = [0x28, 0xb5, 0x2f, 0xfd];

export type Compression = 'none' | 'gzip' | 'zstd';

function startsWith(head: Buffer, magic: number[]): boolean {
  return head.length >= magic.length && magic.every((b, i) => head[i] === b);
}

export function compressionOf(head: Buffer): Compression {
  return startsWith(head, GZIP) ? 'gzip' : startsWith(head, ZSTD) ? 'zstd' : 'none';
}

/** The input's name without compression extensions, for the format and the default table. */
export function baseName(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.replace(/\.(gz|gzip|zst|zstd)$/i, '');
}

async function* counted(
  stream: AsyncIterable<Buffer>,
  onRaw: (bytes: number) => void,
  first: Buffer[],
): AsyncGenerator<Buffer> {
  for (const b of first) yield b;
  for await (const b of stream) {
    onRaw(b.length);
    yield b;
  }
}

/** The decompressed chunks of `path` (`-`: stdin). */
export async function* inputChunks(path: string, onRaw: (bytes: number) => void): AsyncGenerator<Buffer> {
  const raw = (
    path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 1 << 20 })
  ) as AsyncIterable<Buffer> & Readable;
  const it = raw[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  while (headBytes < 4) {
    const r = await it.next();
    if (r.done === true) break;
    onRaw(r.value.length);
    head.push(r.value);
    headBytes += r.value.length;
  }
  const rest = { [Symbol.asyncIterator]: () => it };
  const compression = compressionOf(Buffer.concat(head));
  if (compression === 'none') {
    yield* counted(rest, onRaw, head);
    return;
  }
  const decompressor: Transform = compression === 'gzip' ? createGunzip() : new DecompressStream();
  const source = Readable.from(counted(rest, onRaw, head));
  source.on('error', (e) => decompressor.destroy(e));
  source.pipe(decompressor);
  try {
    for await (const b of decompressor as AsyncIterable<Buffer>) yield b;
  } catch (e) {
    throw new Error(`cannot decompress ${path === '-' ? 'stdin' : path} (${compression}): ${(e as Error).message}`, {
      cause: e,
    });
  }
}
