// Rows of a traces table (columns as host/ingest/otlp-traces.ts writes them) -> the Jaeger UI's
// JSON model (jaeger-query's `/api/traces` reply, which Grafana's Jaeger data source reads), as
// Jaeger's own OTLP translator maps spans: attributes become tags typed as their OTLP values were
// (int64, float64, bool, binary; from the row's `attribute_types`), else strings; the parent and links
// become CHILD_OF and FOLLOWS_FROM references, events become logs with an `event` field, kind and
// status become `span.kind`, `otel.status_code`, `error` and `otel.status_description`; the
// resource becomes the process. Times are microseconds.

import { NANOS_PER, type TimeUnit } from '../../core/precision.js';
import type { ChunkColumn, SeriesChunk } from '../../core/scan.js';
import { SPAN_COLUMNS as C } from '../../ingest/otlp-traces.js';

export interface JaegerKeyValue {
  key: string;
  type: 'string' | 'bool' | 'int64' | 'float64' | 'binary';
  value: string | boolean | number;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }>;
  startTime: number;
  duration: number;
  tags: JaegerKeyValue[];
  logs: Array<{ timestamp: number; fields: JaegerKeyValue[] }>;
  processID: string;
  warnings: null;
  flags: number;
}

export interface JaegerProcess {
  serviceName: string;
  tags: JaegerKeyValue[];
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, JaegerProcess>;
  warnings: null;
}

/** A span read from a row, with its process not yet numbered. */
export interface SpanRow {
  span: JaegerSpan;
  process: JaegerProcess;
}

/** Jaeger's names for the OTLP span kinds. */
export const JAEGER_SPAN_KIND: Record<string, string> = {
  SPAN_KIND_UNSPECIFIED: 'unspecified',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};

const EVENT =
  /^ResourceSpans\/ScopeSpans\/Span\/Event_(\d+)\/(time_unix_nano|name|dropped_attributes_count|attributes\/(.*))$/s;
const LINK =
  /^ResourceSpans\/ScopeSpans\/Span\/Link_(\d+)\/(trace_id|span_id|trace_state|flags|dropped_attributes_count|attributes\/(.*))$/s;

type Slot =
  | { kind: 'resource' | 'scope' | 'span'; key: string }
  | { kind: 'event' | 'link'; index: number; part: string; key?: string };

/** How each field column of a traces table maps into the model; computed once per request. */
export class SpanColumnPlan {
  readonly #slots = new Map<string, Slot>();

  constructor(fields: readonly string[]) {
    for (const name of fields) {
      const slot = classify(name);
      if (slot !== undefined) this.#slots.set(name, slot);
    }
  }

  /** Builds the span of row `i` of `chunk`; `unit` is the database precision. */
  span(chunk: SeriesChunk, i: number, unit: TimeUnit): SpanRow {
    const tag = (name: string): string => chunk.tags.get(name) ?? '';
    const str = (name: string): string | undefined => valueAt(chunk.fields.get(name), i) as string | undefined;
    const num = (name: string): number | undefined => valueAt(chunk.fields.get(name), i) as number | undefined;
    const traceID = tag(C.traceId);
    const startNs = chunk.time[i]! * (NANOS_PER[unit] / NANOS_PER.ns);
    const span: JaegerSpan = {
      traceID,
      spanID: tag(C.spanId),
      operationName: tag(C.name),
      references: [],
      startTime: Number(startNs / 1000n),
      duration: Math.max(0, Math.floor((num(C.duration) ?? 0) / 1000)),
      tags: [],
      logs: [],
      processID: '',
      warnings: null,
      flags: num(C.flags) ?? 0,
    };
    const process: JaegerProcess = { serviceName: tag(C.serviceName), tags: [] };
    const parent = tag(C.parentSpanId);
    if (parent !== '') span.references.push({ refType: 'CHILD_OF', traceID, spanID: parent });
    const types = attributeTypes(str(C.attributeTypes));
    const text = (key: string, column: string, v: string | number | bigint): JaegerKeyValue =>
      typed(key, v, types?.[column]);
    const events = new Map<number, { timestamp: number; fields: JaegerKeyValue[] }>();
    const links = new Map<number, { traceID: string; spanID: string }>();
    for (const [name, column] of chunk.fields) {
      const slot = this.#slots.get(name);
      const v = valueAt(column, i);
      if (slot === undefined || v === undefined) continue;
      if (slot.kind === 'span') span.tags.push(text(slot.key, name, v));
      else if (slot.kind === 'resource') process.tags.push(text(slot.key, name, v));
      else if (slot.kind === 'scope') span.tags.push(text(`otel.scope.${slot.key}`, name, v));
      else if (slot.kind === 'event') {
        let e = events.get(slot.index);
        if (e === undefined) events.set(slot.index, (e = { timestamp: 0, fields: [] }));
        if (slot.part === 'time_unix_nano') e.timestamp = Math.floor(Number(v) / 1000);
        else if (slot.part === 'name') e.fields.unshift(typed('event', v, undefined));
        else if (slot.key !== undefined) e.fields.push(text(slot.key, name, v));
      } else if (slot.kind === 'link') {
        let l = links.get(slot.index);
        if (l === undefined) links.set(slot.index, (l = { traceID: '', spanID: '' }));
        if (slot.part === 'trace_id') l.traceID = String(v);
        else if (slot.part === 'span_id') l.spanID = String(v);
      }
    }
    for (const [, l] of [...links].sort((a, b) => a[0] - b[0])) span.references.push({ refType: 'FOLLOWS_FROM', ...l });
    span.logs = [...events].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
    const kind = JAEGER_SPAN_KIND[str(C.kind) ?? ''];
    if (kind !== undefined && kind !== 'unspecified') span.tags.push({ key: 'span.kind', type: 'string', value: kind });
    const scopeName = tag(C.scopeName);
    const scopeVersion = tag(C.scopeVersion);
    if (scopeName !== '') span.tags.push({ key: 'otel.scope.name', type: 'string', value: scopeName });
    if (scopeVersion !== '') span.tags.push({ key: 'otel.scope.version', type: 'string', value: scopeVersion });
    const status = tag(C.statusCode);
    if (status === 'STATUS_CODE_OK' || status === 'STATUS_CODE_ERROR')
      span.tags.push({ key: 'otel.status_code', type: 'string', value: status.slice('STATUS_CODE_'.length) });
    if (status === 'STATUS_CODE_ERROR') span.tags.push({ key: 'error', type: 'bool', value: true });
    const message = str(C.statusMessage);
    if (message !== undefined && message !== '')
      span.tags.push({ key: 'otel.status_description', type: 'string', value: message });
    const traceState = tag(C.traceState);
    if (traceState !== '') span.tags.push({ key: 'w3c.tracestate', type: 'string', value: traceState });
    return { span, process };
  }
}

