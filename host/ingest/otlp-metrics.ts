// OTLP ExportMetricsServiceRequest (protobuf, or OTLP/JSON) -> rows, one per data point, in a
// table named after the metric (docs/opentelemetry.md has the whole mapping). Tags: the point's
// attributes, then `otel.temporality` / `otel.monotonic` / `otel.unit` of the metric, the scope
// (`otel.scope.name`, `otel.scope.version`, its attributes) and the resource's attributes, the
// first of a repeated key winning, so a point's own attribute overrides its resource's. Fields by
// kind: `value` (gauge, sum; DOUBLE, as Prometheus keeps samples), `count`/`sum`/`min`/`max`, and
// histogram buckets as cumulative counts `le_<bound>` (Prometheus' `le`), exponential buckets as
// offset and JSON counts, summary quantiles as `quantile_<q>`. A point that cannot be stored (no
// time, no value, buckets that do not match their bounds, an attribute named like a field) is
// rejected alone and counted for OTLP's partial success; the rest are stored. Runtime-agnostic
// but for the .proto files (otlp-proto.ts).

import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { compareBytes } from '../core/series-key.js';
import { ValueType } from '../core/write-batch.js';
import { otlpTypes } from './otlp-proto.js';
import {
  anyValueText,
  attributeTags,
  decodeOtlpJsonAs,
  RowFields,
  scopeTags,
  type AnyValue,
  type KeyValue,
  type Scope,
} from './otlp-values.js';
import { decodeMessage, int64ToBigInt, int64ToNumber, type Int64 } from './protobuf-values.js';
import { RowBatcher } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';

/** The tags Sundial adds to the attributes, besides the scope's (SCOPE_TAGS). */
export const METRIC_TAGS = {
  temporality: 'otel.temporality',
  monotonic: 'otel.monotonic',
  unit: 'otel.unit',
} as const;

/** OTLP's AggregationTemporality, as the `otel.temporality` tag spells it. */
const TEMPORALITY: Record<number, string> = { 0: 'unspecified', 1: 'delta', 2: 'cumulative' };
/** DataPointFlags.NO_RECORDED_VALUE: the series went stale; there is no value to store. */
const NO_RECORDED_VALUE = 1;

interface PointBase {
  attributes: KeyValue[];
  startTimeUnixNano: Int64;
  timeUnixNano: Int64;
  flags: number;
}
interface NumberPoint extends PointBase {
  asDouble?: number | null;
  asInt?: Int64 | null;
  value?: 'asDouble' | 'asInt';
}
interface HistogramPoint extends PointBase {
  count: Int64;
  sum?: number | null;
  bucketCounts: Int64[];
  explicitBounds: number[];
  min?: number | null;
  max?: number | null;
}
interface Buckets {
  offset: number;
  bucketCounts: Int64[];
}
interface ExpHistogramPoint extends PointBase {
  count: Int64;
  sum?: number | null;
  scale: number;
  zeroCount: Int64;
  zeroThreshold: number;
  positive: Buckets | null;
  negative: Buckets | null;
  min?: number | null;
  max?: number | null;
}
interface SummaryPoint extends PointBase {
  count: Int64;
  sum: number;
  quantileValues: Array<{ quantile: number; value: number }>;
}
interface Metric {
  name: string;
  unit: string;
  data?: 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram' | 'summary';
  gauge?: { dataPoints: NumberPoint[] } | null;
  sum?: { dataPoints: NumberPoint[]; aggregationTemporality: number; isMonotonic: boolean } | null;
  histogram?: { dataPoints: HistogramPoint[]; aggregationTemporality: number } | null;
  exponentialHistogram?: { dataPoints: ExpHistogramPoint[]; aggregationTemporality: number } | null;
  summary?: { dataPoints: SummaryPoint[] } | null;
}
interface ExportRequest {
  resourceMetrics: Array<{
    resource: { attributes: KeyValue[] } | null;
    scopeMetrics: Array<{ scope: Scope | null; metrics: Metric[] }>;
  }>;
}

