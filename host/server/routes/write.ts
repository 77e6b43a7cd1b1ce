// POST /api/v1/write: line protocol, scanned in Wasm (host/ingest/line-protocol.ts), through the
// shared write pipeline (write-pipeline.ts). InfluxDB's /write and /api/v2/write parse the same
// way (influxdb.ts).

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { nowIn, unitConversion, type RequestUnit } from '../../core/precision.js';
import { databaseOf, precisionOf, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { runWrite, WRITE_PAYLOAD, type WriteInput, type WriteOutput } from './write-pipeline.js';

export { WRITE_PAYLOAD };

/**
 * Bodies from this size on are scanned by a parse worker when there is one: the server's thread,
 * which stores every request, is then free for the WAL and the memtable (it was busy all through
 * a load of 1,000 series a body while the worker idled, bench/RESULTS.md). Smaller bodies are
 * scanned here: their scan takes less than the trip to a worker and back.
 */
const WORKER_SCAN_MIN_BYTES = 64 * 1024;

/** Whether lineProtocolParser hands this body to a parse worker (which takes its buffer). */
export function scansInWorker(input: WriteInput): boolean {
  return input.services.parsers.workers > 0 && input.body.length >= WORKER_SCAN_MIN_BYTES;
}

/** The line-protocol parser of a request in `precision` (a point without a time gets the request's clock). */
export function lineProtocolParser(
  precision: RequestUnit,
): (input: WriteInput) => WriteOutput<object> | Promise<WriteOutput<object>> {
  return (input) => {
    const { body, dbUnit, nowMs, services } = input;
    const conv = unitConversion(precision, dbUnit);
    const defaultTs = (nowIn(precision, nowMs) * conv.multiplier) / conv.divisor;
    const options = { tsMultiplier: conv.multiplier, tsDivisor: conv.divisor, defaultTs };
    if (scansInWorker(input)) return services.parsers.parse({ format: 'line-protocol', ...options }, body);
    return { batches: services.lineProtocol.scan(body, options) };
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
