// What the three OTLP signals share: attribute values (AnyValue) as text, ids as lowercase hex,
// and the OTLP/JSON body read into protobufjs messages. OTLP/JSON differs from protobuf's JSON
// mapping in one way that matters here: trace and span ids are hex, not base64, so they are
// turned into bytes at the paths each signal declares before protobufjs reads the document.
// Node only where `Buffer` is used (hex, bytes values), as every caller is.

import type protobuf from 'protobufjs';
import { UserError } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';
import { int64ToBigInt, type Int64 } from './protobuf-values.js';
import type { FieldInput } from './row-batcher.js';

// The decoded message shapes (protobufjs, lowerCamelCase; only what is read).
export interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: { values: AnyValue[] } | null;
  kvlistValue?: { values: KeyValue[] } | null;
  bytesValue?: Uint8Array | null;
  value?: string;
}
export interface KeyValue {
  key: string;
  value: AnyValue | null;
}
export interface Attributed {
  attributes: KeyValue[];
  droppedAttributesCount: number;
}
export interface Scope extends Attributed {
  name: string;
  version: string;
}

/** The tags metrics and log records take from their instrumentation scope. */
export const SCOPE_TAGS = { name: 'otel.scope.name', version: 'otel.scope.version' } as const;

/** Attributes as tag pairs, values as text (a resource's, a point's). */
export function attributeTags(attributes: readonly KeyValue[] | undefined): Array<[string, string]> {
  return (attributes ?? []).map((kv) => [kv.key, anyValueText(kv.value)]);
}

