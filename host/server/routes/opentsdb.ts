// POST /api/v1/opentsdb/write (telnet-style text) and /api/v1/opentsdb/put (OpenTSDB's HTTP JSON),
// both write routes with empty error bodies (CONTRACT.md "Errors"). `precision` is optional: without
// it OpenTSDB's own seconds/milliseconds rule applies. `/put` also answers OpenTSDB's `?summary`
// and `?details` with OpenTSDB's JSON, since Telegraf and other /api/put clients ask for it; a
// request is atomic, so `failed` is always 0 on success.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { RequestUnit } from '../../core/precision.js';
import { parseOpenTsdbText } from '../../ingest/opentsdb-text.js';
import { databaseOf, precisionOf, queryParam, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';
import { jsonBody } from '../json-body.js';

/** The `precision` parameter if given (validated), else undefined. */
function optionalPrecision(request: Request): RequestUnit | undefined {
  return queryParam(request, 'precision') === undefined ? undefined : precisionOf(request);
}

/** OpenTSDB's flags are present-or-absent (`?details`); `false`/`0` also turn them off. */
function flag(request: Request, name: string): boolean {
  const v = queryParam(request, name);
  return v !== undefined && v !== 'false' && v !== '0';
}

export function openTsdbRoutes(ctx: ServerContext): ServerRoute[] {
  const options = { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'empty' as const } } };
  return [
    {
      method: 'POST',
      path: '/api/v1/opentsdb/write',
      options,
      handler: async (request: Request, h: ResponseToolkit) => {
        const precision = optionalPrecision(request);
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        await runWrite(
          ctx,
          request,
          target,
          { format: 'opentsdb-text', bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
          ({ body, dbUnit, services }) => ({
            batches: parseOpenTsdbText(body, { precision, dbUnit, core: services.core }),
          }),
        );
        return h.response().code(200);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/opentsdb/put',
      options,
      handler: async (request: Request, h: ResponseToolkit) => {
        const precision = optionalPrecision(request);
        const details = flag(request, 'details');
        const summary = flag(request, 'summary');
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        const out = await runWrite(
          ctx,
          request,
          target,
          { format: 'opentsdb-json', bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
          ({ body, dbUnit, services }) => services.parsers.parse({ format: 'opentsdb-json', precision, dbUnit }, body),
        );
        if (details) return jsonBody(h, JSON.stringify({ success: out.rows, failed: 0, errors: [] }));
        if (summary) return jsonBody(h, JSON.stringify({ success: out.rows, failed: 0 }));
        return h.response().code(200);
      },
    },
  ];
}
