// node:zlib for the sandbox bundle (bin/build-sandbox.js aliases it): only crc32, which the
// segment reader checks every block, trailer and index with. IEEE CRC-32 by a table, as zlib.

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

export function crc32(data: Uint8Array, value = 0): number {
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
