// POST /loki/api/v1/push: Loki's push API, as Promtail, Grafana Alloy and winston-loki send it
// (snappy-compressed protobuf `logproto.PushRequest`, or JSON; any Content-Encoding), answered as
// Loki answers: 204, and errors as a line of text at Loki's statuses (log-errors.ts). Where a
// push goes: the tenant is the `tenant` parameter or header, else `X-Scope-OrgID` (Loki's tenant
// header, which those clients set from their `tenant_id`), else `ingest.loki_tenant`; the
// database `db`, else `ingest.loki_database`; the table `table`, else `ingest.loki_table`. None of
// these clients probes another Loki route before pushing, so none is served.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { parseTagColumns } from '../../ingest/log-documents.js';
import { paramOrHeader } from '../params.js';
import type { ServerContext } from '../context.js';
import { mediaType } from './content-type.js';
import { writeLokiPush } from './loki-write.js';
import { WRITE_PAYLOAD } from './write-pipeline.js';

/** Loki's tenant header. */
const ORG_ID = 'x-scope-orgid';

function tenantOf(ctx: ServerContext, request: Request): string {
  const own = paramOrHeader(request, 'tenant');
  if (own !== undefined) return own;
  const org = String(request.headers[ORG_ID] ?? '').trim();
  if (org !== '') return org;
  return ctx.config['ingest.loki_tenant'];
}

/** Protobuf (Loki's default, also without a Content-Type) or JSON; anything else is 400. */
function isProtobuf(request: Request): boolean {
  const type = mediaType(request);
  if (type === undefined || type === 'application/x-protobuf') return true;
  if (type === 'application/json') return false;
  throw new UserError(
    'badHeader',
    `unsupported Content-Type '${type}': a Loki push is application/x-protobuf (snappy) or application/json`,
  );
}

export function lokiRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/loki/api/v1/push',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'loki' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        const protobuf = isProtobuf(request);
        const target = {
          tenant: tenantOf(ctx, request),
          database: paramOrHeader(request, 'db') ?? ctx.config['ingest.loki_database'],
        };
        const table = paramOrHeader(request, 'table') ?? ctx.config['ingest.loki_table'];
        if (table === '') throw new UserError('logParse', "the 'table' parameter is empty");
        const timeColumn = paramOrHeader(request, 'time_column') ?? 'time';
        const tagColumns = [...parseTagColumns(paramOrHeader(request, 'tag_columns'))];
        await writeLokiPush(ctx, request, target, { table, timeColumn, tagColumns, protobuf });
        return h.response().code(204);
      },
    },
  ];
}
