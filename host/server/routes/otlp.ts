// OTLP/HTTP at the standard paths, where OpenTelemetry SDKs and collectors send by default:
// POST /v1/traces (spans as /api/v1/traces stores them), /v1/metrics (a table per metric) and
// /v1/logs (one table of records); docs/opentelemetry.md has the mapping. Protobuf
// (`application/x-protobuf`) or JSON (`application/json`), any Content-Encoding the write routes
// take. `tenant`, `db` and `table` as for /api/v1/traces (headers or query parameters); the table
// of spans and of records defaults to `otlp.traces_table` / `otlp.logs_table`, since exporters
// send none. Success is 200 with the Export<signal>ServiceResponse in the request's encoding,
// its `partial_success` set only when data points or records were rejected; failures are a
// google.rpc.Status (otlp-errors.ts). Nothing is stored when the request fails.

import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type protobuf from 'protobufjs';
import { UserError } from '../../core/errors.js';
import { otlpTypes } from '../../ingest/otlp-proto.js';
import { jsonBody } from '../json-body.js';
import type { ParseResult } from '../../ingest/parse-jobs.js';
import { parseLokiBeside } from '../loki-placement.js';
import { databaseOf, paramOrHeader, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { mediaType } from './content-type.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';

type Signal = 'traces' | 'metrics' | 'logs';

/** The Export<signal>ServiceResponse and its count of rejected items. */
function responseOf(signal: Signal): { type: protobuf.Type; rejectedField: string } {
  const t = otlpTypes();
  if (signal === 'traces') return { type: t.ExportTraceServiceResponse, rejectedField: 'rejectedSpans' };
  if (signal === 'metrics') return { type: t.ExportMetricsServiceResponse, rejectedField: 'rejectedDataPoints' };
  return { type: t.ExportLogsServiceResponse, rejectedField: 'rejectedLogRecords' };
}

/** The body's encoding from Content-Type; anything but OTLP's two is 415 (otlp-errors.ts). */
function encodingOf(request: Request): 'json' | 'protobuf' {
  const type = mediaType(request);
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new UserError(
    'badHeader',
    `Content-Type '${request.headers['content-type'] ?? ''}' is not supported; send OTLP as application/x-protobuf or application/json`,
  );
}

/** The success reply: an empty response message, or one with `partial_success`. */
function reply(
  h: ResponseToolkit,
  signal: Signal,
  encoding: 'json' | 'protobuf',
  rejected: number,
  message: string | undefined,
): ResponseObject {
  const { type, rejectedField } = responseOf(signal);
  const value = rejected > 0 ? { partialSuccess: { [rejectedField]: rejected, errorMessage: message ?? '' } } : {};
  if (encoding === 'json') {
    // proto3's JSON mapping: int64 as a decimal string.
    return jsonBody(h, JSON.stringify(type.toObject(type.fromObject(value), { longs: String }))).code(200);
  }
  return h
    .response(Buffer.from(type.encode(type.fromObject(value)).finish()))
    .type('application/x-protobuf')
    .code(200);
}

function tableOr(request: Request, fallback: string): string {
  const table = paramOrHeader(request, 'table');
  return table === undefined || table === '' ? fallback : table;
}

export function otlpRoutes(ctx: ServerContext): ServerRoute[] {
  const options = { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'otlp' as const } } };
  const target = (request: Request) => ({ tenant: tenantOf(request), database: databaseOf(request) });
  const limits = (format: string) => ({ format, bodyLimitBytes: ctx.config['limits.write_body_bytes'] });
  return [
    {
      method: 'POST',
      path: '/v1/traces',
      options,
      handler: async (request: Request, h: ResponseToolkit) => {
        const table = tableOr(request, ctx.config['otlp.traces_table']);
        const encoding = encodingOf(request);
        const format = encoding === 'json' ? 'otlp-json' : 'otlp-protobuf';
        await runWrite(ctx, request, target(request), limits(format), ({ body, dbUnit, services }) =>
          services.parsers.parse({ format, table, dbUnit }, body),
        );
        return reply(h, 'traces', encoding, 0, undefined);
      },
    },
    {
      method: 'POST',
      path: '/v1/metrics',
      options,
      handler: async (request: Request, h: ResponseToolkit) => {
        const encoding = encodingOf(request);
        const format = encoding === 'json' ? 'otlp-metrics-json' : 'otlp-metrics-protobuf';
        const out = await runWrite(ctx, request, target(request), limits(format), ({ body, dbUnit, services }) =>
          services.parsers.parse({ format, dbUnit }, body),
        );
        return reply(h, 'metrics', encoding, out.rejected ?? 0, out.rejectedMessage);
      },
    },
    {
      method: 'POST',
      path: '/v1/logs',
      options,
      handler: async (request: Request, h: ResponseToolkit) => {
        const table = tableOr(request, ctx.config['otlp.logs_table']);
        const encoding = encodingOf(request);
        const format = encoding === 'json' ? 'otlp-logs-json' : 'otlp-logs-protobuf';
        const where = target(request);
        // Records placed beside the stored ones, as Loki entries are (loki-placement.ts): counted
        // as placed from the parse until they are stored.
        let stored: (() => void) | undefined;
        let out: ParseResult;
        try {
          out = await runWrite(ctx, request, where, limits(format), ({ body, db, dbUnit, nowMs, services }) => {
            const key = `${where.tenant}\u0000${where.database}\u0000${table}`;
            const nowNs = BigInt(nowMs) * 1_000_000n;
            const placing = services.lokiTables.place(key, (settle) =>
              parseLokiBeside(services.storage, db, table, body, settle, (b, seed) =>
                services.parsers.parse({ format, table, dbUnit, nowNs, seed }, b),
              ),
            );
            return placing.then((p) => ((stored = p.stored), p.out));
          });
        } finally {
          stored?.();
        }
        return reply(h, 'logs', encoding, out.rejected ?? 0, out.rejectedMessage);
      },
    },
  ];
}
