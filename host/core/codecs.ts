// Column block codecs for segment files: typed column values in, self-describing blocks out
// (layouts in host/storage/FORMAT.md §4), encoded and decoded by the Wasm core (assembly/codecs/,
// exports in assembly/README.md). zstd does not run in Wasm: STRING blocks are dictionary-encoded
// there and compressed here with the zstd functions the runtime injects (zstd-napi in Node,
// fzstd / @bokuweb/zstd-wasm in a browser), so this file stays runtime-agnostic.
//
// Contract:
// - A block is decoded with the column's value type and row count only; its first byte names
//   its encoding. The caller stores the row count (the segment footer does). A block holds at
//   most MAX_BLOCK_ROWS rows.
// - Returned arrays are fresh copies the caller owns; nothing points into Wasm memory.
// - encode* never fails on any values (every CnosDB codec name maps to an encoding); a wrong
//   argument (n larger than the arrays, an unknown codec name) is a bug.
// - decode* throws CorruptionError(source 'column block', offset in the block, failed check) on
//   any inconsistency and never reads outside the block. The caller rethrows it naming the file
//   and the block's offset in it: `new CorruptionError(file, blockAt + e.offset, e.check, { cause: e })`.
// - Not re-entrant: one instance per Core, called synchronously (the core's buffers are shared).

import type { Core } from './wasm.js';
import { bug, CorruptionError } from './errors.js';
import { ValueType } from './write-batch.js';

/** Rows one block may hold (assembly/codecs/ids.ts MAX_ROWS; bounds the core's scratch memory). */
export const MAX_BLOCK_ROWS = 1 << 20;

/** zstd one-shot functions, injected by the runtime (host/core never imports node:*). */
export interface Zstd {
  compress(data: Uint8Array): Uint8Array;
  /** Must accept what `compress` produced (a frame with its content size). */
  decompress(data: Uint8Array): Uint8Array;
}

/** DOUBLE: Float64Array, BIGINT: BigInt64Array, BIGINT UNSIGNED: BigUint64Array, BOOLEAN: Uint8Array (0/1), STRING and tags: string[]. */
export type ColumnValues = Float64Array | BigInt64Array | BigUint64Array | Uint8Array | string[];

export interface DecodedColumn {
  values: ColumnValues;
  /** 1 = present; undefined when every row is present. NULL rows hold 0, false or ''. */
  validity: Uint8Array | undefined;
}

/**
 * A STRING block as its dictionary: row i (present) is dictBytes[dictOffsets[j], dictOffsets[j + 1])
 * for j = index[i]; index holds 0xffffffff for NULL rows.
 */
export interface DecodedUtf8 {
  dictOffsets: Uint32Array;
  dictBytes: Uint8Array;
  index: Uint32Array;
  validity: Uint8Array | undefined;
}

/** Encoding ids (first byte of a block), as in assembly/codecs/ids.ts; append-only. */
export const Encoding = {
  AllNull: 1,
  Nullable: 2,
  Zstd: 3,
  Plain: 4,
  Const: 5,
  DeltaConst: 6,
  DeltaSimple8b: 7,
  DeltaRle: 8,
  DeltaRice: 9,
  DodSimple8b: 10,
  DodRle: 11,
  DodRice: 12,
  Gorilla: 13,
  Decimal: 14,
  Bitpack: 15,
  BoolRle: 16,
  Dict: 17,
} as const;

/** Encoder modes of the Wasm exports (assembly/codecs/ids.ts). */
const Mode = { Auto: 0, Plain: 1, Delta: 2, Dod: 3, Gorilla: 4, Bitpack: 5 } as const;

type Family = 'int' | 'f64' | 'bool' | 'str';

/**
 * CnosDB's codec names per column type (reference/cnosdb-sql.md §1.1), each mapped to an encoder
 * mode. Names CnosDB accepts but Sundial cannot honour exactly take the closest:
 * QUANTILE (q_compress) -> the smallest lossless encoding (DEFAULT); GZIP, BZIP, SNAPPY, ZLIB ->
 * dictionary + zstd (the one general-purpose compressor shipped; smaller than all four).
 */
