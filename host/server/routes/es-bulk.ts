// POST /api/v1/es/_bulk (log_type bulk, ndjson, loki) and the handshake routes that log shippers
// and the Elasticsearch clients probe first, answered as CnosDB answers them (no credentials,
// `X-Elastic-Product: Elasticsearch`, which the official clients require on every 2xx reply).
// Errors carry a JSON body: this is not one of the spec's empty-body write routes.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { parseTagColumns } from '../../ingest/log-documents.js';
import { BULK_ACTION_CODES } from '../../ingest/parse-jobs.js';
import { databaseOf, paramOrHeader, queryParam, tenantOf } from '../params.js';
import type { ServerContext } from '../server.js';
import { mediaType } from './content-type.js';
import { UNREAD_PAYLOAD } from './fallback.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';
import { jsonBody } from '../json-body.js';
import { lineCount } from '../log-clock.js';
import { parseLokiBeside } from '../loki-placement.js';

type LogType = 'bulk' | 'ndjson' | 'loki';

const ELASTIC_PRODUCT = ['X-Elastic-Product', 'Elasticsearch'] as const;
/** The version the handshake reports (CnosDB's); shippers pick their protocol by it. */
const ES_VERSION = '8.4.0';

function logTypeOf(request: Request): LogType {
  const v = queryParam(request, 'log_type');
  if (v === undefined) return 'bulk';
  const t = v.toLowerCase();
  if (t === 'bulk' || t === 'ndjson' || t === 'loki') return t;
  throw new UserError('badParameter', `invalid log_type '${v}': want bulk, ndjson or loki`);
}

export function esRoutes(ctx: ServerContext): ServerRoute[] {
  const open = { plugins: { sundial: { auth: false, errors: 'json' as const } } };
  // The stubs take any method, so any body: never read (a template a shipper PUTs is not JSON hapi must parse).
  const stub = (path: string): ServerRoute => ({
    method: '*',
    path,
    options: { ...open, payload: UNREAD_PAYLOAD },
    handler: (_r: Request, h: ResponseToolkit) => h.response().code(200).header(...ELASTIC_PRODUCT),
  });
  return [
    {
      method: 'POST',
      path: '/api/v1/es/_bulk',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        const table = paramOrHeader(request, 'table');
        if (table === undefined || table === '') throw new UserError('logParse', "the 'table' parameter is required");
        const logType = logTypeOf(request);
        const timeColumn = queryParam(request, 'time_column') ?? 'time';
        const tagColumns = [...parseTagColumns(queryParam(request, 'tag_columns'))];
        const protobufBody = logType === 'loki' && mediaType(request) === 'application/x-protobuf';
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        // Loki: a push counts as placed from its parse until it is stored (loki-placement.ts).
        let stored: (() => void) | undefined;
        let out;
        try {
          out = await runWrite(
            ctx,
            request,
            target,
            { bodyLimitBytes: ctx.config['limits.write_body_bytes'], snappy: protobufBody },
            ({ body, db, dbUnit, services }) => {
              if (logType === 'loki') {
                // Loki entries carry their own times, placed beside what the table holds.
                const format = protobufBody ? 'loki-protobuf' : 'loki-json';
                const key = `${target.tenant}\u0000${target.database}\u0000${table}`;
                const placing = services.lokiTables.place(key, (settle) =>
                  parseLokiBeside(services.storage, db, table, body, settle, (b, seed) =>
                    services.parsers.parse({ format, table, timeColumn, tagColumns, dbUnit, now: 0n, seed }, b),
                  ),
                );
                return placing.then((p) => ((stored = p.stored), p.out));
              }
              // Bulk and NDJSON documents may carry no time.
              const now = services.logClock.reserve(dbUnit, lineCount(body));
              return services.parsers.parse({ format: logType, table, timeColumn, tagColumns, dbUnit, now }, body);
            },
          );
        } finally {
          stored?.();
        }
        if (logType !== 'bulk') return h.response().code(200);
        const items = Array.from(out.actions ?? [], (a) => `{"${BULK_ACTION_CODES[a]}":{"status":201}}`).join(',');
        const took = Math.max(0, Date.now() - request.info.received);
        return jsonBody(h, `{"took":${took},"errors":false,"items":[${items}]}`).header(...ELASTIC_PRODUCT);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/es',
      options: open,
      handler: (_r: Request, h: ResponseToolkit) =>
        jsonBody(h, JSON.stringify({ version: { number: ES_VERSION } })).header(...ELASTIC_PRODUCT),
    },
    {
      method: 'GET',
      path: '/api/v1/es/_license',
      options: open,
      handler: (_r: Request, h: ResponseToolkit) =>
        jsonBody(
          h,
          JSON.stringify({
            // CnosDB's reply, plus `type`, the key Elasticsearch itself (and Beats) use.
            license: { uid: 'cbff45e7-c553-41f7-ae4f-9205eabd80xx', type: 'oss', license_type: 'oss', status: 'active', expiry_date_in_millis: 4000000000000 },
          }),
        ).header(...ELASTIC_PRODUCT),
    },
    stub('/api/v1/es/_ingest/{rest*}'),
    stub('/api/v1/es/_nodes/{rest*}'),
    stub('/api/v1/es/_ilm/policy/{rest*}'),
    stub('/api/v1/es/_index_template/{rest*}'),
  ];
}