export interface MetricOptions {
  dbUnit: TimeUnit;
}

/** Rows of a request, and what was rejected (OTLP partial success). */
export interface OtlpRows {
  batches: Uint8Array[];
  /** Rows stored. */
  rows: number;
  rejected: number;
  /** Why, when `rejected` > 0: how many, and the first reason with where it was. */
  rejectedMessage?: string;
}

/** Decodes a protobuf ExportMetricsServiceRequest. Throws UserError('protobuf') when malformed. */
export function decodeOtlpMetricsProtobuf(body: Uint8Array): unknown {
  return decodeMessage(otlpTypes().ExportMetricsServiceRequest, body, 'an OTLP ExportMetricsServiceRequest', true);
}

/** The exemplars' ids, the only ids of a metrics request (exemplars are not stored). */
const EXEMPLAR_IDS = [
  {
    lists: [
      'resourceMetrics',
      'scopeMetrics',
      'metrics',
      'gauge|sum|histogram|exponentialHistogram',
      'dataPoints',
      'exemplars',
    ],
    keys: ['traceId', 'spanId'],
  },
] as const;

/** Decodes an OTLP/JSON ExportMetricsServiceRequest. Throws UserError('protobuf') when it is not one. */
export function decodeOtlpMetricsJson(body: Uint8Array): unknown {
  return decodeOtlpJsonAs(otlpTypes().ExportMetricsServiceRequest, body, EXEMPLAR_IDS);
}

/** Counts rejected items, keeping the first reason. */
export class Rejections {
  count = 0;
  #first: string | undefined;

  add(where: string, e: unknown): void {
    if (!(e instanceof UserError)) throw e;
    this.count++;
    this.#first ??= `${where}: ${e.message}`;
  }

  message(what: string, total: number): string | undefined {
    if (this.count === 0) return undefined;
    return `${this.count} of ${total} ${what} rejected; the first: ${this.#first}`;
  }
}

/** A number as a column-name suffix: JavaScript's shortest round-trip form (0.005, 1e-7, 250). */
function numberName(n: number): string {
  return Number.isNaN(n) ? 'NaN' : n === Infinity ? '+Inf' : n === -Infinity ? '-Inf' : String(n);
}

/**
 * Tags in name order without repeats, the first of a repeated name winning (`lists` in priority
 * order): the order the batch builder takes without sorting or checking for repeats itself.
 */
function sortedTags(...lists: ReadonlyArray<ReadonlyArray<readonly [string, string]>>): Array<[string, string]> {
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const list of lists) {
    for (const [k, v] of list) {
      if (seen.has(k)) continue;
      seen.add(k);
      out.push([k, v]);
    }
  }
  return out.sort((a, b) => compareBytes(a[0], b[0]));
}

