// OTLP request bodies for tests: the protobuf encoding of a request written as OTLP/JSON (hex
// trace and span ids, which protobufjs' fromObject would read as base64).

import { otlpTypes } from '../../host/ingest/otlp-proto.js';

export type OtlpRequestType = 'ExportTraceServiceRequest' | 'ExportMetricsServiceRequest' | 'ExportLogsServiceRequest';

/** `request` (an object, or its JSON text) encoded as protobuf. */
export function otlpProtobuf(type: OtlpRequestType, request: object | string): Uint8Array {
  const T = otlpTypes()[type];
  const json = typeof request === 'string' ? request : JSON.stringify(request);
  const withBytes = JSON.parse(json, (k, v: unknown) =>
    typeof v === 'string' && (k === 'traceId' || k === 'spanId' || k === 'parentSpanId') ? Buffer.from(v, 'hex') : v,
  ) as object;
  return T.encode(T.fromObject(withBytes)).finish();
}
