// OTLP ExportLogsServiceRequest (protobuf, or OTLP/JSON) -> one row per log record, all in one
// table (the route's `table`, else `otlp.logs_table`; docs/opentelemetry.md). Tags: the
// resource's attributes, `otel.scope.name` / `otel.scope.version` and the scope's attributes, and
// `severity_text`; fields: `body` (text, maps and arrays as JSON), `severity_number`, the trace
// and span ids (hex), `flags`, `observed_time_unix_nano`, and each of the record's attributes as a
// STRING field of its own name. The row time is `time_unix_nano`, else the observed time, else the
// request's clock. Records of one series that share a time go to the next free unit, and a record
// identical to a stored one is a repeat that adds nothing: Loki's rule (loki-entry-times.ts), so a
// retried export does not double its rows. A record that cannot be stored (an attribute named like
// a column Sundial writes) is rejected alone, for OTLP's partial success. Runtime-agnostic but for
// the .proto files (otlp-proto.ts).

import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { ValueType } from '../core/write-batch.js';
import { contentHash, EntryTimes, entrySeriesKey, type SeriesRange, type Slot } from './loki-entry-times.js';
import { Rejections, type OtlpRows } from './otlp-metrics.js';
import { otlpTypes } from './otlp-proto.js';
import {
  anyValueText,
  attributeTags,
  decodeOtlpJsonAs,
  hex,
  RowFields,
  scopeTags,
  type AnyValue,
  type KeyValue,
  type Scope,
} from './otlp-values.js';
import { decodeMessage, int64ToBigInt, type Int64 } from './protobuf-values.js';
import { RowBatcher } from './row-batcher.js';
import { TimestampConverter } from './timestamps.js';

/** The columns Sundial writes besides the attributes and the scope's tags (SCOPE_TAGS). */
export const LOG_COLUMNS = {
  severityText: 'severity_text',
  body: 'body',
  severityNumber: 'severity_number',
  traceId: 'trace_id',
  spanId: 'span_id',
  flags: 'flags',
  observedTime: 'observed_time_unix_nano',
  droppedAttributes: 'dropped_attributes_count',
} as const;

const FIXED_FIELDS: ReadonlySet<string> = new Set([
  LOG_COLUMNS.body,
  LOG_COLUMNS.severityNumber,
  LOG_COLUMNS.traceId,
  LOG_COLUMNS.spanId,
  LOG_COLUMNS.flags,
  LOG_COLUMNS.observedTime,
  LOG_COLUMNS.droppedAttributes,
]);

interface LogRecord {
  timeUnixNano: Int64;
  observedTimeUnixNano: Int64;
  severityNumber: number;
  severityText: string;
  body: AnyValue | null;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  flags: number;
  traceId: Uint8Array;
  spanId: Uint8Array;
}
interface ExportRequest {
  resourceLogs: Array<{
    resource: { attributes: KeyValue[] } | null;
    scopeLogs: Array<{ scope: Scope | null; logRecords: LogRecord[] }>;
  }>;
}

export interface LogRecordOptions {
  table: string;
  dbUnit: TimeUnit;
  /** The request's clock, nanoseconds since the epoch: the time of a record that has none. */
  nowNs: bigint;
}

/** Rows of a logs request, and the series and times they took (loki-entry-times.ts). */
export interface OtlpLogRows extends OtlpRows {
  ranges: SeriesRange[];
}

/** Decodes a protobuf ExportLogsServiceRequest. Throws UserError('protobuf') when malformed. */
export function decodeOtlpLogsProtobuf(body: Uint8Array): unknown {
  return decodeMessage(otlpTypes().ExportLogsServiceRequest, body, 'an OTLP ExportLogsServiceRequest');
}

const LOG_IDS = [{ lists: ['resourceLogs', 'scopeLogs', 'logRecords'], keys: ['traceId', 'spanId'] }] as const;

/** Decodes an OTLP/JSON ExportLogsServiceRequest. Throws UserError('protobuf') when it is not one. */
export function decodeOtlpLogsJson(body: Uint8Array): unknown {
  return decodeOtlpJsonAs(otlpTypes().ExportLogsServiceRequest, body, LOG_IDS);
}

/**
 * Turns a decoded ExportLogsServiceRequest into write batches, one row per record; `seed` are
 * occupied slots the records must go beside (server/loki-placement.ts).
 */
export function otlpLogsToBatches(
  request: unknown,
  options: LogRecordOptions,
  seed: readonly Slot[] = [],
): OtlpLogRows {
  const req = request as ExportRequest;
  const toDb = new TimestampConverter('ns', options.dbUnit);
  const out = new RowBatcher();
  const f = new RowFields();
  const times = new EntryTimes(seed);
  const rejected = new Rejections();
  const C = LOG_COLUMNS;
  let total = 0;
  req.resourceLogs.forEach((rl, r) => {
    const resource = attributeTags(rl.resource?.attributes);
    rl.scopeLogs.forEach((sl, s) => {
      const scope = scopeTags(sl.scope);
      // Series keys by severity: a scope's records take a handful of them.
      const series = new Map<string, { tags: Array<[string, string]>; key: string }>();
      total += sl.logRecords.length;
      sl.logRecords.forEach((rec, i) => {
        try {
          let one = series.get(rec.severityText);
          if (one === undefined) {
            const tags: Array<[string, string]> = [...scope, ...resource, [C.severityText, rec.severityText]];
            series.set(rec.severityText, (one = { tags, key: entrySeriesKey(tags) }));
          }
          f.reset();
          for (const kv of rec.attributes) {
            if (FIXED_FIELDS.has(kv.key))
              throw new UserError(
                'protobuf',
                `attribute '${kv.key}' has the name of a column Sundial writes for every record`,
              );
            f.str(kv.key, anyValueText(kv.value));
          }
          f.str(C.body, anyValueText(rec.body));
          f.add(C.severityNumber, ValueType.BigInt, BigInt(rec.severityNumber));
          const traceId = hex(rec.traceId);
          if (traceId !== '') f.str(C.traceId, traceId);
          const spanId = hex(rec.spanId);
          if (spanId !== '') f.str(C.spanId, spanId);
          if (rec.flags !== 0) f.add(C.flags, ValueType.BigInt, BigInt(rec.flags));
          const observed = int64ToBigInt(rec.observedTimeUnixNano);
          if (observed !== 0n) f.add(C.observedTime, ValueType.BigInt, observed);
          if (rec.droppedAttributesCount !== 0)
            f.add(C.droppedAttributes, ValueType.BigInt, BigInt(rec.droppedAttributesCount));
          const own = int64ToBigInt(rec.timeUnixNano);
          const time = toDb.convert(own !== 0n ? own : observed !== 0n ? observed : options.nowNs);
          const fields = f.list;
          const slot = times.place(one.key, one.tags, time, contentHash(fields, fields.length));
          // A repeat of a stored record: already there.
          if (slot === undefined) return;
          out.add(options.table, one.tags, slot, fields);
        } catch (e) {
          rejected.add(`resourceLogs[${r}].scopeLogs[${s}].logRecords[${i}]`, e);
        }
      });
    });
  });
  const rows = out.rowCount;
  return {
    batches: out.finish(),
    rows,
    rejected: rejected.count,
    rejectedMessage: rejected.message('log records', total),
    ranges: times.ranges(),
  };
}
