// The storage engine as the rest of host/ sees it. The catalog files beside storage.ts are still
// imported directly, until they move to host/meta (issue 26, part M).

export { faultPointArmed, isNoSpace, NO_SPACE_MESSAGE, NO_SPACE_RETRY_S } from './fs/index.js';
export { storageCodecs } from './segment/index.js';
export { type SkippedFiles, Storage } from './storage.js';