function classify(name: string): Slot | undefined {
  if (name.startsWith(C.spanAttributes)) return { kind: 'span', key: name.slice(C.spanAttributes.length) };
  if (name.startsWith(C.resourceAttributes)) return { kind: 'resource', key: name.slice(C.resourceAttributes.length) };
  if (name.startsWith(C.scopeAttributes)) return { kind: 'scope', key: name.slice(C.scopeAttributes.length) };
  const e = EVENT.exec(name);
  if (e !== null)
    return { kind: 'event', index: Number(e[1]), part: e[3] !== undefined ? 'attribute' : e[2]!, key: e[3] };
  const l = LINK.exec(name);
  if (l !== null)
    return { kind: 'link', index: Number(l[1]), part: l[3] !== undefined ? 'attribute' : l[2]!, key: l[3] };
  return undefined;
}

function valueAt(column: ChunkColumn | undefined, i: number): string | number | bigint | undefined {
  if (column === undefined || (column.validity !== undefined && column.validity[i] === 0)) return undefined;
  return column.values[i];
}

/** The `attribute_types` column of a row (otlp-traces.ts); undefined for rows written before it, or unreadable. */
function attributeTypes(json: string | undefined): Record<string, string> | undefined {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as Record<string, string>;
  } catch {
    return undefined;
  }
}

/**
 * A tag as Jaeger types it: int64 and float64 values as JSON numbers, bool as a boolean, binary as
 * base64 (as stored); a value whose type is unknown (rows from before `attribute_types`), or that
 * does not read as its type, is a string.
 */
function typed(key: string, v: string | number | bigint, type: string | undefined): JaegerKeyValue {
  const s = String(v);
  if (type === 'int64' || type === 'float64') {
    const n = Number(s);
    if (s !== '' && (Number.isFinite(n) || type === 'float64')) return { key, type, value: n };
  } else if (type === 'bool' && (s === 'true' || s === 'false')) return { key, type, value: s === 'true' };
  else if (type === 'binary') return { key, type: 'binary', value: s };
  return { key, type: 'string', value: s };
}

/**
 * Groups spans into traces: spans sorted by start time (then span id), processes numbered p1,
 * p2... per distinct process within each trace.
 */
export function assembleTraces(rows: readonly SpanRow[]): JaegerTrace[] {
  const byTrace = new Map<string, SpanRow[]>();
  for (const r of rows) {
    let list = byTrace.get(r.span.traceID);
    if (list === undefined) byTrace.set(r.span.traceID, (list = []));
    list.push(r);
  }
  const traces: JaegerTrace[] = [];
  for (const [traceID, list] of byTrace) {
    list.sort(
      (a, b) =>
        a.span.startTime - b.span.startTime ||
        (a.span.spanID < b.span.spanID ? -1 : a.span.spanID > b.span.spanID ? 1 : 0),
    );
    const processes: Record<string, JaegerProcess> = {};
    const ids = new Map<string, string>();
    for (const r of list) {
      const key = JSON.stringify(r.process);
      let id = ids.get(key);
      if (id === undefined) {
        id = `p${ids.size + 1}`;
        ids.set(key, id);
        processes[id] = r.process;
      }
      r.span.processID = id;
    }
    traces.push({ traceID, spans: list.map((r) => r.span), processes, warnings: null });
  }
  return traces;
}