/** Turns a decoded ExportMetricsServiceRequest into write batches, one row per data point. */
export function otlpMetricsToBatches(request: unknown, options: MetricOptions): OtlpRows {
  const req = request as ExportRequest;
  const toDb = new TimestampConverter('ns', options.dbUnit);
  const out = new RowBatcher();
  const f = new RowFields();
  const rejected = new Rejections();
  // The tags of each point by a key of its metric and attributes, built once per series of the
  // request (a body repeats each series once per interval it covers); the key goes to the
  // builder too, which then finds the series without reading the tags (in one process, 2,500-
  // point bodies: 100-190 k -> see bench/RESULTS.md).
  const seriesTags = new Map<string, Array<[string, string]>>();
  // Points of one interval share their times: each converted once.
  const time = new LastInt64();
  const startTime = new LastInt64();
  let metricSerial = 0;
  let total = 0;
  req.resourceMetrics.forEach((rm, r) => {
    const resource = attributeTags(rm.resource?.attributes);
    rm.scopeMetrics.forEach((sm, s) => {
      const scope = scopeTags(sm.scope);
      sm.metrics.forEach((metric, m) => {
        const kind = metric.data;
        if (kind === undefined) return;
        const data = metric[kind]!;
        const metricTags: Array<[string, string]> = [];
        if ('aggregationTemporality' in data)
          metricTags.push([
            METRIC_TAGS.temporality,
            TEMPORALITY[data.aggregationTemporality] ?? String(data.aggregationTemporality),
          ]);
        if (kind === 'sum') metricTags.push([METRIC_TAGS.monotonic, metric.sum!.isMonotonic ? 'true' : 'false']);
        if (metric.unit !== '') metricTags.push([METRIC_TAGS.unit, metric.unit]);
        // What every point of the metric shares, after the point's own attributes.
        const shared = sortedTags(metricTags, scope, resource);
        const serial = `${metricSerial++}\u0000`;
        const points = data.dataPoints as PointBase[];
        total += points.length;
        points.forEach((p, i) => {
          try {
            if ((p.flags & NO_RECORDED_VALUE) !== 0)
              throw new UserError('protobuf', 'the point has no recorded value (DataPointFlags.NO_RECORDED_VALUE)');
            const ts = time.of(p.timeUnixNano);
            if (ts === 0n) throw new UserError('protobuf', 'time_unix_nano is missing');
            let key = serial;
            for (const kv of p.attributes) key += `${kv.key.length}:${kv.key}${pointText(kv.value)}\u0001`;
            let tags = seriesTags.get(key);
            if (tags === undefined) {
              tags =
                p.attributes.length === 0
                  ? shared
                  : sortedTags(
                      p.attributes.map((kv) => [kv.key, anyValueText(kv.value)] as [string, string]),
                      shared,
                    );
              seriesTags.set(key, tags);
            }
            f.reset();
            const start = startTime.of(p.startTimeUnixNano);
            if (start !== 0n) f.add('start_time_unix_nano', ValueType.BigInt, start);
            pointFields(f, kind, p);
            out.add(metric.name, tags, time.converted(toDb), f.list, key);
          } catch (e) {
            rejected.add(
              `resourceMetrics[${r}].scopeMetrics[${s}].metrics[${m}] (${JSON.stringify(metric.name).slice(0, 80)}) dataPoints[${i}]`,
              e,
            );
          }
        });
      });
    });
  });
  const rows = out.rowCount;
  return {
    batches: out.finish(),
    rows,
    rejected: rejected.count,
    rejectedMessage: rejected.message('data points', total),
  };
}

/** An attribute value in a series key: its text, with its kind (a string "1" is not the integer 1 as a key, though both are the tag '1'). */
function pointText(v: AnyValue | null): string {
  const text = anyValueText(v);
  return `${v?.value ?? ''}${text.length}:${text}`;
}

/** A 64-bit integer as a BigInt, the last one remembered (Longs compared by their words). */
class LastInt64 {
  /** The words of the last value when it came as a Long. */
  #long = false;
  #low = 0;
  #high = 0;
  #unsigned = false;
  #value = 0n;
  #converted: bigint | undefined;

