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
import { ValueType } from '../core/write-batch.js';
import { otlpTypes } from './otlp-proto.js';
import { anyValueText, decodeOtlpJsonAs, RowFields, type KeyValue, type Scope } from './otlp-values.js';
import { decodeMessage, int64ToBigInt, type Int64 } from './protobuf-values.js';
import { RowBatcher } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';

/** The tags Sundial adds to the attributes. */
export const METRIC_TAGS = {
  temporality: 'otel.temporality',
  monotonic: 'otel.monotonic',
  unit: 'otel.unit',
  scopeName: 'otel.scope.name',
  scopeVersion: 'otel.scope.version',
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
  { lists: ['resourceMetrics', 'scopeMetrics', 'metrics', 'gauge|sum|histogram|exponentialHistogram', 'dataPoints', 'exemplars'], keys: ['traceId', 'spanId'] },
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

/** Turns a decoded ExportMetricsServiceRequest into write batches, one row per data point. */
export function otlpMetricsToBatches(request: unknown, options: MetricOptions): OtlpRows {
  const req = request as ExportRequest;
  const toDb = new TimestampConverter('ns', options.dbUnit);
  const out = new RowBatcher();
  const f = new RowFields();
  const rejected = new Rejections();
  const tags: Array<[string, string]> = [];
  let total = 0;
  req.resourceMetrics.forEach((rm, r) => {
    const resourceTags: Array<[string, string]> = (rm.resource?.attributes ?? []).map((kv) => [kv.key, anyValueText(kv.value)]);
    rm.scopeMetrics.forEach((sm, s) => {
      const scopeTags: Array<[string, string]> = [];
      if (sm.scope !== null) {
        if (sm.scope.name !== '') scopeTags.push([METRIC_TAGS.scopeName, sm.scope.name]);
        if (sm.scope.version !== '') scopeTags.push([METRIC_TAGS.scopeVersion, sm.scope.version]);
        for (const kv of sm.scope.attributes) scopeTags.push([kv.key, anyValueText(kv.value)]);
      }
      sm.metrics.forEach((metric, m) => {
        const kind = metric.data;
        if (kind === undefined) return;
        const data = metric[kind]!;
        const metricTags: Array<[string, string]> = [];
        if ('aggregationTemporality' in data) metricTags.push([METRIC_TAGS.temporality, TEMPORALITY[data.aggregationTemporality] ?? String(data.aggregationTemporality)]);
        if (kind === 'sum') metricTags.push([METRIC_TAGS.monotonic, metric.sum!.isMonotonic ? 'true' : 'false']);
        if (metric.unit !== '') metricTags.push([METRIC_TAGS.unit, metric.unit]);
        // What every point of the metric shares, after the point's own attributes.
        const shared = [...metricTags, ...scopeTags, ...resourceTags];
        const points = data.dataPoints as PointBase[];
        total += points.length;
        points.forEach((p, i) => {
          try {
            if ((p.flags & NO_RECORDED_VALUE) !== 0) throw new UserError('protobuf', 'the point has no recorded value (DataPointFlags.NO_RECORDED_VALUE)');
            const time = int64ToBigInt(p.timeUnixNano);
            if (time === 0n) throw new UserError('protobuf', 'time_unix_nano is missing');
            let n = 0;
            for (const kv of p.attributes) tags[n++] = [kv.key, anyValueText(kv.value)];
            for (const t of shared) tags[n++] = t;
            if (tags.length !== n) tags.length = n;
            f.reset();
            const start = int64ToBigInt(p.startTimeUnixNano);
            if (start !== 0n) f.add('start_time_unix_nano', ValueType.BigInt, start);
            pointFields(f, kind, p);
            out.add(metric.name, tags, toDb.convert(time), f.list);
          } catch (e) {
            rejected.add(`resourceMetrics[${r}].scopeMetrics[${s}].metrics[${m}] (${JSON.stringify(metric.name).slice(0, 80)}) dataPoints[${i}]`, e);
          }
        });
      });
    });
  });
  const rows = out.rowCount;
  return { batches: out.finish(), rows, rejected: rejected.count, rejectedMessage: rejected.message('data points', total) };
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
        throw new UserError('protobuf', `${buckets} bucket counts for ${p.explicitBounds.length} explicit bounds (want one more count than bounds)`);
      }
      countSumMinMax(f, p);
      let cumulative = 0n;
      for (let b = 0; b < buckets; b++) {
        cumulative += int64ToBigInt(p.bucketCounts[b]);
        f.add(f.name('le_', b < p.explicitBounds.length ? numberName(p.explicitBounds[b]!) : '+Inf'), ValueType.Unsigned, cumulative);
      }
      return;
    }
    case 'exponentialHistogram': {
      const p = point as ExpHistogramPoint;
      countSumMinMax(f, p);
      f.add('scale', ValueType.BigInt, BigInt(p.scale));
      f.add('zero_count', ValueType.Unsigned, int64ToBigInt(p.zeroCount));
      f.num('zero_threshold', p.zeroThreshold);
      for (const [side, b] of [['positive', p.positive], ['negative', p.negative]] as const) {
        if (b === null || b.bucketCounts.length === 0) continue;
        f.add(`${side}_offset`, ValueType.BigInt, BigInt(b.offset));
        f.str(`${side}_bucket_counts`, `[${b.bucketCounts.map((c) => int64ToBigInt(c).toString()).join(',')}]`);
      }
      return;
    }
    case 'summary': {
      const p = point as SummaryPoint;
      f.add('count', ValueType.Unsigned, int64ToBigInt(p.count));
      f.num('sum', p.sum);
      for (const q of p.quantileValues) f.num(f.name('quantile_', numberName(q.quantile)), q.value);
      return;
    }
  }
}

function countSumMinMax(f: RowFields, p: { count: Int64; sum?: number | null; min?: number | null; max?: number | null }): void {
  f.add('count', ValueType.Unsigned, int64ToBigInt(p.count));
  if (p.sum !== null && p.sum !== undefined) f.num('sum', p.sum);
  if (p.min !== null && p.min !== undefined) f.num('min', p.min);
  if (p.max !== null && p.max !== undefined) f.num('max', p.max);
}