const CODEC_MODES: Record<Family, Record<string, number>> = {
  int: { DEFAULT: Mode.Auto, NULL: Mode.Plain, DELTA: Mode.Delta, DELTATS: Mode.Dod, QUANTILE: Mode.Auto },
  f64: { DEFAULT: Mode.Auto, NULL: Mode.Plain, GORILLA: Mode.Gorilla, QUANTILE: Mode.Auto },
  bool: { DEFAULT: Mode.Auto, NULL: Mode.Plain, BITPACK: Mode.Bitpack },
  str: {
    DEFAULT: Mode.Auto,
    NULL: Mode.Plain,
    GZIP: Mode.Auto,
    BZIP: Mode.Auto,
    ZSTD: Mode.Auto,
    SNAPPY: Mode.Auto,
    ZLIB: Mode.Auto,
  },
};

/** Every codec name CnosDB knows (the SQL parser accepts exactly these). */
const ALL_CODECS = new Set(Object.values(CODEC_MODES).flatMap((m) => Object.keys(m)));

function family(type: ValueType): Family {
  switch (type) {
    case ValueType.Double:
      return 'f64';
    case ValueType.BigInt:
    case ValueType.Unsigned:
      return 'int';
    case ValueType.Boolean:
      return 'bool';
    case ValueType.String:
    case ValueType.Tag:
      return 'str';
    default:
      throw bug(`no codec family for value type ${type as number}`);
  }
}

/** CnosDB's spelling of each codec name in messages ("Unsupported encoding type Snappy for F64"). */
export const CODEC_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  DEFAULT: 'Default',
  NULL: 'Null',
  DELTA: 'Delta',
  DELTATS: 'DeltaTs',
  QUANTILE: 'Quantile',
  GORILLA: 'Gorilla',
  GZIP: 'Gzip',
  BZIP: 'Bzip',
  ZSTD: 'Zstd',
  SNAPPY: 'Snappy',
  ZLIB: 'Zlib',
  BITPACK: 'BitPack',
};

/**
 * Whether CnosDB accepts CODEC(name) on a column of this type (`'time'` for the time column);
 * CREATE/ALTER TABLE reject the others. Names are upper case.
 */
export function codecAllowed(type: ValueType | 'time', name: string): boolean {
  return Object.hasOwn(CODEC_MODES[type === 'time' ? 'int' : family(type)], name);
}

/** The names codecAllowed accepts for a type, for error messages. */
export function codecsFor(type: ValueType | 'time'): string[] {
  return Object.keys(CODEC_MODES[type === 'time' ? 'int' : family(type)]);
}

/**
 * The encoder mode for a codec name. A CnosDB name not meant for this type (CREATE TABLE
 * rejects it, so only an old catalog could hold one) encodes as DEFAULT rather than failing a
 * write; a name CnosDB does not know at all is a bug.
 */
function modeFor(fam: Family, codec: string): number {
  const mode = CODEC_MODES[fam][codec];
  if (mode !== undefined) return mode;
  if (ALL_CODECS.has(codec)) return Mode.Auto;
  throw bug(`unknown codec ${JSON.stringify(codec)}`);
}

/** Wasm status codes (assembly/codecs/errors.ts) -> the check that failed. */
const CHECKS: Record<number, string> = {
  [-1]: 'output capacity',
  [-2]: 'argument out of range',
  [-3]: 'block truncated',
  [-4]: 'unexpected bytes after the last field',
  [-5]: 'unknown or misplaced encoding id',
  [-6]: 'reserved bits set',
  [-7]: 'field value out of range',
  [-8]: 'value count does not match the row count',
  [-9]: 'non-zero padding bits',
  [-10]: 'malformed varint',
};

interface CodecExports {
  codec_result(): number;
  codec_encode_i64(src: number, n: number, validity: number, mode: number): number;
  codec_encode_f64(src: number, n: number, validity: number, mode: number): number;
  codec_encode_bool(src: number, n: number, validity: number, mode: number): number;
  codec_encode_str(offsets: number, bytes: number, n: number, validity: number, mode: number): number;
  codec_decode_i64(block: number, len: number, n: number): number;
  codec_decode_f64(block: number, len: number, n: number): number;
  codec_decode_bool(block: number, len: number, n: number): number;
  codec_decode_str(block: number, len: number, n: number): number;
}

