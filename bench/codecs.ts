// npm run bench:codecs — encode and decode speed (values/s, one core) and size (bytes per
// value) of each column block codec on TSBS cpu-only shapes (../shared/bench/gen-cpu.mjs):
// regular 10 s timestamps, the integer fields (random walks in 0..100), the same walks as
// two-decimal floats (--types float), booleans and strings derived from them. Columns are cut per
// host into blocks of --block rows, as segment files store them.
//
// "wasm" figures call the raw exports with the values already in Wasm memory (the codec alone);
// "host" figures go through BlockCodecs (copies in and out of Wasm memory included).
//
// Options: --hosts 20 --duration 1d --block 1000 --runs 5

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as zstd from 'zstd-napi';
import { BlockCodecs, Encoding, type ColumnValues } from '../host/core/codecs.js';
import { Core } from '../host/core/wasm.js';
import { ValueType } from '../host/core/write-batch.js';
import { cpuLpFile } from './support/tsbs-data.js';

const WORK = '/tmp/sundial-bench';

const { values: opts } = parseArgs({
  options: {
    hosts: { type: 'string', default: '20' },
    duration: { type: 'string', default: '1d' },
    block: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '5' },
  },
});
const BLOCK = Number(opts.block);
const RUNS = Number(opts.runs);

interface HostSeries {
  ts: bigint[];
  fields: number[][];
}

/** Per host: timestamps and the 10 field columns, in file order (time-major, so per host sorted). */
function parse(file: string): HostSeries[] {
  const hosts = new Map<string, HostSeries>();
  const text = readFileSync(file, 'latin1');
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const line = text.slice(at, nl);
    at = nl + 1;
    const sp1 = line.indexOf(' ');
    const sp2 = line.lastIndexOf(' ');
    const key = line.slice(0, sp1);
    let h = hosts.get(key);
    if (h === undefined) {
      h = { ts: [], fields: Array.from({ length: 10 }, () => []) };
      hosts.set(key, h);
    }
    h.ts.push(BigInt(line.slice(sp2 + 1)));
    const fields = line.slice(sp1 + 1, sp2).split(',');
    for (let f = 0; f < fields.length; f++) {
      const v = fields[f]!.slice(fields[f]!.indexOf('=') + 1);
      h.fields[f]!.push(Number(v.endsWith('i') ? v.slice(0, -1) : v));
    }
  }
  return [...hosts.values()];
}

/** A column cut into blocks: each block's values as the typed array BlockCodecs takes. */
interface Column {
  name: string;
  type: ValueType | 'time';
  codec: string;
  blocks: ColumnValues[];
}

function cut<T>(values: T[], make: (part: T[]) => ColumnValues): ColumnValues[] {
  const out: ColumnValues[] = [];
  for (let i = 0; i < values.length; i += BLOCK) out.push(make(values.slice(i, i + BLOCK)));
  return out;
}

function columns(ints: HostSeries[], floats: HostSeries[]): Column[] {
  const cols: Column[] = [];
  const add = (name: string, type: Column['type'], codec: string, blocks: ColumnValues[]): void => {
    cols.push({ name, type, codec, blocks });
  };
  add(
    'time (10 s regular)',
    'time',
    'DEFAULT',
    ints.flatMap((h) => cut(h.ts, (p) => BigInt64Array.from(p))),
  );
  let seed = 12345;
  const random = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const jitter = ints.flatMap((h) =>
    cut(
      h.ts.map((t) => t + BigInt(Math.floor(random() * 1000)) * 1000n),
      (p) => BigInt64Array.from(p),
    ),
  );
  add('time (10 s + up to 1 ms jitter)', 'time', 'DEFAULT', jitter);
  const intBlocks = ints.flatMap((h) => h.fields.flatMap((f) => cut(f, (p) => BigInt64Array.from(p, BigInt))));
  add('BIGINT (TSBS fields)', ValueType.BigInt, 'DEFAULT', intBlocks);
  add('BIGINT, CODEC(NULL)', ValueType.BigInt, 'NULL', intBlocks);
  const floatBlocks = floats.flatMap((h) => h.fields.flatMap((f) => cut(f, (p) => Float64Array.from(p))));
  add('DOUBLE (two decimals)', ValueType.Double, 'DEFAULT', floatBlocks);
  add('DOUBLE, CODEC(GORILLA)', ValueType.Double, 'GORILLA', floatBlocks);
  add(
    'BOOLEAN (field > 50)',
    ValueType.Boolean,
    'DEFAULT',
    ints.flatMap((h) => h.fields.flatMap((f) => cut(f, (p) => Uint8Array.from(p, (v) => (v > 50 ? 1 : 0))))),
  );
  const levels = ['idle', 'low', 'normal', 'high', 'critical'];
  add(
    'STRING (5 levels)',
    ValueType.String,
    'DEFAULT',
    ints.flatMap((h) => h.fields.flatMap((f) => cut(f, (p) => p.map((v) => levels[Math.min(4, Math.floor(v / 20))]!)))),
  );
  return cols;
}

interface Exports {
  memory: WebAssembly.Memory;
  alloc(n: number): number;
  codec_result(): number;
  codec_encode_i64(src: number, n: number, validity: number, mode: number): number;
  codec_encode_f64(src: number, n: number, validity: number, mode: number): number;
  codec_encode_bool(src: number, n: number, validity: number, mode: number): number;
  codec_decode_i64(block: number, len: number, n: number): number;
  codec_decode_f64(block: number, len: number, n: number): number;
  codec_decode_bool(block: number, len: number, n: number): number;
  codec_decode_str(block: number, len: number, n: number): number;
}

