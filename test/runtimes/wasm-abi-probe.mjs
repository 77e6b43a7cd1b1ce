// Drives build/sundial.wasm through its documented ABI (assembly/README.md) with nothing but
// WebAssembly.instantiate: no TypeScript glue, so it runs unchanged in Node, Bun and Deno.
// Usage: <runtime> wasm-abi-probe.mjs path/to/sundial.wasm  -> one JSON object on stdout.

const LP_FLAG_LAST = 1;
const FIXUP_BYTES = 12;

/** The wasm file's bytes, read with whatever the runtime offers. */
async function readFile(path) {
  if (globalThis.Deno !== undefined) return await globalThis.Deno.readFile(path);
  if (globalThis.Bun !== undefined) return new Uint8Array(await globalThis.Bun.file(path).arrayBuffer());
  const fs = await import('node:fs/promises');
  return new Uint8Array(await fs.readFile(path));
}

function args() {
  if (globalThis.Deno !== undefined) return globalThis.Deno.args;
  return globalThis.process.argv.slice(2);
}

function runtime() {
  if (globalThis.Deno !== undefined) return `deno ${globalThis.Deno.version.deno}`;
  if (globalThis.Bun !== undefined) return `bun ${globalThis.Bun.version}`;
  return `node ${globalThis.process.versions.node}`;
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

async function instantiate(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes, {
    env: {
      // A failed assertion in the core: always a bug, never a property of the input.
      abort(_msg, _file, line, column) {
        throw new Error(`wasm abort at ${line}:${column}`);
      },
    },
  });
  return instance.exports;
}

/** Scans a whole body in one final window; returns the result record and the batch with fixups applied. */
function scanLineProtocol(x, text, defaultTs) {
  const body = new TextEncoder().encode(text);
  const ptr = x.lp_input(body.length);
  new Uint8Array(x.memory.buffer).set(body, ptr);
  const rc = x.lp_scan(ptr, body.length, LP_FLAG_LAST, 1n, 1n, defaultTs, 1 << 24);
  const r = new Uint32Array(x.memory.buffer, x.lp_result(), 20);
  const out = { text, defaultTs: String(defaultTs), rc, consumed: r[0], lines: r[1], rows: r[4], fixups: r[6] };
  if (rc > 0) return { ...out, error: { code: r[7], line: r[8], column: r[9], offset: r[10], length: r[11] } };
  const batch = new Uint8Array(x.memory.buffer, r[2], r[3]).slice();
  // Values the core's exact fast path left to the host: parse the token with Number() and
  // write the double at its destination in the batch.
  const fixups = new DataView(x.memory.buffer, r[5], r[6] * FIXUP_BYTES);
  const dv = new DataView(batch.buffer);
  for (let i = 0; i < r[6]; i++) {
    const at = fixups.getUint32(i * FIXUP_BYTES, true);
    const len = fixups.getUint32(i * FIXUP_BYTES + 4, true);
    const dest = fixups.getUint32(i * FIXUP_BYTES + 8, true);
    dv.setFloat64(dest, Number(new TextDecoder().decode(body.subarray(at, at + len))), true);
  }
  return { ...out, batch: hex(batch) };
}

/** Encodes a column with codec_encode_<kind>, decodes the block back, and reports both. */
function roundTrip(x, kind, width, values, validity, mode) {
  const n = values.length;
  const raw = new Uint8Array(values.buffer, values.byteOffset, n * width);
  const src = x.alloc(raw.length + n);
  let mem = new Uint8Array(x.memory.buffer);
  mem.set(raw, src);
  let vPtr = 0;
  if (validity !== undefined) {
    vPtr = src + raw.length;
    mem.set(validity, vPtr);
  }
  const len = x[`codec_encode_${kind}`](src, n, vPtr, mode);
  x.free(src);
  const input = { values: hex(raw), validity: validity === undefined ? null : Array.from(validity) };
  if (len < 0) return { kind, mode, input, encodeRc: len };
  let r = new Uint32Array(x.memory.buffer, x.codec_result(), 8);
  const block = new Uint8Array(x.memory.buffer, r[0], len).slice();
  const blockPtr = x.alloc(len);
  new Uint8Array(x.memory.buffer).set(block, blockPtr);
  const decodeRc = x[`codec_decode_${kind}`](blockPtr, len, n);
  r = new Uint32Array(x.memory.buffer, x.codec_result(), 8);
  mem = new Uint8Array(x.memory.buffer);
  const decoded = mem.slice(r[0], r[0] + n * width);
  const valid = decodeRc === 1 ? Array.from(mem.subarray(r[2], r[2] + n)) : null;
  x.free(blockPtr);
  return { kind, mode, input, block: hex(block), decodeRc, decoded: hex(decoded), validity: valid, encoding: r[7] };
}