// Result record words (assembly/README.md, "Codecs").
const R_PTR = 0;
const R_LEN = 1;
const R_VALIDITY = 2;
const R_DICT_COUNT = 3;
const R_DICT_OFFSETS = 4;
const R_DICT_BYTES = 5;
const R_ERROR_OFFSET = 6;

const SOURCE = 'column block';
/** zstd frames are tried only on STRING blocks at least this long (a frame header alone is ~10 bytes). */
const ZSTD_MIN_BYTES = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** The values of the present rows of [0, n). */
function presentValues(values: string[], validity: Uint8Array, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) if (validity[i] !== 0) out.push(values[i]!);
  return out;
}

export class BlockCodecs {
  readonly #core: Core;
  readonly #x: CodecExports;
  readonly #zstd: Zstd;
  /** Host-owned input area in Wasm memory, reused by every call. */
  #inPtr = 0;
  #inCap = 0;

  private constructor(core: Core, zstd: Zstd) {
    this.#core = core;
    this.#x = core.exports as unknown as CodecExports;
    this.#zstd = zstd;
  }

  static create(core: Core, zstd: Zstd): BlockCodecs {
    return new BlockCodecs(core, zstd);
  }

  /** Encodes n timestamps (never NULL); codec is the time column's (DEFAULT: delta-of-delta first). */
  encodeTimestamps(ts: BigInt64Array, n: number, codec = 'DEFAULT'): Uint8Array {
    this.#checkLength(ts.length, n);
    const mode = modeFor('int', codec);
    const src = this.#input(n * 8);
    this.#core.bytes().set(new Uint8Array(ts.buffer, ts.byteOffset, n * 8), src);
    return this.#encoded(this.#x.codec_encode_i64(src, n, 0, mode));
  }

  /** Decodes a block of n timestamps; a block with NULLs is corrupt. */
  decodeTimestamps(block: Uint8Array, n: number): BigInt64Array {
    const { values, validity } = this.decode(ValueType.BigInt, block, n);
    if (validity !== undefined) throw new CorruptionError(SOURCE, 0, 'timestamps have NULL rows');
    return values as BigInt64Array;
  }

  /**
   * Encodes n values of a column of `type` (validity: 1 = present, or undefined when every row
   * is present; values of NULL rows are ignored). `codec` is the column's CnosDB codec name.
   */
  encode(
    type: ValueType,
    values: ColumnValues,
    validity: Uint8Array | undefined,
    n: number,
    codec = 'DEFAULT',
  ): Uint8Array {
    const fam = family(type);
    const mode = modeFor(fam, codec);
    this.#checkLength(values.length, n);
    if (validity !== undefined) this.#checkLength(validity.length, n);
    if (fam === 'str') return this.#encodeStrings(values as string[], validity, n, mode, codec !== 'NULL');
    const width = fam === 'bool' ? 1 : 8;
    const src = this.#input(n * width + n);
    const mem = this.#core.bytes();
    const typed = values as Float64Array | BigInt64Array | BigUint64Array | Uint8Array;
    mem.set(new Uint8Array(typed.buffer, typed.byteOffset, n * width), src);
    let vPtr = 0;
    if (validity !== undefined) {
      vPtr = src + n * width;
      mem.set(validity.subarray(0, n), vPtr);
    }
    const x = this.#x;
    const rc =
      fam === 'int'
        ? x.codec_encode_i64(src, n, vPtr, mode)
        : fam === 'f64'
          ? x.codec_encode_f64(src, n, vPtr, mode)
          : x.codec_encode_bool(src, n, vPtr, mode);
    return this.#encoded(rc);
  }

