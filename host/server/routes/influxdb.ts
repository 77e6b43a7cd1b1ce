// InfluxDB's write side at its fixed paths (CONTRACT.md "Server"): GET|HEAD /ping, POST /write
// (1.x: `db`, `rp` ignored, `precision`, `u`/`p`) and POST /api/v2/write (`org` is the tenant,
// `bucket` the database, `db/rp` taking the db part). Line protocol goes through the same parser
// and write pipeline as /api/v1/write, so the two ingest at the same rate; success is InfluxDB's
// 204, failures its JSON bodies and statuses (influx-errors.ts). /query is influxdb-query.ts.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import type { RequestUnit } from '../../core/precision.js';
import { DEFAULT_TENANT } from '../../meta/index.js';
import { authenticateInflux } from '../influx-auth.js';
import { influxHeaders, INFLUXDB_VERSION } from '../influx-errors.js';
import { jsonBody } from '../json-body.js';
import { booleanParam, paramOrHeader, precisionOf, queryParam, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { lineProtocolParser, scansInWorker } from './write.js';
import { runWrite, WRITE_PAYLOAD, type WriteInput, type WriteOutput, type WriteTarget } from './write-pipeline.js';

const MAX_QUOTED_LINE = 200;

/** Line `n` (1-based) of `body`, clipped, without scanning past it. */
function lineOf(body: Buffer, n: number): string {
  let start = 0;
  for (let i = 1; i < n; i++) {
    const nl = body.indexOf(10, start);
    if (nl < 0) return '';
    start = nl + 1;
  }
  const nl = body.indexOf(10, start);
  const end = Math.min(nl < 0 ? body.length : nl, start + MAX_QUOTED_LINE);
  return body.subarray(start, end).toString('utf8').replace(/\r$/, '');
}

/** The line-protocol parser with InfluxDB's wording of a parse error: `unable to parse '<line>': <why>`. */
function influxLineProtocolParser(
  precision: RequestUnit,
): (input: WriteInput) => WriteOutput<object> | Promise<WriteOutput<object>> {
  const parse = lineProtocolParser(precision);
  return (input) => {
    // A parse worker takes the body's buffer: keep a copy to quote the failing line from (one
    // memcpy, small beside storing the body's rows).
    const body = scansInWorker(input) ? Buffer.from(input.body) : input.body;
    const reword = (e: unknown): never => {
      const at = e instanceof UserError && e.kind === 'lineProtocol' ? /^line (\d+)/.exec(e.message) : null;
      if (at === null) throw e;
      throw new UserError(
        'lineProtocol',
        `unable to parse '${lineOf(body, Number(at[1]))}': ${(e as UserError).message}`,
        { cause: e },
      );
    };
    try {
      const out = parse(input);
      return out instanceof Promise ? out.catch(reword) : out;
    } catch (e) {
      return reword(e);
    }
  };
}

/** Writes line protocol to `target`; an unknown database is InfluxDB's 404 `database not found: "x"`. */
async function writeLineProtocol(
  ctx: ServerContext,
  request: Request,
  target: WriteTarget,
  notFound: (db: string) => string,
): Promise<void> {
  const precision = precisionOf(request);
  try {
    await runWrite(
      ctx,
      request,
      target,
      { format: 'line-protocol', bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
      influxLineProtocolParser(precision),
    );
  } catch (e) {
    if (e instanceof UserError && e.kind === 'databaseNotFound')
      throw new UserError('databaseNotFound', notFound(target.database), { cause: e });
    throw e;
  }
}

export function influxdbRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/ping',
      options: { plugins: { sundial: { auth: false, errors: 'influx' } } },
      handler: (request: Request, h: ResponseToolkit) => {
        // Starting up or shutting down: 503 (ServerContext.services throws it).
        ctx.services();
        if (booleanParam(request, 'verbose', false))
          return influxHeaders(jsonBody(h, JSON.stringify({ version: INFLUXDB_VERSION }))).code(200);
        return influxHeaders(h.response().code(204));
      },
    },
    {
      method: 'POST',
      path: '/write',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { auth: false, errors: 'influx' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        await authenticateInflux(ctx, request);
        const db = queryParam(request, 'db');
        if (db === undefined || db === '') throw new UserError('badParameter', 'database is required');
        await writeLineProtocol(
          ctx,
          request,
          { tenant: tenantOf(request), database: db },
          (name) => `database not found: "${name}"`,
        );
        return influxHeaders(h.response().code(204));
      },
    },
    {
      method: 'POST',
      path: '/api/v2/write',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { auth: false, errors: 'influx2' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        await authenticateInflux(ctx, request);
        const bucket = queryParam(request, 'bucket');
        if (bucket === undefined || bucket === '') throw new UserError('badParameter', 'bucket is required');
        // InfluxDB 1.8 maps a bucket `db/rp` to database db, retention policy rp (one policy here).
        const database = bucket.split('/')[0]!;
        const tenant = queryParam(request, 'org') || paramOrHeader(request, 'tenant') || DEFAULT_TENANT;
        await writeLineProtocol(ctx, request, { tenant, database }, (name) => `bucket "${name}" not found`);
        return influxHeaders(h.response().code(204));
      },
    },
  ];
}
