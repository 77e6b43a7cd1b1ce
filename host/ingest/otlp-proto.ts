// The OTLP trace messages, loaded by protobufjs from the official opentelemetry-proto `.proto`
// files that @elastic/mockotlpserver ships verbatim (kept in sync with
// open-telemetry/opentelemetry-proto by Elastic's update script). Loaded once, on first use;
// field names are protobufjs' lowerCamelCase, which is also OTLP/JSON's spelling, so the JSON
// encoding goes through the same message types (fromObject). Node only: reads the files.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

export interface OtlpTypes {
  ExportTraceServiceRequest: protobuf.Type;
  spanKindNames: Record<number, string>;
  statusCodeNames: Record<number, string>;
}

let cached: OtlpTypes | undefined;

export function otlpTypes(): OtlpTypes {
  if (cached !== undefined) return cached;
  const base = dirname(createRequire(import.meta.url).resolve('@elastic/mockotlpserver/package.json'));
  const root = new protobuf.Root();
  // Imports are relative to the proto root (opentelemetry/proto/...), not to the importing file.
  root.resolvePath = (_origin: string, target: string) => join(base, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  root.resolveAll();
  cached = {
    ExportTraceServiceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    spanKindNames: root.lookupEnum('opentelemetry.proto.trace.v1.Span.SpanKind').valuesById,
    statusCodeNames: root.lookupEnum('opentelemetry.proto.trace.v1.Status.StatusCode').valuesById,
  };
  return cached;
}