/** A scope as tags: `otel.scope.name` and `otel.scope.version` when set, then its attributes. */
export function scopeTags(scope: Scope | null): Array<[string, string]> {
  if (scope === null) return [];
  const tags: Array<[string, string]> = [];
  if (scope.name !== '') tags.push([SCOPE_TAGS.name, scope.name]);
  if (scope.version !== '') tags.push([SCOPE_TAGS.version, scope.version]);
  return tags.concat(attributeTags(scope.attributes));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * A path to the messages that carry hex ids: list fields to descend through (a step may name
 * several alternatives, `a|b`, for a oneof whose members each hold the list), then the id keys.
 */
export interface HexIdPath {
  lists: readonly string[];
  keys: readonly string[];
}

/**
 * Decodes an OTLP/JSON request body as `type` (ids as hex at `ids`, enums as numbers or names,
 * 64-bit integers as strings or numbers). Throws UserError('protobuf') when it is not one.
 */
export function decodeOtlpJsonAs(type: protobuf.Type, body: Uint8Array, ids: readonly HexIdPath[]): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(utf8.decode(body));
  } catch (e) {
    throw new UserError('protobuf', `the body is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new UserError('protobuf', `an OTLP/JSON body is one ${type.name} object`);
  for (const path of ids) hexIdsAt(doc as Record<string, unknown>, path, 0, '');
  try {
    return type.fromObject(doc);
  } catch (e) {
    throw new UserError('protobuf', `the body is not an OTLP/JSON ${type.name}: ${(e as Error).message}`, { cause: e });
  }
}

function hexIdsAt(o: Record<string, unknown>, path: HexIdPath, depth: number, where: string): void {
  if (depth === path.lists.length) {
    for (const k of path.keys) {
      const v = o[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || !HEX.test(v))
        throw new UserError('protobuf', `${where}.${k} must be a hex string, found ${JSON.stringify(v)?.slice(0, 60)}`);
      o[k] = Buffer.from(v, 'hex');
    }
    return;
  }
  for (const step of path.lists[depth]!.split('|')) {
    const v = o[step];
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        if (typeof x === 'object' && x !== null)
          hexIdsAt(x as Record<string, unknown>, path, depth + 1, `${where}${where === '' ? '' : '.'}${step}[${i}]`);
      });
    } else if (typeof v === 'object' && v !== null) {
      // A message on the way (a metric's `sum`), not a list.
      hexIdsAt(v as Record<string, unknown>, path, depth + 1, `${where}.${step}`);
    }
  }
}

/**
 * Jaeger's tag types of the AnyValue kinds that are not strings (Jaeger's OTLP translator: int
 * -> int64, double -> float64, bool -> bool, bytes -> binary; arrays and maps are JSON strings).
 */
export const JAEGER_TYPES: Readonly<Record<string, 'int64' | 'float64' | 'bool' | 'binary'>> = {
  intValue: 'int64',
  doubleValue: 'float64',
  boolValue: 'bool',
  bytesValue: 'binary',
};

const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** Lowercase hex of an id (empty for a missing one). */
export function hex(bytes: Uint8Array | null | undefined): string {
  if (bytes === null || bytes === undefined) return '';
  // protobufjs hands out Buffers under Node: their native hex is several times faster.
  if (typeof Buffer !== 'undefined' && bytes instanceof Buffer) return bytes.toString('hex');
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += HEX_BYTE[bytes[i]!];
  return s;
}

/**
 * An attribute value as readable text: a string as itself, a number or boolean as its literal,
 * arrays and maps as JSON, bytes as base64; a missing value is the empty string.
 */
export function anyValueText(v: AnyValue | null | undefined): string {
  if (v === null || v === undefined) return '';
  switch (v.value) {
    case 'stringValue':
      return v.stringValue ?? '';
    case 'boolValue':
      return v.boolValue ? 'true' : 'false';
    case 'intValue':
      return int64ToBigInt(v.intValue).toString();
    case 'doubleValue':
      return String(v.doubleValue);
    case 'bytesValue':
      return Buffer.from(v.bytesValue ?? new Uint8Array(0)).toString('base64');
    case 'arrayValue':
    case 'kvlistValue':
      return anyValueJson(v, 0);
    default:
      return '';
  }
}

/** Nesting levels of arrays and maps in one attribute value. */
const MAX_VALUE_DEPTH = 64;

/** An attribute value as JSON text, for the elements of arrays and maps. */
function anyValueJson(v: AnyValue | null | undefined, depth: number): string {
  if (v === null || v === undefined) return 'null';
  if (depth === MAX_VALUE_DEPTH)
    throw new UserError('protobuf', `an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
  switch (v.value) {
    case 'stringValue':
      return JSON.stringify(v.stringValue ?? '');
    case 'boolValue':
    case 'intValue':
      return anyValueText(v);
    case 'doubleValue':
      return Number.isFinite(v.doubleValue) ? String(v.doubleValue) : JSON.stringify(String(v.doubleValue));
    case 'bytesValue':
      return JSON.stringify(anyValueText(v));
    case 'arrayValue':
      return `[${(v.arrayValue?.values ?? []).map((e) => anyValueJson(e, depth + 1)).join(',')}]`;
    case 'kvlistValue':
      return `{${(v.kvlistValue?.values ?? []).map((kv) => `${JSON.stringify(kv.key)}:${anyValueJson(kv.value, depth + 1)}`).join(',')}}`;
    default:
      return 'null';
  }
}

/**
 * Fields of the row being built (a span, a log record, a data point), from a pool of FieldInput
 * objects reused row after row (the batch builder copies what it keeps), with attribute column
 * names built once per prefix and key.
 */
export class RowFields {
  readonly #list: FieldInput[] = [];
  /** Fields of the row so far: `#list` is overwritten, never emptied (`length = 0` drops its storage). */
  #count = 0;
  readonly #pool: FieldInput[] = [];
  readonly #names = new Map<string, Map<string, string>>();
  /** `"column":"type"` pairs of the typed attributes added since the reset (typedAttributes). */
  #types = '';
  readonly #typeParts = new Map<string, Map<string, string>>();

  reset(): void {
    this.#count = 0;
    this.#types = '';
  }

  /** The typed attributes' JSON object (column name -> Jaeger type), or undefined when none. */
  get types(): string | undefined {
    return this.#types === '' ? undefined : `{${this.#types}}`;
  }

  /** The row's fields; valid until the next reset. */
  get list(): FieldInput[] {
    if (this.#list.length !== this.#count) this.#list.length = this.#count;
    return this.#list;
  }

  add(name: string, type: FieldInput['type'], value: FieldInput['value']): void {
    const n = this.#count++;
    let f = this.#pool[n];
    if (f === undefined) this.#pool.push((f = { name, type, value }));
    else {
      f.name = name;
      f.type = type;
      f.value = value;
    }
    this.#list[n] = f;
  }

  str(name: string, value: string): void {
    this.add(name, ValueType.String, value);
  }

  num(name: string, value: number): void {
    this.add(name, ValueType.Double, value);
  }

  /** `prefix + key`, the same string object for the same pair. */
  name(prefix: string, key: string): string {
    let m = this.#names.get(prefix);
    if (m === undefined) this.#names.set(prefix, (m = new Map()));
    let n = m.get(key);
    if (n === undefined) m.set(key, (n = prefix + key));
    return n;
  }

  attributes(prefix: string, attributes: readonly KeyValue[]): void {
    for (const kv of attributes) this.str(this.name(prefix, kv.key), anyValueText(kv.value));
  }

  /** As attributes(), also noting the type of each one that is not a string (`types`). */
  typedAttributes(prefix: string, attributes: readonly KeyValue[]): void {
    for (const kv of attributes) {
      const name = this.name(prefix, kv.key);
      this.str(name, anyValueText(kv.value));
      const type = JAEGER_TYPES[kv.value?.value ?? ''];
      if (type === undefined) continue;
      // `"column":"type"`, made once per column and type.
      let parts = this.#typeParts.get(type);
      if (parts === undefined) this.#typeParts.set(type, (parts = new Map()));
      let part = parts.get(name);
      if (part === undefined) parts.set(name, (part = `${JSON.stringify(name)}:"${type}"`));
      this.#types = this.#types === '' ? part : `${this.#types},${part}`;
    }
  }
}
