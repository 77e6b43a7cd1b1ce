// The Jaeger query API over a traces table (CONTRACT.md "Writes", `/api/v1/traces`), at the
// paths jaeger-query serves (`/api/...`, not under /api/v1), so that Grafana's Jaeger data source
// and the Jaeger UI can be pointed at the server's base URL: `/api/services`,
// `/api/services/{service}/operations`, `/api/operations`, `/api/traces` (search),
// `/api/traces/{id}` and `/api/dependencies`. `tenant`, `db` and `table` come as headers or query
// parameters, as for writes; the user needs Read on the database. Replies use jaeger-query's
// envelope `{"data":...,"total":N,"limit":0,"offset":0,"errors":null}`; a trace that does not
// exist is jaeger-query's 404, and every error (bad parameter, credentials, unknown table) the
// same envelope with `"data":null` and `"errors":[{"code":<status>,"msg":...}]`.

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { dbUnit, NANOS_PER, type TimeUnit } from '../../core/precision.js';
import type { ScanRequest } from '../../core/scan.js';
import { SPAN_COLUMNS as C } from '../../ingest/otlp-traces.js';
import { type DatabaseDef, requireDatabaseAccess, requireTenant } from '../../meta/index.js';
import { databaseOf, queryParam, tenantOf } from '../params.js';
import { userOf, type ServerContext } from '../context.js';
import { assembleTraces, JAEGER_SPAN_KIND, SpanColumnPlan, type SpanRow } from './jaeger-spans.js';
import { readTable, tableFields } from './table-reader.js';
import { requiredTable } from './traces.js';
import { jsonBody } from '../json-body.js';

const DEFAULT_SEARCH_LIMIT = 20;
const DEFAULT_DEPENDENCY_LOOKBACK_MS = 24 * 3600 * 1000;

/**
 * The service graph of some spans, as jaeger-query's own store builds it: one link per parent
 * and child service pair, counting the spans whose CHILD_OF parent is among the spans and runs
 * in another service. Sorted by parent, then child.
 */
export function dependencies(rows: readonly SpanRow[]): Array<{ parent: string; child: string; callCount: number }> {
  const serviceOf = new Map<string, string>();
  for (const r of rows) serviceOf.set(`${r.span.traceID}/${r.span.spanID}`, r.process.serviceName);
  const links = new Map<string, { parent: string; child: string; callCount: number }>();
  for (const r of rows) {
    const child = r.process.serviceName;
    for (const ref of r.span.references) {
      if (ref.refType !== 'CHILD_OF') continue;
      const parent = serviceOf.get(`${ref.traceID}/${ref.spanID}`);
      if (parent === undefined || parent === child) continue;
      const key = JSON.stringify([parent, child]);
      const link = links.get(key);
      if (link === undefined) links.set(key, { parent, child, callCount: 1 });
      else link.callCount++;
    }
  }
  return [...links.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, l]) => l);
}

interface TraceTable {
  db: DatabaseDef;
  table: string;
  unit: TimeUnit;
  ctx: ServerContext;
}

/**
 * Runs a lookup as a query: it counts against the concurrent-query limit and the tenant's query
 * limits (429 beyond).
 */
async function asQuery<T>(ctx: ServerContext, request: Request, run: () => Promise<T>): Promise<T> {
  const services = ctx.services();
  const tenant = requireTenant(services.storage.catalog, userOf(request), tenantOf(request));
  const release = services.queries.acquire(1);
  let releaseTenant = (): void => undefined;
  try {
    releaseTenant = services.tenantLimits.admitQuery(tenant);
    return await run();
  } finally {
    release();
    releaseTenant();
  }
}

function traceTable(ctx: ServerContext, request: Request): TraceTable {
  const table = requiredTable(request);
  const services = ctx.services();
  const db = requireDatabaseAccess(
    services.storage.catalog,
    userOf(request),
    tenantOf(request),
    databaseOf(request),
    'read',
  );
  tableFields(db, table);
  return { db, table, unit: dbUnit(db.options.precision), ctx };
}

function envelope(
  h: ResponseToolkit,
  data: unknown,
  total: number,
  code = 200,
  errors: unknown = null,
): ReturnType<ResponseToolkit['response']> {
  return jsonBody(h, JSON.stringify({ data, total, limit: 0, offset: 0, errors })).code(code);
}

/** Distinct values of `pick` over every row, sorted. */
async function distinct<T>(
  t: TraceTable,
  request: ScanRequest,
  pick: (tags: ReadonlyMap<string, string>, kind: string | undefined) => T | undefined,
): Promise<T[]> {
  const seen = new Map<string, T>();
  for await (const chunk of readTable(t.ctx.services().storage, t.db, t.table, request)) {
    const kinds = chunk.fields.get(C.kind);
    for (let i = 0; i < chunk.length; i++) {
      const kind = kinds === undefined || kinds.validity?.[i] === 0 ? undefined : (kinds.values[i] as string);
      const v = pick(chunk.tags, kind);
      if (v !== undefined) seen.set(JSON.stringify(v), v);
    }
  }
  return [...seen.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, v]) => v);
}

