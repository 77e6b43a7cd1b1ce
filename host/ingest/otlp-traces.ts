// OTLP ExportTraceServiceRequest (protobuf, or OTLP/JSON) -> one row per span, with CnosDB's
// column names (reference/cnosdb-http.md §7, from CnosDB's protocol_parser json_protocol):
// `/`-joined paths such as `ResourceSpans/ScopeSpans/Span/name`; the span's start time is the row
// time; service name, scope name and version, trace, span and parent ids, trace state, span name
// and status code are tags (ids lowercase hex, a root span's parent the empty string, enums by
// their OTLP names); counts, flags, end time and duration are DOUBLE fields, everything else
// STRING. Two departures: attribute values are stored as readable text (a string as itself, a
// number or boolean as its literal, arrays and maps as JSON, bytes as base64) where CnosDB stores
// their protobuf encoding as decimal bytes, so the types of the attributes that are not strings go
// in one more column, `attribute_types` (JSON, column -> Jaeger type), for the Jaeger API; and
// every span gets only its own columns (CnosDB reuses one map per ResourceSpans, so a span
// inherits the previous span's attributes).

import type { TimeUnit } from '../core/precision.js';
import { otlpTypes } from './otlp-proto.js';
import { anyValueText, decodeOtlpJsonAs, hex, RowFields, type Attributed, type KeyValue } from './otlp-values.js';
import { decodeMessage, int64Difference, int64ToBigInt, int64ToNumber, type Int64 } from './protobuf-values.js';
import { RowBatcher } from './row-batcher.js';
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
  /** JSON: each non-string attribute's column and its Jaeger type (Sundial's; absent when none). */
  attributeTypes: 'ResourceSpans/ScopeSpans/Span/attribute_types',
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
    scopeSpans: Array<{
      scope: (Attributed & { name: string; version: string }) | null;
      schemaUrl: string;
      spans: Span[];
    }>;
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

/** The span and link ids OTLP/JSON writes as hex. */
const SPAN_IDS = [
  { lists: ['resourceSpans', 'scopeSpans', 'spans'], keys: ['traceId', 'spanId', 'parentSpanId'] },
  { lists: ['resourceSpans', 'scopeSpans', 'spans', 'links'], keys: ['traceId', 'spanId'] },
] as const;

/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest (ids as hex, enums as numbers or names, 64-bit
 * integers as strings or numbers). Throws UserError('protobuf') when it is not one.
 */
export function decodeOtlpJson(body: Uint8Array): unknown {
  return decodeOtlpJsonAs(otlpTypes().ExportTraceServiceRequest, body, SPAN_IDS);
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
  const f = new RowFields();
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
          // Overwritten in place (see RowFields on `length = 0`).
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
            f.typedAttributes(C.resourceAttributes, resourceAttributes);
            f.num(C.resourceDropped, rs.resource.droppedAttributesCount);
          }
          f.str(C.scopeSchemaUrl, ss.schemaUrl);
          if (ss.scope !== null) {
            f.typedAttributes(C.scopeAttributes, ss.scope.attributes);
            f.num(C.scopeDropped, ss.scope.droppedAttributesCount);
          }
          f.num(C.flags, span.flags);
          f.str(C.kind, spanKindNames[span.kind] ?? 'SPAN_KIND_UNSPECIFIED');
          f.num(C.endTime, int64ToNumber(span.endTimeUnixNano));
          f.typedAttributes(C.spanAttributes, span.attributes);
          f.num(C.droppedAttributes, span.droppedAttributesCount);
          span.events.forEach((ev, e) => {
            const p = f.name(C.event, `${e}/`);
            f.num(f.name(p, 'time_unix_nano'), int64ToNumber(ev.timeUnixNano));
            f.str(f.name(p, 'name'), ev.name);
            f.typedAttributes(f.name(p, 'attributes/'), ev.attributes);
            f.num(f.name(p, 'dropped_attributes_count'), ev.droppedAttributesCount);
          });
          f.num(C.droppedEvents, span.droppedEventsCount);
          span.links.forEach((link, l) => {
            const p = f.name(C.link, `${l}/`);
            f.str(f.name(p, 'trace_id'), hex(link.traceId));
            f.str(f.name(p, 'span_id'), hex(link.spanId));
            f.str(f.name(p, 'trace_state'), link.traceState);
            f.typedAttributes(f.name(p, 'attributes/'), link.attributes);
            f.num(f.name(p, 'dropped_attributes_count'), link.droppedAttributesCount);
            f.num(f.name(p, 'flags'), link.flags);
          });
          f.num(C.droppedLinks, span.droppedLinksCount);
          f.str(C.statusMessage, span.status?.message ?? '');
          f.num(C.duration, int64Difference(span.endTimeUnixNano, span.startTimeUnixNano));
          const types = f.types;
          if (types !== undefined) f.str(C.attributeTypes, types);
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
