// POST /api/v1/write: line protocol into the database (CONTRACT.md "Writes"). Order of checks:
// parameters, credentials (onPreAuth), tenant and database, memtable capacity, Content-Encoding,
// then the body is read, scanned in Wasm and stored as one atomic, durable request.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { dbUnit, nowIn, unitConversion } from '../../core/precision.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { databaseOf, precisionOf, tenantOf } from '../params.js';
import { userOf, type ServerContext } from '../server.js';
import { requireDatabaseAccess } from '../access.js';

export const WRITE_PAYLOAD = { output: 'stream', parse: false, maxBytes: Number.MAX_SAFE_INTEGER, timeout: false } as const;

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
        const s = ctx.services();
        const precision = precisionOf(request);
        const db = requireDatabaseAccess(s.storage.catalog, userOf(request), tenantOf(request), databaseOf(request), 'write');
        s.storage.checkWriteCapacity();
        const encoding = checkContentEncoding(request.headers['content-encoding'] as string | undefined);
        const body = await readBody(request.payload as never, encoding, ctx.config['limits.write_body_bytes'], contentLength(request));
        const release = s.writeBytes.acquire(body.length);
        try {
          const unit = dbUnit(db.options.precision);
          const conv = unitConversion(precision, unit);
          const defaultTs = (nowIn(precision, s.nowMs()) * conv.multiplier) / conv.divisor;
          const batches = s.lineProtocol.scan(body, { tsMultiplier: conv.multiplier, tsDivisor: conv.divisor, defaultTs });
          await s.storage.write(db, batches);
        } finally {
          release();
        }
        return h.response().code(200);
      },
    },
  ];
}

export function contentLength(request: Request): number | undefined {
  const v = request.headers['content-length'];
  return v === undefined ? undefined : Number(v);
}