  /** Decodes a block of n rows of a column of `type`. Throws CorruptionError on bad bytes. */
  decode(type: ValueType, block: Uint8Array, n: number): DecodedColumn {
    const { r, ptr, validity } = this.#decode(family(type), block, n);
    const buf = this.#core.exports.memory.buffer;
    switch (type) {
      case ValueType.Double:
        return { values: new Float64Array(buf.slice(ptr, ptr + n * 8)), validity };
      case ValueType.BigInt:
        return { values: new BigInt64Array(buf.slice(ptr, ptr + n * 8)), validity };
      case ValueType.Unsigned:
        return { values: new BigUint64Array(buf.slice(ptr, ptr + n * 8)), validity };
      case ValueType.Boolean:
        return { values: new Uint8Array(buf.slice(ptr, ptr + n)), validity };
      default:
        return { values: this.#strings(r, ptr, n), validity };
    }
  }

  /**
   * Decodes a STRING block of n rows to its dictionary as UTF-8, without making strings (what a
   * compaction copies into a new block). The dictionary's bytes are not checked to be UTF-8 here:
   * the caller checks them if it must.
   */
  decodeUtf8(block: Uint8Array, n: number): DecodedUtf8 {
    const { r, ptr, validity } = this.#decode('str', block, n);
    const buf = this.#core.exports.memory.buffer;
    const d = r[R_DICT_COUNT]!;
    const dictOffsets = new Uint32Array(buf.slice(r[R_DICT_OFFSETS]!, r[R_DICT_OFFSETS]! + 4 * (d + 1)));
    const at = r[R_DICT_BYTES]!;
    const dictBytes = new Uint8Array(buf.slice(at, at + dictOffsets[d]!));
    return { dictOffsets, dictBytes, index: new Uint32Array(buf.slice(ptr, ptr + 4 * n)), validity };
  }

  /** Runs a decoder: the result record, where the values are, and the validity (copied out). */
  #decode(
    fam: Family,
    block: Uint8Array,
    n: number,
  ): { r: Uint32Array; ptr: number; validity: Uint8Array | undefined } {
    if (!Number.isInteger(n) || n < 0 || n > MAX_BLOCK_ROWS) throw bug(`bad row count ${n}`);
    /** Where the zstd payload starts in the stored block, if it is wrapped (-1 if not). */
    let payloadAt = -1;
    if (block.length > 0 && block[0] === Encoding.Zstd) {
      if (fam !== 'str') throw new CorruptionError(SOURCE, 0, 'zstd wrapper on a non-string column');
      [block, payloadAt] = this.#unwrapZstd(block);
    }
    const src = this.#input(block.length);
    this.#core.bytes().set(block, src);
    const x = this.#x;
    const rc =
      fam === 'int'
        ? x.codec_decode_i64(src, block.length, n)
        : fam === 'f64'
          ? x.codec_decode_f64(src, block.length, n)
          : fam === 'bool'
            ? x.codec_decode_bool(src, block.length, n)
            : x.codec_decode_str(src, block.length, n);
    const r = this.#result();
    if (rc < 0) {
      if (rc === -2) throw bug(`codec decode rejected its arguments (n ${n}, ${block.length} bytes)`);
      const check = CHECKS[rc] ?? `codec status ${rc}`;
      if (payloadAt < 0) throw new CorruptionError(SOURCE, r[R_ERROR_OFFSET]!, check);
      throw new CorruptionError(SOURCE, payloadAt, `${check} at offset ${r[R_ERROR_OFFSET]!} of the zstd payload`);
    }
    const buf = this.#core.exports.memory.buffer;
    const validity = rc === 1 ? new Uint8Array(buf.slice(r[R_VALIDITY]!, r[R_VALIDITY]! + n)) : undefined;
    return { r, ptr: r[R_PTR]!, validity };
  }