/** Every span of the table that passes the scan request, as Jaeger spans. */
async function readSpans(t: TraceTable, request: Omit<ScanRequest, 'fields'>): Promise<SpanRow[]> {
  const fields = tableFields(t.db, t.table);
  const plan = new SpanColumnPlan(fields);
  const rows: SpanRow[] = [];
  for await (const chunk of readTable(t.ctx.services().storage, t.db, t.table, { ...request, fields })) {
    for (let i = 0; i < chunk.length; i++) rows.push(plan.span(chunk, i, t.unit));
  }
  return rows;
}

/** Lowercase, zero-padded to 32 digits (some clients drop leading zeros). */
function normalizeTraceId(id: string): string {
  const v = id.trim().toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(v))
    throw new UserError('badParameter', `invalid trace id '${id.slice(0, 64)}': want up to 32 hex digits`);
  return v.padStart(32, '0');
}

function integerParam(request: Request, name: string): number | undefined {
  const v = queryParam(request, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new UserError('badParameter', `invalid ${name} '${v.slice(0, 40)}': want an integer`);
  return Number(v);
}

/** Go's duration units in nanoseconds: `us` and both micro signs (U+00B5, U+03BC) are microseconds. */
const DURATION_UNITS_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  '\u00b5s': 1000n,
  '\u03bcs': 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const GO_DURATION_MAX_NS = 2n ** 63n - 1n;

/**
 * A duration as Go's time.ParseDuration reads it (Jaeger's minDuration and maxDuration), in
 * nanoseconds: an optional sign, then one or more decimal numbers each with a unit (`1.5h`,
 * `.5s`, `5.s`, `1h30m`, `-1m`), or a bare `0`; at most 2^63-1 ns. Fractions are exact to the
 * nanosecond (Go truncates, as here).
 */
export function parseGoDuration(text: string, name: string): number {
  const bad = (): UserError =>
    new UserError(
      'badParameter',
      `invalid ${name} '${text.slice(0, 40)}': want a Go duration such as 1.5s, 100ms or 1h30m`,
    );
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw bad();
  const re = /(\d*)(?:\.(\d*))?(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/uy;
  let total = 0n;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (m === null || (m[1] === '' && (m[2] ?? '') === '')) throw bad();
    const unit = DURATION_UNITS_NS[m[3]!]!;
    const fraction = m[2] ?? '';
    total +=
      BigInt(m[1] === '' ? 0 : m[1]!) * unit +
      (fraction === '' ? 0n : (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length));
    if (total > GO_DURATION_MAX_NS) throw bad();
    pos = re.lastIndex;
  }
  return Number(negative ? -total : total);
}

/** The search's tag filter: `tags` (a JSON object) and repeated `tag=key:value`. */
function tagFilter(request: Request): Map<string, string> {
  const out = new Map<string, string>();
  const json = queryParam(request, 'tags');
  if (json !== undefined && json !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new UserError('badParameter', `invalid tags '${json.slice(0, 60)}': want a JSON object of strings`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UserError('badParameter', 'invalid tags: want a JSON object of strings');
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) out.set(k, String(v));
  }
  const raw = request.query.tag as string | string[] | undefined;
  for (const t of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
    const colon = t.indexOf(':');
    if (colon <= 0) throw new UserError('badParameter', `invalid tag '${t.slice(0, 60)}': want key:value`);
    out.set(t.slice(0, colon), t.slice(colon + 1));
  }
  return out;
}

function spanHasTags(row: SpanRow, wanted: ReadonlyMap<string, string>): boolean {
  for (const [k, v] of wanted) {
    const hit =
      row.span.tags.some((t) => t.key === k && String(t.value) === v) ||
      row.process.tags.some((t) => t.key === k && String(t.value) === v);
    if (!hit) return false;
  }
  return true;
}

export function jaegerRoutes(ctx: ServerContext): ServerRoute[] {
  const options = { plugins: { sundial: { errors: 'jaeger' as const } } };
  const microsToUnit = (us: number | undefined, unit: TimeUnit): bigint | undefined =>
    us === undefined ? undefined : (BigInt(us) * NANOS_PER.us) / NANOS_PER[unit];
  return [
    {
      method: 'GET',
      path: '/api/services',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          const data = await distinct(t, { fields: [] }, (tags) => tags.get(C.serviceName));
          return envelope(h, data, data.length);
        }),
    },
    {
      method: 'GET',
      path: '/api/services/{service}/operations',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          const service = request.params.service as string;
          const data = await distinct(
            t,
            {
              fields: [],
              seriesFilter: (tags) => tags.get(C.serviceName) === service,
              seriesTags: [{ tag: C.serviceName, values: [service] }],
            },
            (tags) => tags.get(C.name),
          );
          return envelope(h, data, data.length);
        }),
    },
    {
      method: 'GET',
      path: '/api/operations',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          const service = queryParam(request, 'service');
          if (service === undefined || service === '')
            throw new UserError('badParameter', "the 'service' parameter is required");
          const spanKind = queryParam(request, 'spanKind') ?? '';
          const data = await distinct(
            t,
            {
              fields: [C.kind],
              seriesFilter: (tags) => tags.get(C.serviceName) === service,
              seriesTags: [{ tag: C.serviceName, values: [service] }],
            },
            (tags, kind) => {
              const jaegerKind = JAEGER_SPAN_KIND[kind ?? ''] ?? 'unspecified';
              if (spanKind !== '' && jaegerKind !== spanKind) return undefined;
              return { name: tags.get(C.name) ?? '', spanKind: jaegerKind };
            },
          );
          return envelope(h, data, data.length);
        }),
    },
    {
      method: 'GET',
      path: '/api/dependencies',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          // jaeger-query's parameters, in milliseconds: the window ends at `endTs` (default now)
          // and reaches back `lookback` (default 24 hours).
          const endMs = integerParam(request, 'endTs') ?? Date.now();
          const lookbackMs = integerParam(request, 'lookback') ?? DEFAULT_DEPENDENCY_LOOKBACK_MS;
          const msToUnit = (ms: number): bigint => (BigInt(ms) * NANOS_PER.ms) / NANOS_PER[t.unit];
          const rows = await readSpans(t, { minTime: msToUnit(endMs - lookbackMs), maxTime: msToUnit(endMs) });
          return envelope(h, dependencies(rows), 0);
        }),
    },
    {
      method: 'GET',
      path: '/api/traces/{traceId}',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          const id = normalizeTraceId(request.params.traceId as string);
          const traces = assembleTraces(
            await readSpans(t, {
              seriesFilter: (tags) => tags.get(C.traceId) === id,
              seriesTags: [{ tag: C.traceId, values: [id] }],
            }),
          );
          if (traces.length === 0) return envelope(h, null, 0, 404, [{ code: 404, msg: 'trace not found' }]);
          return envelope(h, traces, 0);
        }),
    },
    {
      method: 'GET',
      path: '/api/traces',
      options,
      handler: (request, h) =>
        asQuery(ctx, request, async () => {
          const t = traceTable(ctx, request);
          const ids = request.query.traceID as string | string[] | undefined;
          if (ids !== undefined) {
            const wanted = new Set(
              (Array.isArray(ids) ? ids : [ids])
                .flatMap((s) => s.split(','))
                .filter((s) => s !== '')
                .map(normalizeTraceId),
            );
            const traces = assembleTraces(
              await readSpans(t, {
                seriesFilter: (tags) => wanted.has(tags.get(C.traceId) ?? ''),
                seriesTags: [{ tag: C.traceId, values: [...wanted] }],
              }),
            );
            return envelope(h, traces, traces.length);
          }
          const service = queryParam(request, 'service');
          const operation = queryParam(request, 'operation');
          const start = integerParam(request, 'start');
          const end = integerParam(request, 'end');
          const limit = integerParam(request, 'limit') ?? DEFAULT_SEARCH_LIMIT;
          const minDuration = queryParam(request, 'minDuration');
          const maxDuration = queryParam(request, 'maxDuration');
          // An empty parameter is not given (jaeger-query's form sends them empty); `0` is a duration.
          const minUs =
            minDuration !== undefined && minDuration !== ''
              ? parseGoDuration(minDuration, 'minDuration') / 1000
              : undefined;
          const maxUs =
            maxDuration !== undefined && maxDuration !== ''
              ? parseGoDuration(maxDuration, 'maxDuration') / 1000
              : undefined;
          const tags = tagFilter(request);
          const candidates = await readSpans(t, {
            minTime: microsToUnit(start, t.unit),
            maxTime: microsToUnit(end, t.unit),
            seriesFilter: (s) =>
              (!service || s.get(C.serviceName) === service) && (!operation || s.get(C.name) === operation),
            seriesTags: [
              ...(service ? [{ tag: C.serviceName, values: [service] }] : []),
              ...(operation ? [{ tag: C.name, values: [operation] }] : []),
            ],
          });
          // The most recent `limit` traces with a matching span, returned whole.
          const latest = new Map<string, number>();
          for (const row of candidates) {
            const d = row.span.duration;
            if ((minUs !== undefined && d < minUs) || (maxUs !== undefined && d > maxUs) || !spanHasTags(row, tags))
              continue;
            latest.set(row.span.traceID, Math.max(latest.get(row.span.traceID) ?? -Infinity, row.span.startTime));
          }
          const chosen = new Set(
            [...latest]
              .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
              .slice(0, Math.max(0, limit))
              .map(([id]) => id),
          );
          const traces =
            chosen.size === 0
              ? []
              : assembleTraces(
                  await readSpans(t, {
                    seriesFilter: (s) => chosen.has(s.get(C.traceId) ?? ''),
                    seriesTags: [{ tag: C.traceId, values: [...chosen] }],
                  }),
                );
          traces.sort(
            (a, b) => (latest.get(b.traceID) ?? 0) - (latest.get(a.traceID) ?? 0) || (a.traceID < b.traceID ? -1 : 1),
          );
          return envelope(h, traces, traces.length);
        }),
    },
  ];
}
