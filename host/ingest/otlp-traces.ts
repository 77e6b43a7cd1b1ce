// OTLP ExportTraceServiceRequest (protobuf, or OTLP/JSON) -> one row per span, with CnosDB's
// column names (reference/cnosdb-http.md §7, from CnosDB's protocol_parser json_protocol):
// `/`-joined paths such as `ResourceSpans/ScopeSpans/Span/name`; the span's start time is the row
// time; service name, scope name and version, trace, span and parent ids, trace state, span name
// and status code are tags (ids lowercase hex, a root span's parent the empty string, enums by
// their OTLP names); counts, flags, end time and duration are DOUBLE fields, everything else
// STRING. Two departures: attribute values are stored as readable text (a string as itself, a
// number or boolean as its literal, arrays and maps as JSON, bytes as base64) where CnosDB stores
// their protobuf encoding as decimal bytes; and every span gets only its own columns (CnosDB
// reuses one map per ResourceSpans, so a span inherits the previous span's attributes).

import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { ValueType } from '../core/write-batch.js';
import { otlpTypes } from './otlp-proto.js';
import { decodeMessage, int64Difference, int64ToBigInt, int64ToNumber, type Int64 } from './protobuf-values.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';
import { locate } from './parse-errors.js';

/** Column names CnosDB's Jaeger reader (and ours) relies on. */
export const SPAN_COLUMNS = {
  serviceName: 'ResourceSpans/Resource/attributes/service.name',
  scopeName: 'ResourceSpans/ScopeSpans/InstrumentationScope/name',
  scopeVersion: 'ResourceSpans/ScopeSpans/InstrumentationScope/version',
  traceId: 'ResourceSpans/ScopeSpans/Span/trace_id',
  spanId: 'ResourceSpans/ScopeSpans/Span/span_id',
  parentSpanId: 'ResourceSpans/ScopeSpans/Span/parent_span_id',
  traceState: 'ResourceSpans/ScopeSpans/Span/trace_state',
  name: 'ResourceSpans/ScopeSpans/Span/name',
  statusCode: 'ResourceSpans/ScopeSpans/Span/Status/code',
  statusMessage: 'ResourceSpans/ScopeSpans/Span/Status/message',
  kind: 'ResourceSpans/ScopeSpans/Span/kind',
  flags: 'ResourceSpans/ScopeSpans/Span/flags',
  endTime: 'ResourceSpans/ScopeSpans/Span/end_time_unix_nano',
  duration: 'ResourceSpans/ScopeSpans/Span/duration_nano',
  droppedAttributes: 'ResourceSpans/ScopeSpans/Span/dropped_attributes_count',
  droppedEvents: 'ResourceSpans/ScopeSpans/Span/dropped_events_count',
  droppedLinks: 'ResourceSpans/ScopeSpans/Span/dropped_links_count',
  resourceAttributes: 'ResourceSpans/Resource/attributes/',
  resourceDropped: 'ResourceSpans/Resource/dropped_attributes_count',
  resourceSchemaUrl: 'ResourceSpans/schema_url',
  scopeSchemaUrl: 'ResourceSpans/ScopeSpans/schema_url',
  scopeAttributes: 'ResourceSpans/ScopeSpans/InstrumentationScope/attributes/',
  scopeDropped: 'ResourceSpans/ScopeSpans/InstrumentationScope/dropped_attributes_count',
  spanAttributes: 'ResourceSpans/ScopeSpans/Span/attributes/',
  event: 'ResourceSpans/ScopeSpans/Span/Event_',
  link: 'ResourceSpans/ScopeSpans/Span/Link_',
} as const;

// The decoded message shapes (protobufjs, lowerCamelCase; only what is read here).
interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: { values: AnyValue[] } | null;
  kvlistValue?: { values: KeyValue[] } | null;
  bytesValue?: Uint8Array | null;
  value?: string;
}
interface KeyValue {
  key: string;
  value: AnyValue | null;
}
interface Attributed {
  attributes: KeyValue[];
  droppedAttributesCount: number;
}
interface Span extends Attributed {
  traceId: Uint8Array;
  spanId: Uint8Array;
  traceState: string;
  parentSpanId: Uint8Array;
  flags: number;
  name: string;
  kind: number;
  startTimeUnixNano: Int64;
  endTimeUnixNano: Int64;
  events: Array<Attributed & { timeUnixNano: Int64; name: string }>;
  droppedEventsCount: number;
  links: Array<Attributed & { traceId: Uint8Array; spanId: Uint8Array; traceState: string; flags: number }>;
  droppedLinksCount: number;
  status: { message: string; code: number } | null;
}
interface ExportRequest {
  resourceSpans: Array<{
    resource: Attributed | null;
    schemaUrl: string;
    scopeSpans: Array<{ scope: (Attributed & { name: string; version: string }) | null; schemaUrl: string; spans: Span[] }>;
  }>;
}