const MODES: Record<string, number> = { DEFAULT: 0, NULL: 1, GORILLA: 4 };

function best(fn: () => void): number {
  let min = Infinity;
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    fn();
    const t = Number(process.hrtime.bigint() - t0) / 1e9;
    if (t < min) min = t;
  }
  return min;
}

const M = (v: number): string => (v / 1e6).toFixed(0).padStart(6);

async function main(): Promise<void> {
  const ints = parse(cpuLpFile(WORK, opts.hosts!, opts.duration!, 'int'));
  const floats = parse(cpuLpFile(WORK, opts.hosts!, opts.duration!, 'float'));
  const core = await Core.load(readFileSync(new URL('../build/sundial.wasm', import.meta.url)));
  const codecs = BlockCodecs.create(core, zstd);
  const x = core.exports as unknown as Exports;
  const cols = columns(ints, floats);

  console.log(`codecs: ${ints.length} hosts, blocks of up to ${BLOCK} rows, best of ${RUNS} runs, one core`);
  console.log(
    'column                              bytes/value   wasm enc M/s  wasm dec M/s  host enc M/s  host dec M/s  encodings',
  );
  for (const col of cols) {
    const type = col.type === 'time' ? ValueType.BigInt : col.type;
    const enc = (b: ColumnValues): Uint8Array =>
      col.type === 'time'
        ? codecs.encodeTimestamps(b as BigInt64Array, b.length, col.codec)
        : codecs.encode(type, b, undefined, b.length, col.codec);
    const encoded = col.blocks.map(enc);
    const values = col.blocks.reduce((s, b) => s + b.length, 0);
    const bytes = encoded.reduce((s, b) => s + b.length, 0);
    const ids = new Map<string, number>();
    for (const b of encoded) {
      const name = Object.entries(Encoding).find(([, v]) => v === b[0])?.[0] ?? String(b[0]);
      ids.set(name, (ids.get(name) ?? 0) + 1);
    }
    for (let i = 0; i < encoded.length; i++) {
      const d =
        col.type === 'time'
          ? codecs.decodeTimestamps(encoded[i]!, col.blocks[i]!.length)
          : codecs.decode(type, encoded[i]!, col.blocks[i]!.length).values;
      for (let j = 0; j < d.length; j++) {
        if (!Object.is(d[j], col.blocks[i]![j]))
          throw new Error(`BUG: ${col.name} block ${i} row ${j} does not round-trip`);
      }
    }
    const hostEnc = best(() => col.blocks.forEach(enc));
    const hostDec = best(() =>
      encoded.forEach((b, i) => {
        codecs.decode(type, b, col.blocks[i]!.length);
      }),
    );

    // The raw exports, with every block's values and encoded bytes already in Wasm memory.
    let wasmEnc = NaN;
    let wasmDec = NaN;
    if (type !== ValueType.String) {
      const width = type === ValueType.Boolean ? 1 : 8;
      const srcAt = x.alloc(values * width + 16);
      const blkAt = x.alloc(bytes + 16);
      const mem = new Uint8Array(x.memory.buffer);
      let s = srcAt;
      let p = blkAt;
      const places: Array<[number, number, number, number]> = [];
      col.blocks.forEach((b, i) => {
        const t = b as Float64Array;
        mem.set(new Uint8Array(t.buffer, t.byteOffset, t.length * width), s);
        mem.set(encoded[i]!, p);
        places.push([s, b.length, p, encoded[i]!.length]);
        s += t.length * width;
        p += encoded[i]!.length;
      });
      const mode = col.type === 'time' ? 0 : MODES[col.codec]!;
      const encode =
        type === ValueType.Double
          ? x.codec_encode_f64
          : type === ValueType.Boolean
            ? x.codec_encode_bool
            : x.codec_encode_i64;
      const decode =
        type === ValueType.Double
          ? x.codec_decode_f64
          : type === ValueType.Boolean
            ? x.codec_decode_bool
            : x.codec_decode_i64;
      wasmEnc =
        values /
        best(() =>
          places.forEach(([src, n]) => {
            encode(src, n, 0, mode);
          }),
        );
      wasmDec =
        values /
        best(() =>
          places.forEach(([, n, blk, len]) => {
            decode(blk, len, n);
          }),
        );
    } else {
      const blkAt = x.alloc(bytes + 16);
      const mem = new Uint8Array(x.memory.buffer);
      const places: Array<[number, number, number]> = [];
      let p = blkAt;
      encoded.forEach((b, i) => {
        if (b[0] === Encoding.Zstd) return; // zstd runs on the host
        mem.set(b, p);
        places.push([p, b.length, col.blocks[i]!.length]);
        p += b.length;
      });
      if (places.length === encoded.length)
        wasmDec =
          values /
          best(() =>
            places.forEach(([blk, len, n]) => {
              x.codec_decode_str(blk, len, n);
            }),
          );
    }
    const f = (v: number): string => (Number.isNaN(v) ? '     -' : M(v));
    console.log(
      `${col.name.padEnd(36)}${(bytes / values).toFixed(3).padStart(10)}   ${f(wasmEnc)}        ${f(wasmDec)}        ${M(values / hostEnc)}        ${M(values / hostDec)}     ${[...ids].map(([k, v]) => `${k}:${v}`).join(' ')}`,
    );
  }
}

await main();
