// Prometheus remote write and read (protocol 1.0, prompb) -> rows and back, mapped as CnosDB maps
// them: table = the `__name__` label (`prom_metric_not_specified` without one), every label a
// tag (`__name__` included), one DOUBLE field `value`, millisecond timestamps converted to the
// database precision. Labels with an empty value are dropped (Prometheus treats an empty label as
// absent). The messages are prompb's remote.proto and types.proto, fields and numbers verbatim,
// without the gogoproto options; exemplars, native histograms and metadata are not stored.
// The snappy framing is the route's business. Runtime-agnostic.

import protobuf from 'protobufjs';
import { RE2JS } from 're2js';
import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { ValueType } from '../core/write-batch.js';
import { locate } from './parse-errors.js';
import { decodeMessage, int64ToBigInt, type Int64 } from './protobuf-values.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';

const PROMPB = `
syntax = "proto3";
package prometheus;
message WriteRequest { repeated TimeSeries timeseries = 1; reserved 2; repeated MetricMetadata metadata = 3; }
message MetricMetadata { int32 type = 1; string metric_family_name = 2; string help = 4; string unit = 5; }
message ReadRequest {
  repeated Query queries = 1;
  enum ResponseType { SAMPLES = 0; STREAMED_XOR_CHUNKS = 1; }
  repeated ResponseType accepted_response_types = 2;
}
message ReadResponse { repeated QueryResult results = 1; }
message Query { int64 start_timestamp_ms = 1; int64 end_timestamp_ms = 2; repeated LabelMatcher matchers = 3; ReadHints hints = 4; }
message QueryResult { repeated TimeSeries timeseries = 1; }
message Sample { double value = 1; int64 timestamp = 2; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; }
message Label { string name = 1; string value = 2; }
message LabelMatcher { enum Type { EQ = 0; NEQ = 1; RE = 2; NRE = 3; } Type type = 1; string name = 2; string value = 3; }
message ReadHints { int64 step_ms = 1; string func = 2; int64 start_ms = 3; int64 end_ms = 4; }
`;

const root = protobuf.parse(PROMPB, { keepCase: true }).root;
export const PROM_TYPES = {
  WriteRequest: root.lookupType('prometheus.WriteRequest'),
  ReadRequest: root.lookupType('prometheus.ReadRequest'),
  ReadResponse: root.lookupType('prometheus.ReadResponse'),
};

export const PROM_NAME_LABEL = '__name__';
/** CnosDB's table for series without a `__name__`. */
export const PROM_DEFAULT_TABLE = 'prom_metric_not_specified';
export const PROM_VALUE_FIELD = 'value';

interface Label {
  name: string;
  value: string;
}
interface WriteRequest {
  timeseries: Array<{ labels: Label[]; samples: Array<{ value: number; timestamp: Int64 }> }>;
}

/** Parses a (snappy-decoded) WriteRequest into write batches. */
export function parsePromWrite(message: Uint8Array, dbUnit: TimeUnit): { batches: Uint8Array[]; samples: number } {
  const req = decodeMessage<WriteRequest>(PROM_TYPES.WriteRequest, message, 'a Prometheus WriteRequest', true);
  const toDb = new TimestampConverter('ms', dbUnit);
  const out = new RowBatcher();
  const field: FieldInput = { name: PROM_VALUE_FIELD, type: ValueType.Double, value: 0 };
  const fields = [field];
  let samples = 0;
  req.timeseries.forEach((ts, i) => {
    let table = PROM_DEFAULT_TABLE;
    const tags: Array<[string, string]> = [];
    for (const l of ts.labels) {
      if (l.value === '') continue;
      if (l.name === PROM_NAME_LABEL) table = l.value;
      tags.push([l.name, l.value]);
    }
    const hint = String(i);
    try {
      for (const s of ts.samples) {
        field.value = s.value;
        // The series' index in the request names its labels exactly: the builder's series key.
        out.add(table, tags, toDb.convert(int64ToBigInt(s.timestamp)), fields, hint);
        samples++;
      }
    } catch (e) {
      throw locate(e, `timeseries[${i}]`, 'protobuf');
    }
  });
  return { batches: out.finish(), samples };
}

export type MatcherType = 'EQ' | 'NEQ' | 'RE' | 'NRE';

export interface PromMatcher {
  type: MatcherType;
  name: string;
  value: string;
  /** For RE/NRE: the expression, matched against the whole value. */
  regex?: RE2JS;
}

export interface PromQuery {
  startMs: bigint;
  endMs: bigint;
  matchers: PromMatcher[];
}

const MATCHER_TYPES: MatcherType[] = ['EQ', 'NEQ', 'RE', 'NRE'];

/** Parses a (snappy-decoded) ReadRequest. Throws 'protobuf' or 'badParameter' (a bad regex). */
export function parsePromRead(message: Uint8Array): PromQuery[] {
  const req = decodeMessage<{
    queries: Array<{
      start_timestamp_ms: Int64;
      end_timestamp_ms: Int64;
      matchers: Array<{ type: number; name: string; value: string }>;
    }>;
  }>(PROM_TYPES.ReadRequest, message, 'a Prometheus ReadRequest');
  return req.queries.map((q, i) => ({
    startMs: int64ToBigInt(q.start_timestamp_ms),
    endMs: int64ToBigInt(q.end_timestamp_ms),
    matchers: q.matchers.map((m) => {
      const type = MATCHER_TYPES[m.type];
      if (type === undefined) throw new UserError('protobuf', `queries[${i}]: unknown matcher type ${m.type}`);
      if (type === 'EQ' || type === 'NEQ') return { type, name: m.name, value: m.value };
      try {
        // RE2, as Prometheus: its syntax, and matching in linear time, so that no matcher can hang
        // the server (a JavaScript RegExp backtracks). Anchored at both ends, `.` matching `\n`.
        return { type, name: m.name, value: m.value, regex: RE2JS.compile(m.value, RE2JS.DOTALL) };
      } catch (e) {
        throw new UserError(
          'badParameter',
          `queries[${i}]: invalid regular expression ${JSON.stringify(m.value)}: ${(e as Error).message}`,
        );
      }
    }),
  }));
}

/** Whether a label value (empty when the label is absent) satisfies the matcher. */
export function matches(m: PromMatcher, value: string): boolean {
  switch (m.type) {
    case 'EQ':
      return value === m.value;
    case 'NEQ':
      return value !== m.value;
    case 'RE':
      return m.regex!.matches(value);
    case 'NRE':
      return !m.regex!.matches(value);
  }
}

export interface PromSeries {
  /** Sorted by name. */
  labels: Label[];
  samples: Array<{ value: number; timestamp: number }>;
}

/** Encodes a ReadResponse (results in query order). */
export function encodePromReadResponse(results: PromSeries[][]): Uint8Array {
  const message = PROM_TYPES.ReadResponse.fromObject({ results: results.map((timeseries) => ({ timeseries })) });
  return PROM_TYPES.ReadResponse.encode(message).finish();
}
