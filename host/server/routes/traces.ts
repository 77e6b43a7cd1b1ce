// POST /api/v1/traces: OTLP/HTTP trace export, protobuf (`application/x-protobuf`) or JSON
// (`application/json`, an extension). `tenant`, `db` and `table` come as headers, as the
// OpenTelemetry exporters send them (query parameters win when both are given); `table` is
// required. Errors carry a JSON body (not one of the spec's empty-body write routes).

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { databaseOf, paramOrHeader, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { mediaType } from './content-type.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';

/** `table` from the query or the header; 400 when absent (CnosDB: "table param is None"). */
export function requiredTable(request: Request): string {
  const table = paramOrHeader(request, 'table');
  if (table === undefined || table === '')
    throw new UserError('logParse', "the 'table' parameter (or header) is required");
  return table;
}

export function traceRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/traces',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        const table = requiredTable(request);
        const type = mediaType(request);
        if (type !== 'application/x-protobuf' && type !== 'application/json') {
          throw new UserError(
            'badHeader',
            `Content-Type '${request.headers['content-type'] ?? ''}' is not supported; send OTLP as application/x-protobuf or application/json`,
          );
        }
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        const format = type === 'application/json' ? 'otlp-json' : 'otlp-protobuf';
        await runWrite(
          ctx,
          request,
          target,
          { format, bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
          ({ body, dbUnit, services }) => services.parsers.parse({ format, table, dbUnit }, body),
        );
        return h.response().code(200);
      },
    },
  ];
}
