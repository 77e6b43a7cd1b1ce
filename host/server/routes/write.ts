// POST /api/v1/write: line protocol, scanned in Wasm (host/ingest/line-protocol.ts), through the
// shared write pipeline (write-pipeline.ts). InfluxDB's /write and /api/v2/write parse the same
// way (influxdb.ts).

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { nowIn, unitConversion, type RequestUnit } from '../../core/precision.js';
import { databaseOf, precisionOf, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { runWrite, WRITE_PAYLOAD, type WriteInput, type WriteOutput } from './write-pipeline.js';

export { WRITE_PAYLOAD };

/** The line-protocol parser of a request in `precision` (a point without a time gets the request's clock). */
export function lineProtocolParser(precision: RequestUnit): (input: WriteInput) => WriteOutput<object> {
  return ({ body, dbUnit, nowMs, services }) => {
    const conv = unitConversion(precision, dbUnit);
    const defaultTs = (nowIn(precision, nowMs) * conv.multiplier) / conv.divisor;
    return {
      batches: services.lineProtocol.scan(body, { tsMultiplier: conv.multiplier, tsDivisor: conv.divisor, defaultTs }),
    };
  };
}

export function writeRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/write',
      options: {
        payload: WRITE_PAYLOAD,
        plugins: { sundial: { errors: 'empty' } },
      },
      handler: async (request: Request, h: ResponseToolkit) => {
        const precision = precisionOf(request);
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        await runWrite(
          ctx,
          request,
          target,
          { format: 'line-protocol', bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
          lineProtocolParser(precision),
        );
        return h.response().code(200);
      },
    },
  ];
}