export interface TraceOptions {
  table: string;
  dbUnit: TimeUnit;
}

/** Decodes a protobuf ExportTraceServiceRequest. Throws UserError('protobuf') when malformed. */
export function decodeOtlpProtobuf(body: Uint8Array): unknown {
  return decodeMessage(otlpTypes().ExportTraceServiceRequest, body, 'an OTLP ExportTraceServiceRequest', true);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest (ids as hex, enums as numbers or names, 64-bit
 * integers as strings or numbers). Throws UserError('protobuf') when it is not one.
 */
export function decodeOtlpJson(body: Uint8Array): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(utf8.decode(body));
  } catch (e) {
    throw new UserError('protobuf', `the body is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UserError('protobuf', 'an OTLP/JSON body is one ExportTraceServiceRequest object');
  // OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping (and protobufjs)
  // would read base64: convert them to bytes first.
  const hexIds = (o: Record<string, unknown>, where: string, keys: readonly string[]): void => {
    for (const k of keys) {
      const v = o[k];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || !HEX.test(v)) throw new UserError('protobuf', `${where}.${k} must be a hex string, found ${JSON.stringify(v)?.slice(0, 60)}`);
      o[k] = Buffer.from(v, 'hex');
    }
  };
  const list = (o: unknown, k: string): Array<Record<string, unknown>> => {
    const v = (o as Record<string, unknown>)[k];
    return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Array<Record<string, unknown>>) : [];
  };
  list(doc, 'resourceSpans').forEach((rs, r) =>
    list(rs, 'scopeSpans').forEach((ss, s) =>
      list(ss, 'spans').forEach((span, i) => {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        hexIds(span, where, ['traceId', 'spanId', 'parentSpanId']);
        list(span, 'links').forEach((link, l) => hexIds(link, `${where}.links[${l}]`, ['traceId', 'spanId']));
      }),
    ),
  );
  try {
    return otlpTypes().ExportTraceServiceRequest.fromObject(doc);
  } catch (e) {
    throw new UserError('protobuf', `the body is not an OTLP/JSON ExportTraceServiceRequest: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Fields of the row being built, from a pool of FieldInput objects reused row after row (the
 * batch builder copies what it keeps), with attribute column names built once per prefix and key.
 */
class SpanFields {
  readonly #list: FieldInput[] = [];
  /** Fields of the row so far: `#list` is overwritten, never emptied (`length = 0` drops its storage). */
  #count = 0;
  readonly #pool: FieldInput[] = [];
  readonly #names = new Map<string, Map<string, string>>();

  reset(): void {
    this.#count = 0;
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
}

/** Turns a decoded ExportTraceServiceRequest into write batches, one row per span. */
export function otlpTracesToBatches(request: unknown, options: TraceOptions): { batches: Uint8Array[]; spans: number } {
  const req = request as ExportRequest;
  const { spanKindNames, statusCodeNames } = otlpTypes();
  const toDb = new TimestampConverter('ns', options.dbUnit);
  // Without series keys: a span's span id is among its tags, so its series is never written again
  // and the memtable never looks it up by key (FORMAT.md §1, version 2).
  const out = new RowBatcher({ seriesKeys: false });
  const C = SPAN_COLUMNS;
  const f = new SpanFields();
  // The tag pairs of the row, reused span after span (the builder copies the values it keeps):
  // nine arrays a span were the loop's largest allocation.
  const pairs = {
    serviceName: [C.serviceName, ''] as [string, string],
    scopeName: [C.scopeName, ''] as [string, string],
    scopeVersion: [C.scopeVersion, ''] as [string, string],
    statusCode: [C.statusCode, ''] as [string, string],
    name: [C.name, ''] as [string, string],
    parentSpanId: [C.parentSpanId, ''] as [string, string],
    spanId: [C.spanId, ''] as [string, string],
    traceId: [C.traceId, ''] as [string, string],
    traceState: [C.traceState, ''] as [string, string],
  };
  const tags: Array<[string, string]> = [];
  let spans = 0;
  req.resourceSpans.forEach((rs, r) => {
    // What every span of the resource and scope shares, read once.
    let serviceName: string | undefined;
    const resourceAttributes: KeyValue[] = [];
    if (rs.resource !== null) {
      for (const kv of rs.resource.attributes) {
        if (kv.key === 'service.name') serviceName = anyValueText(kv.value);
        else resourceAttributes.push(kv);
      }
    }
    rs.scopeSpans.forEach((ss, s) => {
      ss.spans.forEach((span, i) => {
        try {
          // In byte order of the names, so that the builder's sort has nothing to do.
          // Overwritten in place (see SpanFields on `length = 0`).
          let n = 0;
          if (serviceName !== undefined) tags[n++] = tag(pairs.serviceName, serviceName);
          if (ss.scope !== null) {
            tags[n++] = tag(pairs.scopeName, ss.scope.name);
            tags[n++] = tag(pairs.scopeVersion, ss.scope.version);
          }
          tags[n++] = tag(pairs.statusCode, statusCodeNames[span.status?.code ?? 0] ?? 'STATUS_CODE_UNSET');
          tags[n++] = tag(pairs.name, span.name);
          tags[n++] = tag(pairs.parentSpanId, hex(span.parentSpanId));
          tags[n++] = tag(pairs.spanId, hex(span.spanId));
          tags[n++] = tag(pairs.traceId, hex(span.traceId));
          tags[n++] = tag(pairs.traceState, span.traceState);
          if (tags.length !== n) tags.length = n;
          const start = int64ToBigInt(span.startTimeUnixNano);
          f.reset();
          f.str(C.resourceSchemaUrl, rs.schemaUrl);
          if (rs.resource !== null) {
            f.attributes(C.resourceAttributes, resourceAttributes);
            f.num(C.resourceDropped, rs.resource.droppedAttributesCount);
          }
          f.str(C.scopeSchemaUrl, ss.schemaUrl);
          if (ss.scope !== null) {
            f.attributes(C.scopeAttributes, ss.scope.attributes);
            f.num(C.scopeDropped, ss.scope.droppedAttributesCount);
          }
          f.num(C.flags, span.flags);
          f.str(C.kind, spanKindNames[span.kind] ?? 'SPAN_KIND_UNSPECIFIED');
          f.num(C.endTime, int64ToNumber(span.endTimeUnixNano));
          f.attributes(C.spanAttributes, span.attributes);
          f.num(C.droppedAttributes, span.droppedAttributesCount);
          span.events.forEach((ev, e) => {
            const p = f.name(C.event, `${e}/`);
            f.num(f.name(p, 'time_unix_nano'), int64ToNumber(ev.timeUnixNano));
            f.str(f.name(p, 'name'), ev.name);
            f.attributes(f.name(p, 'attributes/'), ev.attributes);
            f.num(f.name(p, 'dropped_attributes_count'), ev.droppedAttributesCount);
          });
          f.num(C.droppedEvents, span.droppedEventsCount);
          span.links.forEach((link, l) => {
            const p = f.name(C.link, `${l}/`);
            f.str(f.name(p, 'trace_id'), hex(link.traceId));
            f.str(f.name(p, 'span_id'), hex(link.spanId));
            f.str(f.name(p, 'trace_state'), link.traceState);
            f.attributes(f.name(p, 'attributes/'), link.attributes);
            f.num(f.name(p, 'dropped_attributes_count'), link.droppedAttributesCount);
            f.num(f.name(p, 'flags'), link.flags);
          });
          f.num(C.droppedLinks, span.droppedLinksCount);
          f.str(C.statusMessage, span.status?.message ?? '');
          f.num(C.duration, int64Difference(span.endTimeUnixNano, span.startTimeUnixNano));
          out.add(options.table, tags, toDb.convert(start), f.list);
          spans++;
        } catch (e) {
          throw locate(e, `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`, 'protobuf');
        }
      });
    });
  });
  return { batches: out.finish(), spans };
}

/** Sets the value of a reused tag pair. */
function tag(pair: [string, string], value: string): [string, string] {
  pair[1] = value;
  return pair;
}

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

/** An attribute value as text (see the header comment). */
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
  if (depth === MAX_VALUE_DEPTH) throw new UserError('protobuf', `an attribute value is nested deeper than ${MAX_VALUE_DEPTH} levels`);
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
