// zstd-napi for the sandbox bundle (bin/build-sandbox.js aliases it): decompression by fzstd
// (pure JS) for the zstd frames of segment files (indexes, page blocks, STRING blocks). The
// sandbox never writes a segment file, so compressing is a bug.

import { decompress as fzstd } from 'fzstd';

export function decompress(data: Uint8Array): Uint8Array {
  return fzstd(data);
}

export function compress(): Uint8Array {
  throw new Error('BUG: the sandbox does not compress zstd (it writes no segment files)');
}
