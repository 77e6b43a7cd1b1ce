// The OTLP messages, loaded by protobufjs from the official opentelemetry-proto `.proto` files
// that @elastic/mockotlpserver ships verbatim (kept in sync with open-telemetry/opentelemetry-proto
// by Elastic's update script). Loaded once, on first use; field names are protobufjs'
// lowerCamelCase, which is also OTLP/JSON's spelling, so the JSON encoding goes through the same
// message types (fromObject). google.rpc.Status, the body of OTLP/HTTP's failures, is not among
// those files: it is declared here with its wire layout. Node only: reads the files.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';

export interface OtlpTypes {
  ExportTraceServiceRequest: protobuf.Type;
  ExportTraceServiceResponse: protobuf.Type;
  ExportMetricsServiceRequest: protobuf.Type;
  ExportMetricsServiceResponse: protobuf.Type;
  ExportLogsServiceRequest: protobuf.Type;
  ExportLogsServiceResponse: protobuf.Type;
  /** google.rpc.Status (code, message; `details` left out: Sundial sends none). */
  Status: protobuf.Type;
  spanKindNames: Record<number, string>;
  statusCodeNames: Record<number, string>;
  severityNames: Record<number, string>;
}

/** googleapis google/rpc/status.proto, without the details it does not send. */
const STATUS_PROTO = `
syntax = "proto3";
package google.rpc;
message Status { int32 code = 1; string message = 2; }
`;

let cached: OtlpTypes | undefined;

export function otlpTypes(): OtlpTypes {
  if (cached !== undefined) return cached;
  const base = dirname(createRequire(import.meta.url).resolve('@elastic/mockotlpserver/package.json'));
  const root = new protobuf.Root();
  // Imports are relative to the proto root (opentelemetry/proto/...), not to the importing file.
  root.resolvePath = (_origin: string, target: string) => join(base, target);
  root.loadSync([
    'opentelemetry/proto/collector/trace/v1/trace_service.proto',
    'opentelemetry/proto/collector/metrics/v1/metrics_service.proto',
    'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  ]);
  root.resolveAll();
  const status = protobuf.parse(STATUS_PROTO).root;
  const collector = (name: string): protobuf.Type => root.lookupType(`opentelemetry.proto.collector.${name}`);
  cached = {
    ExportTraceServiceRequest: collector('trace.v1.ExportTraceServiceRequest'),
    ExportTraceServiceResponse: collector('trace.v1.ExportTraceServiceResponse'),
    ExportMetricsServiceRequest: collector('metrics.v1.ExportMetricsServiceRequest'),
    ExportMetricsServiceResponse: collector('metrics.v1.ExportMetricsServiceResponse'),
    ExportLogsServiceRequest: collector('logs.v1.ExportLogsServiceRequest'),
    ExportLogsServiceResponse: collector('logs.v1.ExportLogsServiceResponse'),
    Status: status.lookupType('google.rpc.Status'),
    spanKindNames: root.lookupEnum('opentelemetry.proto.trace.v1.Span.SpanKind').valuesById,
    statusCodeNames: root.lookupEnum('opentelemetry.proto.trace.v1.Status.StatusCode').valuesById,
    severityNames: root.lookupEnum('opentelemetry.proto.logs.v1.SeverityNumber').valuesById,
  };
  return cached;
}