  #encodeStrings(
    values: string[],
    validity: Uint8Array | undefined,
    n: number,
    mode: number,
    zstd: boolean,
  ): Uint8Array {
    // UTF-8 bytes of the present values, written straight into Wasm memory after the offsets.
    let maxBytes = 0;
    for (let i = 0; i < n; i++) if (validity === undefined || validity[i] !== 0) maxBytes += values[i]!.length * 3;
    const offsetsBytes = (n + 1) * 4;
    const base = this.#input(offsetsBytes + n + maxBytes);
    const mem = this.#core.bytes();
    const offsets = new Uint32Array(mem.buffer, base, n + 1);
    const vPtr = validity === undefined ? 0 : base + offsetsBytes;
    if (validity !== undefined) mem.set(validity.subarray(0, n), vPtr);
    const bytesPtr = base + offsetsBytes + n;
    let at = 0;
    offsets[0] = 0;
    // All values at once when they are ASCII (the usual): one encodeInto of the joined text, and
    // the offsets from the lengths. A call per value was most of a flush's time for log columns.
    const present =
      validity !== undefined ? presentValues(values, validity, n) : values.length === n ? values : values.slice(0, n);
    const joined = present.join('');
    const written = utf8Encoder.encodeInto(joined, mem.subarray(bytesPtr, bytesPtr + maxBytes)).written;
    if (written === joined.length) {
      for (let i = 0; i < n; i++) {
        if (validity === undefined || validity[i] !== 0) at += values[i]!.length;
        offsets[i + 1] = at;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (validity === undefined || validity[i] !== 0)
          at += utf8Encoder.encodeInto(values[i]!, mem.subarray(bytesPtr + at, bytesPtr + maxBytes)).written;
        offsets[i + 1] = at;
      }
    }
    return this.#wrapStrings(this.#encoded(this.#x.codec_encode_str(base, bytesPtr, n, vPtr, mode)), zstd);
  }

  /**
   * Encodes n STRING values given as UTF-8: value i is bytes[offsets[i], offsets[i + 1]), an
   * absent row (validity 0) empty. The block is the one `encode` makes of the same strings.
   */
  encodeUtf8(
    offsets: Uint32Array,
    bytes: Uint8Array,
    validity: Uint8Array | undefined,
    n: number,
    codec = 'DEFAULT',
  ): Uint8Array {
    const mode = modeFor('str', codec);
    this.#checkLength(offsets.length - 1, n);
    if (validity !== undefined) this.#checkLength(validity.length, n);
    const first = offsets[0]!;
    const size = offsets[n]! - first;
    if (size < 0 || offsets[n]! > bytes.length)
      throw bug(`utf8 values: offsets end at ${offsets[n]}, ${bytes.length} bytes`);
    const offsetsBytes = (n + 1) * 4;
    const base = this.#input(offsetsBytes + n + size);
    const mem = this.#core.bytes();
    const dst = new Uint32Array(mem.buffer, base, n + 1);
    if (first === 0) dst.set(offsets.subarray(0, n + 1));
    else for (let i = 0; i <= n; i++) dst[i] = offsets[i]! - first;
    const vPtr = validity === undefined ? 0 : base + offsetsBytes;
    if (validity !== undefined) mem.set(validity.subarray(0, n), vPtr);
    const bytesPtr = base + offsetsBytes + n;
    mem.set(bytes.subarray(first, first + size), bytesPtr);
    return this.#wrapStrings(this.#encoded(this.#x.codec_encode_str(base, bytesPtr, n, vPtr, mode)), codec !== 'NULL');
  }

  /** A STRING block in a zstd wrapper when that is smaller (and the codec allows it). */
  #wrapStrings(block: Uint8Array, zstd: boolean): Uint8Array {
    if (!zstd || block.length < ZSTD_MIN_BYTES) return block;
    const frame = this.#zstd.compress(block);
    const header = varint(block.length);
    if (1 + header.length + frame.length >= block.length) return block;
    const out = new Uint8Array(1 + header.length + frame.length);
    out[0] = Encoding.Zstd;
    out.set(header, 1);
    out.set(frame, 1 + header.length);
    return out;
  }

  /** Builds the string values from the dictionary form of the result. */
  #strings(r: Uint32Array, ptr: number, n: number): string[] {
    const mem = this.#core.bytes();
    const d = r[R_DICT_COUNT]!;
    const offsets = new Uint32Array(mem.buffer, r[R_DICT_OFFSETS]!, d + 1);
    const bytesAt = r[R_DICT_BYTES]!;
    const dict = new Array<string>(d);
    for (let j = 0; j < d; j++) {
      try {
        dict[j] = utf8.decode(mem.subarray(bytesAt + offsets[j]!, bytesAt + offsets[j + 1]!));
      } catch (cause) {
        throw new CorruptionError(SOURCE, 0, `string ${j} of the dictionary is not valid UTF-8`, { cause });
      }
    }
    const idx = new Uint32Array(mem.buffer, ptr, n);
    const values = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const k = idx[i]!;
      values[i] = k === 0xffffffff ? '' : dict[k]!;
    }
    return values;
  }

  /** The inner block of a ZSTD wrapper (id 3 | raw length varint | one zstd frame) and the frame's offset. */
  #unwrapZstd(block: Uint8Array): [Uint8Array, number] {
    const [rawLength, at] = readVarint(block, 1);
    const frame = block.subarray(at);
    // The frame header must announce exactly rawLength bytes, so a corrupt length can neither
    // make the decompressor allocate without bound nor pass unnoticed.
    const declared = frameContentSize(frame, at);
    if (declared === undefined) throw new CorruptionError(SOURCE, at, 'zstd frame header without a content size');
    if (declared !== rawLength)
      throw new CorruptionError(SOURCE, at, `zstd frame content size ${declared}, block header says ${rawLength}`);
    let inner: Uint8Array;
    try {
      inner = this.#zstd.decompress(frame);
    } catch (cause) {
      throw new CorruptionError(SOURCE, at, 'zstd frame does not decompress', { cause });
    }
    if (inner.length !== rawLength)
      throw new CorruptionError(SOURCE, at, `zstd frame gave ${inner.length} bytes, want ${rawLength}`);
    return [inner, at];
  }

  /** Copies the encoded block out of Wasm memory. */
  #encoded(rc: number): Uint8Array {
    if (rc < 0) throw bug(`codec encode failed with status ${rc} (${CHECKS[rc] ?? '?'})`);
    const r = this.#result();
    return this.#core.bytes().slice(r[R_PTR]!, r[R_PTR]! + r[R_LEN]!);
  }

  #result(): Uint32Array {
    return new Uint32Array(this.#core.exports.memory.buffer, this.#x.codec_result(), 8);
  }

  /** The input area with room for `size` bytes (may grow memory: take views after calling). */
  #input(size: number): number {
    if (size > this.#inCap || this.#inPtr === 0) {
      if (this.#inPtr !== 0) this.#core.exports.free(this.#inPtr);
      const cap = Math.max(64 * 1024, 2 ** Math.ceil(Math.log2(size + 16)));
      this.#inPtr = this.#core.exports.alloc(cap);
      if (this.#inPtr === 0) throw bug(`alloc(${cap}) failed`);
      this.#inCap = cap;
    }
    return this.#inPtr;
  }

  #checkLength(have: number, n: number): void {
    if (!Number.isInteger(n) || n < 0 || n > have || n > MAX_BLOCK_ROWS)
      throw bug(`row count ${n} out of range (array of ${have})`);
  }
}

