// GET|POST /query: InfluxQL (host/influxql/) as InfluxDB 1.x answers it. Parameters from the URL
// or, on POST, a form body: `q` (statements separated by `;`), `db`, `rp` (ignored), `epoch`,
// `chunked`, `chunk_size`, `pretty`, `u`/`p`, and Sundial's `tenant`. A syntax error is 400
// `{"error":"error parsing query: ..."}`; a statement's failure is its `"error"` in a 200 answer.
// Each request is admitted as one statement (statement.ts: the concurrent-query budget, the
// tenant's limits, SHOW QUERIES, the query timeout) and stops when the client goes away, as
// /api/v1/sql does. Chunked: one JSON object per line, sent as the engine produces rows.

import { Readable } from 'node:stream';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import { PlanCache } from '../../engine/plan-cache.js';
import {
  EPOCH_UNITS,
  executeInfluxQL,
  InfluxQLParseError,
  parseInfluxQL,
  resultsJson,
  type InfluxQLHost,
  type JsonOptions,
  type StatementResult,
} from '../../influxql/index.js';
import { requireMembership, requirePasswordChanged } from '../../meta/index.js';
import { authenticateInflux } from '../influx-auth.js';
import { influxHeaders } from '../influx-errors.js';
import { jsonBody } from '../json-body.js';
import { tenantOf } from '../params.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import type { ServerContext } from '../context.js';
import { startStatement } from '../statement.js';
import { contentLength, WRITE_PAYLOAD } from './write-pipeline.js';
import { requestIdOf, requestLog } from '../monitoring/index.js';

/** InfluxDB's default rows per chunk. */
const DEFAULT_CHUNK_SIZE = 10_000;

const decoder = new TextDecoder('utf-8');

/** The request's parameters: the URL's, then those of a form body (InfluxDB reads r.FormValue). */
async function readParams(ctx: ServerContext, request: Request): Promise<(name: string) => string | undefined> {
  let form: URLSearchParams | undefined;
  if (request.method === 'post') {
    const encoding = checkContentEncoding(request.headers['content-encoding'] as string | undefined);
    const body = await readBody(
      request.payload as never,
      encoding,
      ctx.config['limits.sql_body_bytes'],
      contentLength(request),
    );
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    if (type === 'application/x-www-form-urlencoded') form = new URLSearchParams(decoder.decode(body));
    else if (body.length > 0 && type !== '')
      throw new UserError(
        'badHeader',
        `Content-Type '${type}' is not supported: send the parameters in the URL or as application/x-www-form-urlencoded`,
      );
  }
  return (name) => {
    const v = request.query[name] as unknown;
    if (Array.isArray(v)) throw new UserError('badParameter', `query parameter '${name}' is given ${v.length} times`);
    if (v !== undefined) return String(v);
    return form?.get(name) ?? undefined;
  };
}

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '') return false;
  const l = value.toLowerCase();
  if (l === 'true' || l === '1' || l === 'yes') return true;
  if (l === 'false' || l === '0' || l === 'no') return false;
  throw new UserError('badParameter', `invalid ${name} '${value}': want true or false`);
}

export function influxdbQueryRoutes(ctx: ServerContext): ServerRoute[] {
  // The engine's plan cache is not used by InfluxQL's statements (runStatement); it is only the engine's argument.
  const planCache = new PlanCache();
  const handler = async (request: Request, h: ResponseToolkit): Promise<unknown> => {
    const s = ctx.services();
    const user = await authenticateInflux(ctx, request);
    const tenant = tenantOf(request);
    const catalog = s.storage.catalog;
    const t = requireMembership(catalog, user, tenant);
    requirePasswordChanged(user);
    const param = await readParams(ctx, request);
    const q = param('q');
    if (q === undefined || q.trim() === '') throw new UserError('badParameter', 'missing required parameter "q"');
    const epoch = param('epoch');
    if (epoch !== undefined && epoch !== '' && EPOCH_UNITS[epoch] === undefined)
      throw new UserError('badParameter', `invalid epoch '${epoch}': want ns (or n), u (or us), ms, s, m or h`);
    const chunked = flag(param('chunked'), 'chunked');
    const sizeText = param('chunk_size');
    const chunkSize = sizeText === undefined || sizeText === '' ? DEFAULT_CHUNK_SIZE : Number(sizeText);
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0)
      throw new UserError('badParameter', `invalid chunk_size '${sizeText}': want a positive integer`);
    const json: JsonOptions = {
      ...(epoch === undefined || epoch === '' ? {} : { epoch }),
      pretty: flag(param('pretty'), 'pretty'),
    };
    let statements: ReturnType<typeof parseInfluxQL>;
    try {
      statements = parseInfluxQL(q);
    } catch (e) {
      if (e instanceof InfluxQLParseError) throw new UserError('sqlParse', `error parsing query: ${e.message}`);
      throw e;
    }
    const db = param('db');

    const running = startStatement(ctx.config, ctx.version, s, {
      user,
      tenant: t,
      database: db ?? '',
      sql: q,
      api: 'query',
      bytesIn: q.length,
    });
    // The response's 'close' before it finished is a disconnect (as in /api/v1/sql).
    const res = request.raw.res;
    res.once('close', () => {
      if (!res.writableFinished) running.abort.abort(new UserError('unavailable', 'the client closed the connection'));
    });
    let sentBytes = 0;
    const done = (): void => running.done(sentBytes);
    const session = running.session;
    const engine = s.sql.engine(planCache);
    const host: InfluxQLHost = {
      catalog: s.sql.catalog(tenant),
      defaultDatabase: db === '' ? undefined : db,
      nowNs: session.nowNs,
      authorize: session.authorize!,
      run: (statement, database) => engine.runStatement(statement, { ...session, database }),
      users: () => {
        if (!user.admin)
          throw new UserError('privilege', 'Insufficient privileges, expected [maintainer for all users]');
        return [...catalog.users.values()]
          .map((u) => ({ name: u.name, admin: u.admin }))
          .sort((a, b) => (a.name < b.name ? -1 : 1));
      },
    };
    running.query.state = 'SCHEDULING';
    running.query.requestId = requestIdOf(request);
    const results = executeInfluxQL(statements, host, chunked ? { chunkSize } : {});
    if (!chunked) {
      try {
        const all: StatementResult[] = [];
        for await (const r of results) {
          session.signal.throwIfAborted();
          all.push(r);
        }
        const text = resultsJson(all, json) + '\n';
        sentBytes = Buffer.byteLength(text);
        return influxHeaders(jsonBody(h, text)).code(200);
      } finally {
        done();
      }
    }
    const stream = Readable.from(
      (async function* chunks(): AsyncGenerator<string> {
        try {
          for await (const r of results) {
            const line = resultsJson([r], json) + '\n';
            sentBytes += Buffer.byteLength(line);
            yield line;
          }
        } catch (e) {
          const message = e instanceof UserError ? e.message : 'internal error; see the server log';
          if (!(e instanceof UserError))
            requestLog(ctx.logger, request).error({ err: e, path: request.path }, 'internal error');
          yield JSON.stringify({ error: message }) + '\n';
        } finally {
          done();
        }
      })(),
      { objectMode: false },
    );
    const response = h.response(stream).type('application/json');
    response.charset();
    return influxHeaders(response).code(200);
  };
  const options = { payload: WRITE_PAYLOAD, plugins: { sundial: { auth: false, errors: 'influx' as const } } };
  return [
    { method: 'GET', path: '/query', options: { plugins: options.plugins }, handler },
    { method: 'POST', path: '/query', options, handler },
  ];
}
