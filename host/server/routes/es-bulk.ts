// POST|PUT /api/v1/es/_bulk and /api/v1/es/{index}/_bulk (log_type bulk, ndjson, loki), with or
// without a trailing slash, as Elasticsearch's clients and shippers send them: the table is the
// `table` parameter (or header) when given, else each action's `_index`, else the index of the
// path. Bulk answers in Elasticsearch's shape. Called as CnosDB documents it (with `table`), a
// request is atomic and its errors are CnosDB's; called as Elasticsearch (an index names the
// table), a failed document is a failed item (es-bulk.ts in ingest) and errors take
// Elasticsearch's shape and statuses (log-errors.ts) with `X-Elastic-Product: Elasticsearch`,
// which the official clients require on every reply, as every 2xx carries it. `filter_path`
// trims the reply as Elasticsearch does (filter-path.ts).

import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { parseTagColumns } from '../../ingest/log-documents.js';
import { BULK_ACTION_CODES, type ParseResult } from '../../ingest/parse-jobs.js';
import type { ErrorStyle } from '../errors.js';
import { jsonBody } from '../json-body.js';
import { lineCount } from '../log-clock.js';
import { databaseOf, paramOrHeader, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { filterJson } from '../filter-path.js';
import { mediaType } from './content-type.js';
import { ELASTIC_PRODUCT, esPaths } from './es-paths.js';
import { writeLokiPush } from './loki-write.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';

type LogType = 'bulk' | 'ndjson' | 'loki';

/** The time of a document called as Elasticsearch: Beats, Logstash, Fluent Bit and ECS name it so. */
export const ES_TIME_COLUMN = '@timestamp';

/** `log_type`, from the query or a header of the same name. */
function logTypeOf(request: Request): LogType {
  const v = paramOrHeader(request, 'log_type');
  if (v === undefined) return 'bulk';
  const t = v.toLowerCase();
  if (t === 'bulk' || t === 'ndjson' || t === 'loki') return t;
  throw new UserError('badParameter', `invalid log_type '${v}': want bulk, ndjson or loki`);
}

/**
 * The media types of a bulk or NDJSON body: Elasticsearch's (its clients send the vendor types),
 * none, text, and the form type curl sends by default (CnosDB's examples post with curl). Anything
 * else is some other payload sent here by mistake (protobuf, XML, a form upload): 400.
 */
const JSON_LINES = new Set([
  'application/json',
  'application/x-ndjson',
  'application/ndjson',
  'application/nd-json',
  'application/vnd.elasticsearch+json',
  'application/vnd.elasticsearch+x-ndjson',
  'text/plain',
  'application/x-www-form-urlencoded',
]);

function checkJsonLines(request: Request, logType: LogType): void {
  const type = mediaType(request);
  if (type === undefined || JSON_LINES.has(type)) return;
  throw new UserError(
    'badHeader',
    `unsupported Content-Type '${type}' for log_type ${logType}: want application/x-ndjson or application/json`,
  );
}

/**
 * The Elasticsearch bulk reply: one item per action, in order, a failed document with its error.
 * Items that repeat the one before (the same action, index and outcome: nearly all of them) are
 * written as runs with String.repeat: building each of 200,000 items on its own took a tenth of
 * the server thread's time in an ES bulk load.
 */
function bulkReply(out: ParseResult, table: string, tookMs: number): string {
  const actions = out.actions ?? new Uint8Array(0);
  const failures = out.failures ?? [];
  const names = out.tables?.names.map((n) => JSON.stringify(n));
  const fixed = JSON.stringify(table);
  const parts: string[] = [];
  let run = '';
  let runLength = 0;
  const flush = (): void => {
    if (runLength > 0) parts.push(runLength === 1 ? run : `${run},`.repeat(runLength - 1) + run);
  };
  let f = 0;
  // What the run repeats: its action and table (-1: not a run of stored documents).
  let runAction = -1;
  let runTable = -1;
  for (let i = 0; i < actions.length; i++) {
    const tableId = names === undefined ? 0 : out.tables!.of[i]!;
    const failure = failures[f]?.item === i ? failures[f++] : undefined;
    if (failure === undefined && actions[i] === runAction && tableId === runTable) {
      runLength++;
      continue;
    }
    flush();
    const index = names === undefined ? fixed : names[tableId]!;
    const body =
      failure === undefined
        ? `"status":201,"result":"created"`
        : `"status":400,"error":${JSON.stringify({ type: failure.type, reason: failure.reason })}`;
    run = `{"${BULK_ACTION_CODES[actions[i]!]}":{"_index":${index},${body}}}`;
    runLength = 1;
    runAction = failure === undefined ? actions[i]! : -1;
    runTable = tableId;
  }
  flush();
  return `{"took":${tookMs},"errors":${failures.length > 0},"items":[${parts.join(',')}]}`;
}

/** `filter_path`, given once or more (its lists joined). */
function filterPathOf(request: Request): string | undefined {
  const v = request.query.filter_path as string | string[] | undefined;
  return Array.isArray(v) ? v.join(',') : v;
}

export function esBulkRoutes(ctx: ServerContext): ServerRoute[] {
  const handler = async (request: Request, h: ResponseToolkit) => {
    const tableParam = paramOrHeader(request, 'table');
    if (tableParam === '') throw new UserError('logParse', "the 'table' parameter is empty");
    const index = request.params.index as string | undefined;
    const table = tableParam ?? index ?? '';
    const logType = logTypeOf(request);
    if (logType !== 'bulk' && table === '')
      throw new UserError(
        'logParse',
        `the 'table' parameter (or an index in the path, /api/v1/es/{index}/_bulk) is required for log_type ${logType}`,
      );
    // Called as Elasticsearch, the time is `@timestamp`, as shippers name it, or else `time`.
    const esStyle = logType === 'bulk' && tableParam === undefined;
    const timeParam = paramOrHeader(request, 'time_column');
    const timeColumn = timeParam ?? (esStyle ? ES_TIME_COLUMN : 'time');
    const fallbackTimeColumn = timeParam === undefined && esStyle ? 'time' : undefined;
    const tagColumns = [...parseTagColumns(paramOrHeader(request, 'tag_columns'))];
    const target = { tenant: tenantOf(request), database: databaseOf(request) };
    if (logType === 'loki') {
      await writeLokiPush(ctx, request, target, {
        table,
        timeColumn,
        tagColumns,
        protobuf: mediaType(request) === 'application/x-protobuf',
      });
      return h
        .response()
        .code(200)
        .header(...ELASTIC_PRODUCT);
    }
    checkJsonLines(request, logType);
    const out = await runWrite(
      ctx,
      request,
      target,
      { format: logType, bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
      ({ body, dbUnit, services }) => {
        // Documents without a time take the request's, from a clock that never gives one out twice.
        const now = services.logClock.reserve(dbUnit, lineCount(body));
        return services.parsers.parse(
          { format: logType, table, indexTables: esStyle, timeColumn, fallbackTimeColumn, tagColumns, dbUnit, now },
          body,
        );
      },
    );
    if (logType !== 'bulk')
      return h
        .response()
        .code(200)
        .header(...ELASTIC_PRODUCT);
    const reply = bulkReply(out, table, Math.max(0, Date.now() - request.info.received));
    const filter = filterPathOf(request);
    return jsonBody(h, filter === undefined ? reply : filterJson(reply, filter)).header(...ELASTIC_PRODUCT);
  };
  // Called with CnosDB's `table` parameter or its NDJSON and Loki forms, errors are CnosDB's
  // (CONTRACT.md statuses and body); called as Elasticsearch (a bulk body, no `table`), its own.
  const errors = (request: Request): ErrorStyle => {
    const logType = paramOrHeader(request, 'log_type')?.toLowerCase() ?? 'bulk';
    return paramOrHeader(request, 'table') === undefined && logType === 'bulk' ? 'es' : 'json';
  };
  const options = { payload: WRITE_PAYLOAD, plugins: { sundial: { errors } } };
  return [...esPaths('/api/v1/es/_bulk'), ...esPaths('/api/v1/es/{index}/_bulk')].map((path) => ({
    method: ['POST', 'PUT'],
    path,
    options,
    handler,
  }));
}
