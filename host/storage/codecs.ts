// The column codecs the server, its tools and its tests use for segment files. One place, so that
// a file written by one process is always read with the codecs that wrote it.

import type { Core } from '../core/wasm.js';
import type { ColumnCodecs } from './column-codecs.js';
import { FallbackCodecs } from './fallback-codecs.js';

/** The codecs for segment blocks (the Wasm core's once they are merged; until then the fallback). */
export function storageCodecs(core: Core): ColumnCodecs {
  void core;
  return new FallbackCodecs();
}