/** Encodes strings (offsets + bytes) and decodes the dictionary form back to strings. */
function roundTripStrings(x, strings, mode) {
  const enc = new TextEncoder();
  const parts = strings.map((s) => enc.encode(s));
  const offsets = new Uint32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i] + parts[i].length;
  const bytes = new Uint8Array(offsets[parts.length]);
  parts.forEach((p, i) => bytes.set(p, offsets[i]));
  const oPtr = x.alloc(offsets.byteLength);
  const bPtr = x.alloc(bytes.length || 1);
  new Uint8Array(x.memory.buffer).set(new Uint8Array(offsets.buffer), oPtr);
  new Uint8Array(x.memory.buffer).set(bytes, bPtr);
  const len = x.codec_encode_str(oPtr, bPtr, strings.length, 0, mode);
  x.free(oPtr);
  x.free(bPtr);
  let r = new Uint32Array(x.memory.buffer, x.codec_result(), 8);
  const block = new Uint8Array(x.memory.buffer, r[0], len).slice();
  const blockPtr = x.alloc(len);
  new Uint8Array(x.memory.buffer).set(block, blockPtr);
  const decodeRc = x.codec_decode_str(blockPtr, len, strings.length);
  r = new Uint32Array(x.memory.buffer, x.codec_result(), 8);
  const dv = new DataView(x.memory.buffer);
  const dec = new TextDecoder();
  const dict = [];
  for (let i = 0; i < r[3]; i++) {
    const from = dv.getUint32(r[4] + i * 4, true);
    const to = dv.getUint32(r[4] + i * 4 + 4, true);
    dict.push(dec.decode(new Uint8Array(x.memory.buffer, r[5] + from, to - from)));
  }
  const decoded = [];
  for (let i = 0; i < strings.length; i++) decoded.push(dict[dv.getUint32(r[0] + i * 4, true)]);
  x.free(blockPtr);
  return { kind: 'str', mode, input: strings, block: hex(block), decodeRc, strings: decoded, encoding: r[7] };
}

const x = await instantiate(await readFile(args()[0]));
const n = 1000;
const times = BigInt64Array.from({ length: n }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 10_000_000_000n);
const ints = BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 1000) - 500n);
const doubles = Float64Array.from({ length: n }, (_, i) => Math.round(Math.sin(i) * 10_000) / 100);
const bools = Uint8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
const someNull = Uint8Array.from({ length: n }, (_, i) => (i % 10 === 9 ? 0 : 1));

const result = {
  runtime: runtime(),
  lineProtocol: scanLineProtocol(
    x,
    [
      'cpu,host=h1,region=eu usage_user=1.5,usage_system=2.2250738585072011e-308,count=3i,ok=true,name="a \\"b\\"",u=7u 1700000000000000000',
      'cpu,region=us,host=h2 usage_user=-0.25,count=-4i,ok=F,name="é",u=0u 1700000000000000001',
      'mem,host=h1 free=12345678901234567i',
    ].join('\n'),
    1_700_000_000_999_999_999n,
  ),
  lineProtocolError: scanLineProtocol(x, 'cpu usage=1\ncpu usage=\n', 0n),
  codecs: [
    roundTrip(x, 'i64', 8, times, undefined, 3),
    roundTrip(x, 'i64', 8, ints, undefined, 0),
    roundTrip(x, 'i64', 8, ints, someNull, 0),
    roundTrip(x, 'f64', 8, doubles, undefined, 0),
    roundTrip(x, 'f64', 8, doubles, undefined, 4),
    roundTrip(x, 'f64', 8, doubles, someNull, 1),
    roundTrip(x, 'bool', 1, bools, someNull, 0),
    roundTripStrings(x, Array.from({ length: n }, (_, i) => `host_${i % 7}`), 0),
    roundTripStrings(x, Array.from({ length: n }, (_, i) => `line ${i} ✓`), 1),
  ],
};
console.log(JSON.stringify(result));