function varint(v: number): Uint8Array {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A LEB128 varint below 2^48 at `at`: [value, position after it]. */
function readVarint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  let scale = 1;
  for (let i = at; i < b.length && i < at + 7; i++) {
    v += (b[i]! & 0x7f) * scale;
    if (b[i]! < 0x80) return [v, i + 1];
    scale *= 128;
  }
  throw new CorruptionError(SOURCE, at, b.length <= at + 7 ? 'block truncated' : 'malformed varint');
}

/**
 * Frame_Content_Size of a zstd frame header (RFC 8878 §3.1.1.1), or undefined if the frame
 * does not declare it.
 */
function frameContentSize(f: Uint8Array, frameAt: number): number | undefined {
  if (f.length < 6 || f[0] !== 0x28 || f[1] !== 0xb5 || f[2] !== 0x2f || f[3] !== 0xfd) {
    throw new CorruptionError(SOURCE, frameAt, 'not a zstd frame');
  }
  const fhd = f[4]!;
  const fcsFlag = fhd >> 6;
  const singleSegment = (fhd >> 5) & 1;
  const dictFlag = fhd & 3;
  const fcsBytes = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  if (fcsBytes === 0) return undefined;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictFlag]!;
  if (at + fcsBytes > f.length) throw new CorruptionError(SOURCE, frameAt, 'zstd frame header truncated');
  let v = 0;
  for (let i = 0; i < fcsBytes; i++) v += f[at + i]! * 2 ** (8 * i);
  return fcsBytes === 2 ? v + 256 : v;
}