  of(v: Int64): bigint {
    if (typeof v === 'object' && v !== null) {
      if (this.#long && v.low === this.#low && v.high === this.#high && v.unsigned === this.#unsigned)
        return this.#value;
      this.#long = true;
      this.#low = v.low;
      this.#high = v.high;
      this.#unsigned = v.unsigned;
      this.#converted = undefined;
      return (this.#value = int64ToBigInt(v));
    }
    const b = int64ToBigInt(v);
    if (this.#long || b !== this.#value) {
      this.#long = false;
      this.#value = b;
      this.#converted = undefined;
    }
    return b;
  }

  /** The last value in the database unit. */
  converted(toDb: TimestampConverter): bigint {
    return (this.#converted ??= toDb.convert(this.#value));
  }
}

/** An integer count: a number while exact, else a BigInt. */
function exactCount(v: Int64): number | bigint {
  const n = int64ToNumber(v);
  return Number.isSafeInteger(n) ? n : int64ToBigInt(v);
}

/** Field names of bucket bounds and quantiles, by prefix and number. */
const numberNames = new Map<string, Map<number, string>>();

function numberField(prefix: string, n: number): string {
  let m = numberNames.get(prefix);
  if (m === undefined) numberNames.set(prefix, (m = new Map()));
  let name = m.get(n);
  if (name === undefined) {
    // Bounded: a hostile body of many distinct bounds must not grow the cache without end.
    if (m.size >= 4096) m.clear();
    m.set(n, (name = prefix + numberName(n)));
  }
  return name;
}

/** The fields of one point of a metric of `kind`; throws UserError for a point that cannot be stored. */
function pointFields(f: RowFields, kind: NonNullable<Metric['data']>, point: PointBase): void {
  switch (kind) {
    case 'gauge':
    case 'sum': {
      const p = point as NumberPoint;
      if (p.value === 'asDouble') f.num('value', p.asDouble!);
      else if (p.value === 'asInt') f.num('value', Number(int64ToBigInt(p.asInt)));
      else throw new UserError('protobuf', 'the point has neither as_double nor as_int');
      return;
    }
    case 'histogram': {
      const p = point as HistogramPoint;
      const buckets = p.bucketCounts.length;
      if (buckets !== 0 && buckets !== p.explicitBounds.length + 1) {
        throw new UserError(
          'protobuf',
          `${buckets} bucket counts for ${p.explicitBounds.length} explicit bounds (want one more count than bounds)`,
        );
      }
      countSumMinMax(f, p);
      let cumulative = 0;
      let exact = true;
      let big = 0n;
      for (let b = 0; b < buckets; b++) {
        const name = b < p.explicitBounds.length ? numberField('le_', p.explicitBounds[b]!) : 'le_+Inf';
        if (exact) {
          cumulative += int64ToNumber(p.bucketCounts[b]);
          exact = Number.isSafeInteger(cumulative);
          if (!exact) {
            big = 0n;
            for (let c = 0; c <= b; c++) big += int64ToBigInt(p.bucketCounts[c]);
          }
        } else big += int64ToBigInt(p.bucketCounts[b]);
        f.add(name, ValueType.Unsigned, exact ? cumulative : big);
      }
      return;
    }
    case 'exponentialHistogram': {
      const p = point as ExpHistogramPoint;
      countSumMinMax(f, p);
      f.add('scale', ValueType.BigInt, BigInt(p.scale));
      f.add('zero_count', ValueType.Unsigned, exactCount(p.zeroCount));
      f.num('zero_threshold', p.zeroThreshold);
      for (const [side, b] of [
        ['positive', p.positive],
        ['negative', p.negative],
      ] as const) {
        if (b === null || b.bucketCounts.length === 0) continue;
        f.add(`${side}_offset`, ValueType.BigInt, BigInt(b.offset));
        f.str(`${side}_bucket_counts`, `[${b.bucketCounts.map((c) => int64ToBigInt(c).toString()).join(',')}]`);
      }
      return;
    }
    case 'summary': {
      const p = point as SummaryPoint;
      f.add('count', ValueType.Unsigned, exactCount(p.count));
      f.num('sum', p.sum);
      for (const q of p.quantileValues) f.num(numberField('quantile_', q.quantile), q.value);
      return;
    }
  }
}

function countSumMinMax(
  f: RowFields,
  p: { count: Int64; sum?: number | null; min?: number | null; max?: number | null },
): void {
  f.add('count', ValueType.Unsigned, exactCount(p.count));
  if (p.sum !== null && p.sum !== undefined) f.num('sum', p.sum);
  if (p.min !== null && p.min !== undefined) f.num('min', p.min);
  if (p.max !== null && p.max !== undefined) f.num('max', p.max);
}
