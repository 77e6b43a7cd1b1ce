// One document at a time, as Elasticsearch 8's index API takes it: `POST /{index}/_doc` (an id is
// made), `PUT|POST /{index}/_doc/{id}` and `PUT|POST /{index}/_create/{id}`, answered 201 with
// Elasticsearch's body and `Location`. The document goes through the bulk parser as one `create`
// of its index (the body's line breaks, which JSON allows only between tokens, become spaces), so
// its table, time (`@timestamp`, else `time`), tags and errors are the bulk route's. Sundial keeps
// no ids: every call stores a new row, as the bulk route ignores `_id`, and `_create` of an id
// already written is not a 409. `PUT /{index}/_doc` is Elasticsearch's 405.

import { randomBytes } from 'node:crypto';
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { parseTagColumns } from '../../ingest/log-documents.js';
import { jsonBody } from '../json-body.js';
import { databaseOf, paramOrHeader, tenantOf } from '../params.js';
import type { ServerContext } from '../context.js';
import { ELASTIC_PRODUCT, esPaths } from './es-paths.js';
import { ES_TIME_COLUMN } from './es-bulk.js';
import { UNREAD_PAYLOAD } from './fallback.js';
import { runWrite, WRITE_PAYLOAD } from './write-pipeline.js';

/** Elasticsearch's limit on an id, in UTF-8 bytes. */
const MAX_ID_BYTES = 512;

/** An id as Elasticsearch makes them: 20 characters of URL-safe base64 (15 random bytes). */
function newId(): string {
  return randomBytes(15).toString('base64url');
}

/** `body` as one line: JSON allows CR and LF only as white space between tokens. */
function oneLine(body: Buffer): Buffer {
  const out = Buffer.from(body);
  for (let i = out.indexOf(10); i !== -1; i = out.indexOf(10, i + 1)) out[i] = 32;
  for (let i = out.indexOf(13); i !== -1; i = out.indexOf(13, i + 1)) out[i] = 32;
  return out;
}

/** A 400 in Elasticsearch's error shape, for what Elasticsearch refuses with its own type. */
function esFailure(h: ResponseToolkit, type: string, reason: string): ResponseObject {
  const cause = { type, reason };
  return jsonBody(h, JSON.stringify({ error: { root_cause: [cause], ...cause }, status: 400 }))
    .code(400)
    .header(...ELASTIC_PRODUCT);
}

export function esDocRoutes(ctx: ServerContext): ServerRoute[] {
  const handler = async (request: Request, h: ResponseToolkit) => {
    const index = String(request.params.index);
    if (/^[_+-]/.test(index))
      return esFailure(
        h,
        'invalid_index_name_exception',
        `Invalid index name [${index}], must not start with '_', '-', '+'`,
      );
    const given = request.params.id as string | undefined;
    if (given !== undefined && Buffer.byteLength(given) > MAX_ID_BYTES) {
      return esFailure(
        h,
        'action_request_validation_exception',
        `Validation Failed: 1: id [${given}] is too long, must be no longer than ${MAX_ID_BYTES} bytes but was: ${Buffer.byteLength(given)};`,
      );
    }
    const id = given ?? newId();
    const timeParam = paramOrHeader(request, 'time_column');
    const tagColumns = [...parseTagColumns(paramOrHeader(request, 'tag_columns'))];
    const target = { tenant: tenantOf(request), database: databaseOf(request) };
    const action = Buffer.from(`${JSON.stringify({ create: { _index: index } })}\n`);
    const out = await runWrite(
      ctx,
      request,
      target,
      { format: 'bulk', bodyLimitBytes: ctx.config['limits.write_body_bytes'] },
      ({ body, dbUnit, services }) => {
        if (body.length === 0) throw new UserError('logParse', 'request body is required');
        const bulk = Buffer.concat([action, oneLine(body), Buffer.from('\n')]);
        const now = services.logClock.reserve(dbUnit, 1);
        return services.parsers.parse(
          {
            format: 'bulk',
            table: index,
            indexTables: true,
            timeColumn: timeParam ?? ES_TIME_COLUMN,
            fallbackTimeColumn: timeParam === undefined ? 'time' : undefined,
            tagColumns,
            dbUnit,
            now,
          },
          bulk,
        );
      },
    );
    const failure = out.failures?.[0];
    // The bulk parser names the document "line 2" (after its action line); alone, it has no line.
    if (failure !== undefined) return esFailure(h, failure.type, failure.reason.replace(/^line 2: /, ''));
    const reply = {
      _index: index,
      _id: id,
      _version: 1,
      result: 'created',
      _shards: { total: 1, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    };
    return jsonBody(h, JSON.stringify(reply))
      .code(201)
      .header('Location', `/${encodeURIComponent(index)}/_doc/${encodeURIComponent(id)}`)
      .header(...ELASTIC_PRODUCT);
  };
  const options = { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'es' as const } } };
  const wrongMethod = (request: Request, h: ResponseToolkit) =>
    jsonBody(
      h,
      JSON.stringify({
        error: `Incorrect HTTP method for uri [${request.path.replace(/^\/api\/v1\/es/, '')}] and method [${request.method.toUpperCase()}], allowed: [POST]`,
        status: 405,
      }),
    )
      .code(405)
      .header('Allow', 'POST')
      .header(...ELASTIC_PRODUCT);
  return [
    ...esPaths('/api/v1/es/{index}/_doc').map((path): ServerRoute => ({ method: 'POST', path, options, handler })),
    ...esPaths('/api/v1/es/{index}/_doc').map(
      (path): ServerRoute => ({
        method: 'PUT',
        path,
        options: { payload: UNREAD_PAYLOAD, plugins: { sundial: { errors: 'es' as const } } },
        handler: wrongMethod,
      }),
    ),
    ...['_doc', '_create'].flatMap((api) =>
      esPaths(`/api/v1/es/{index}/${api}/{id}`).map(
        (path): ServerRoute => ({ method: ['PUT', 'POST'], path, options, handler }),
      ),
    ),
  ];
}
