// How the OTLP/HTTP routes (/v1/traces, /v1/metrics, /v1/logs) report failures, as the OTLP
// specification says: the body is a google.rpc.Status in the request's encoding (JSON for an
// `application/json` request, else protobuf), with the HTTP status choosing whether the exporter
// retries (429, 502, 503, 504) or drops the data (every other 4xx and 5xx). Sundial's statuses
// stand but for two: an unsupported Content-Type or Content-Encoding is 415, and a full disk is
// 503 with Retry-After (507 is not retryable for an exporter, and the data would be lost).
// `Status.code`, which OTLP leaves unused, carries the gRPC code nearest the cause.

import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { ErrorKind, UserError } from '../core/errors.js';
import { otlpTypes } from '../ingest/otlp-proto.js';
import { jsonBody } from './json-body.js';

const STATUS: Partial<Record<ErrorKind, number>> = {
  badHeader: 415,
  noSpace: 503,
};

/** The status of `err` on an OTLP route. */
export function otlpStatus(err: UserError): number {
  return STATUS[err.kind] ?? err.status;
}

/** google.rpc.Code values (googleapis google/rpc/code.proto). */
const GRPC = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const GRPC_BY_KIND: Partial<Record<ErrorKind, number>> = {
  privilege: GRPC.PERMISSION_DENIED,
  tenantNotFound: GRPC.PERMISSION_DENIED,
  databaseNotFound: GRPC.NOT_FOUND,
  tableNotFound: GRPC.NOT_FOUND,
};

const GRPC_BY_STATUS: Readonly<Record<number, number>> = {
  400: GRPC.INVALID_ARGUMENT,
  401: GRPC.UNAUTHENTICATED,
  413: GRPC.RESOURCE_EXHAUSTED,
  415: GRPC.INVALID_ARGUMENT,
  422: GRPC.FAILED_PRECONDITION,
  429: GRPC.RESOURCE_EXHAUSTED,
  503: GRPC.UNAVAILABLE,
};

/** The gRPC code of `err`, for Status.code. */
export function otlpGrpcCode(err: UserError): number {
  return GRPC_BY_KIND[err.kind] ?? GRPC_BY_STATUS[otlpStatus(err)] ?? GRPC.INTERNAL;
}

/** Whether a request to an OTLP route is OTLP/JSON (else protobuf, the default encoding). */
export function isOtlpJson(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The error response of an OTLP route: status and Status body (no error headers; the caller adds them). */
export function otlpErrorResponse(h: ResponseToolkit, err: UserError, json: boolean): ResponseObject {
  const status = { code: otlpGrpcCode(err), message: err.message };
  const res = json
    ? jsonBody(h, JSON.stringify(status))
    : h.response(Buffer.from(otlpTypes().Status.encode(status).finish())).type('application/x-protobuf');
  return res.code(otlpStatus(err));
}
