// GET /api/v1/export?db=&table=&start=&end= (docs/http-api.md "Export"): one table's rows for a
// time range as an export stream of segment files (storage/export.ts, FORMAT.md §9), for the
// browser sandbox and other local readers. Order of checks: parameters (400 040001), credentials
// (onPreAuth), tenant (422 030010), Read privilege (422 010004), database (422 030017), table
// (422 030019). The body is pulled only as fast as the socket drains, so memory stays that of
// one segment file whatever the table's size; an error after the first byte cuts the stream
// short, which the reader sees as a missing end frame.

import { Readable } from 'node:stream';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { tableNotFound } from '../../core/meta-errors.js';
import { dbUnit, floorDiv, NANOS_PER } from '../../core/precision.js';
import { parseRfc3339Ns } from '../../ingest/rfc3339.js';
import { requireDatabaseAccess } from '../../meta/index.js';
import { EXPORT_MEDIA_TYPE } from '../../storage/index.js';
import { userOf, type ServerContext } from '../context.js';
import { databaseOf, paramOrHeader, queryParam, tenantOf } from '../params.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** `start` / `end`: an RFC 3339 time or integer nanoseconds since the epoch; undefined when absent. */
function timeParam(request: Request, name: 'start' | 'end'): bigint | undefined {
  const v = queryParam(request, name);
  if (v === undefined) return undefined;
  let ns: bigint | string;
  if (/^-?\d+$/.test(v)) ns = BigInt(v);
  else ns = parseRfc3339Ns(v);
  if (typeof ns === 'string')
    throw new UserError('badParameter', `invalid ${name}: ${ns}, or integer nanoseconds since the epoch`);
  if (ns < I64_MIN || ns > I64_MAX)
    throw new UserError('badParameter', `invalid ${name} '${v}': outside the 64-bit nanosecond range`);
  return ns;
}

export function exportRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/export',
      options: { plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        const tenant = tenantOf(request);
        const database = databaseOf(request);
        const table = paramOrHeader(request, 'table');
        if (table === undefined || table === '')
          throw new UserError('badParameter', "the 'table' parameter is required");
        const start = timeParam(request, 'start');
        const end = timeParam(request, 'end');
        if (start !== undefined && end !== undefined && start >= end)
          throw new UserError(
            'badParameter',
            `empty range: start ${start} is not before end ${end} (the range is [start, end))`,
          );
        const s = ctx.services();
        const db = requireDatabaseAccess(s.storage.catalog, userOf(request), tenant, database, 'read');
        const def = db.tables.get(table);
        if (def === undefined) throw tableNotFound(tenant, database, table);
        // [start, end) in nanoseconds as inclusive bounds in the database's unit.
        const unit = NANOS_PER[dbUnit(db.options.precision)];
        const lo = start === undefined ? undefined : -floorDiv(-start, unit);
        const hi = end === undefined ? undefined : -floorDiv(-end, unit) - 1n;
        const chunks = s.storage.exportTable(db, def, { start, end }, lo, hi);
        // The preamble, the schema frame and the first segment's header (or the end frame) before
        // answering: an unreadable segment fails the request with its status, not a cut stream.
        const head: Uint8Array[] = [];
        for (let i = 0; i < 4; i++) {
          const r = await chunks.next();
          if (r.done === true) break;
          head.push(r.value);
        }
        async function* body(): AsyncGenerator<Uint8Array> {
          yield* head;
          yield* chunks;
        }
        const stream = Readable.from(body(), { objectMode: false, highWaterMark: 64 * 1024 });
        const name = `${database}.${table}.sdxp`.replace(/[^\w.-]/g, '_');
        return h
          .response(stream)
          .code(200)
          .type(EXPORT_MEDIA_TYPE)
          .header('Content-Disposition', `attachment; filename="${name}"`);
      },
    },
  ];
}
