// POST /api/v1/prom/write and /api/v1/prom/read: Prometheus remote write and read 1.0 (snappy
// block-compressed protobuf; `Content-Encoding: snappy` names that framing). Write goes through
// the shared write pipeline; read answers one ReadResponse (the SAMPLES response type, which every
// Prometheus accepts) with the series of the tables its matchers select. Errors carry JSON bodies.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { compressSync } from 'snappy';
import { UserError } from '../../core/errors.js';
import { NANOS_PER, dbUnit, type TimeUnit } from '../../core/precision.js';
import type { SeriesChunk } from '../../core/scan.js';
import { ValueType } from '../../core/write-batch.js';
import {
  encodePromReadResponse,
  matches,
  parsePromRead,
  PROM_NAME_LABEL,
  PROM_VALUE_FIELD,
  type PromQuery,
  type PromSeries,
} from '../../ingest/prometheus-remote.js';
import { type DatabaseDef, requireDatabaseAccess } from '../../meta/index.js';
import { databaseOf, tenantOf } from '../params.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { userOf, type ServerContext } from '../context.js';
import type { Storage } from '../../storage/index.js';
import { mediaType, mediaTypeParameter } from './content-type.js';
import { decodeSnappyBlock } from './snappy-body.js';
import { readTable } from './table-reader.js';
import { contentLength, runWrite, WRITE_PAYLOAD } from './write-pipeline.js';

/** Remote write 2.0 has its own message; refuse it clearly instead of misreading it as 1.0. */
function checkProtobufType(request: Request, message: string): void {
  const type = mediaType(request);
  if (type !== undefined && type !== 'application/x-protobuf') {
    throw new UserError(
      'badHeader',
      `Content-Type '${request.headers['content-type']}' is not supported; send application/x-protobuf`,
    );
  }
  const proto = mediaTypeParameter(request, 'proto');
  if (proto !== undefined && proto !== message) {
    throw new UserError(
      'badHeader',
      `protobuf message '${proto}' is not supported; send ${message} (remote write 1.0)`,
    );
  }
}

export function prometheusRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/prom/write',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        checkProtobufType(request, 'prometheus.WriteRequest');
        const target = { tenant: tenantOf(request), database: databaseOf(request) };
        await runWrite(
          ctx,
          request,
          target,
          { format: 'prom-write', bodyLimitBytes: ctx.config['limits.write_body_bytes'], snappy: true },
          ({ body, dbUnit: unit, services }) => services.parsers.parse({ format: 'prom-write', dbUnit: unit }, body),
        );
        return h.response().code(200);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/prom/read',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        checkProtobufType(request, 'prometheus.ReadRequest');
        const services = ctx.services();
        const tenant = tenantOf(request);
        const db = requireDatabaseAccess(
          services.storage.catalog,
          userOf(request),
          tenant,
          databaseOf(request),
          'read',
        );
        const tenantDef = services.storage.catalog.tenants.get(tenant)!;
        const header = request.headers['content-encoding'] as string | undefined;
        const encoding = header?.trim().toLowerCase() === 'snappy' ? 'identity' : checkContentEncoding(header);
        const limit = ctx.config['limits.sql_body_bytes'];
        const raw = await readBody(request.payload as never, encoding, limit, contentLength(request));
        const queries = parsePromRead(decodeSnappyBlock(raw, limit));
        const results: PromSeries[][] = [];
        // A remote read is a query: it counts against the concurrent-query limit (429 beyond).
        const release = services.queries.acquire(1);
        let releaseTenant = (): void => undefined;
        try {
          releaseTenant = services.tenantLimits.admitQuery(tenantDef);
          for (const q of queries) results.push(await runQuery(services.storage, db, q));
        } finally {
          release();
          releaseTenant();
        }
        const out = compressSync(Buffer.from(encodePromReadResponse(results)));
        services.tenantLimits.chargeDataOut(tenantDef, out.length);
        return h.response(out).type('application/x-protobuf').header('Content-Encoding', 'snappy');
      },
    },
  ];
}

/** The series of every table the query's `__name__` matchers select, with their samples. */
async function runQuery(storage: Storage, db: DatabaseDef, q: PromQuery): Promise<PromSeries[]> {
  const unit = dbUnit(db.options.precision);
  const nameMatchers = q.matchers.filter((m) => m.name === PROM_NAME_LABEL);
  const eq = nameMatchers.find((m) => m.type === 'EQ');
  const tables = eq !== undefined ? (db.tables.has(eq.value) ? [eq.value] : []) : [...db.tables.keys()];
  const series = new Map<string, PromSeries>();
  for (const table of tables) {
    const def = db.tables.get(table)!;
    if (!def.fields.some((f) => f.name === PROM_VALUE_FIELD && f.type === ValueType.Double)) continue;
    const labelOf = (tags: ReadonlyMap<string, string>, name: string): string =>
      name === PROM_NAME_LABEL ? (tags.get(name) ?? table) : (tags.get(name) ?? '');
    const chunks = readTable(storage, db, table, {
      fields: [PROM_VALUE_FIELD],
      minTime: (q.startMs * NANOS_PER.ms) / NANOS_PER[unit],
      maxTime: (q.endMs * NANOS_PER.ms) / NANOS_PER[unit],
      seriesFilter: (tags) => q.matchers.every((m) => matches(m, labelOf(tags, m.name))),
      // An equality to a non-empty value needs the label as a tag ('' also matches a missing one).
      seriesTags: q.matchers
        .filter((m) => m.type === 'EQ' && m.value !== '' && m.name !== PROM_NAME_LABEL)
        .map((m) => ({ tag: m.name, values: [m.value] })),
    });
    for await (const chunk of chunks) addSamples(series, table, chunk, unit);
  }
  const out = [...series.values()];
  for (const s of out) s.samples.sort((a, b) => a.timestamp - b.timestamp);
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}

function addSamples(series: Map<string, PromSeries>, table: string, chunk: SeriesChunk, unit: TimeUnit): void {
  const column = chunk.fields.get(PROM_VALUE_FIELD);
  if (column === undefined) return;
  const labels = [...chunk.tags].filter(([, v]) => v !== '').map(([name, value]) => ({ name, value }));
  if (!chunk.tags.has(PROM_NAME_LABEL)) labels.push({ name: PROM_NAME_LABEL, value: table });
  labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const key = JSON.stringify(labels);
  let s = series.get(key);
  if (s === undefined) series.set(key, (s = { labels, samples: [] }));
  const values = column.values as Float64Array;
  // Database units are ns, us or ms, so this divides exactly into whole milliseconds or truncates.
  const perMs = NANOS_PER.ms / NANOS_PER[unit];
  for (let i = 0; i < chunk.length; i++) {
    if (column.validity !== undefined && column.validity[i] === 0) continue;
    s.samples.push({ value: values[i]!, timestamp: Number(chunk.time[i]! / perMs) });
  }
}

function compareLabels(a: PromSeries['labels'], b: PromSeries['labels']): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
