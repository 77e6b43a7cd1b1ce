// POST /api/v1/sql (CONTRACT.md "SQL"). Order of checks: parameters, credentials (onPreAuth),
// tenant, Accept, Content-Encoding, the body (size limit), a pending password change (only that
// statement is allowed), then statement.ts: the concurrent-query budget and the tenant's limits
// (429), the query registry, the query timeout (500 010010), the session whose privileges
// access.ts checks. A query stops when the client goes away. Without `chunked` the whole formatted result is sent with a Content-Length; with
// it the batches are formatted and sent as the engine produces them, pulled only as fast as the
// socket drains (constant memory), and an error after the first byte ends the stream with the
// error object as the trailer.

import { Readable } from 'node:stream';
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import type { RecordBatch } from '../../engine/batch.js';
import { PlanCache } from '../../engine/plan-cache.js';
import { requireMembership } from '../access.js';
import { headerSafe, toUserError } from '../errors.js';
import { booleanParam, databaseOf, tenantOf } from '../params.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { userOf, type ServerContext } from '../server.js';
import { requireOnlyPasswordChange, sqlEngine, startStatement } from '../statement.js';
import { createResultWriter, negotiateFormat, streamErrorTrailer, type ResultFormat, type ResultWriter } from '../../engine/format/index.js';
import { contentLength, WRITE_PAYLOAD } from './write-pipeline.js';

const decoder = new TextDecoder('utf-8');

/**
 * The formatted result as a readable stream: each read pulls one batch from the engine, so the
 * engine runs exactly as fast as the client takes the bytes. `first` is the batch already pulled
 * (to report errors before the response starts) or undefined when there was none.
 */
class ResultStream extends Readable {
  readonly #it: AsyncIterator<RecordBatch>;
  readonly #writer: ResultWriter;
  readonly #format: ResultFormat;
  readonly #done: () => void;
  readonly #log: (err: UserError) => void;
  readonly #sent: (bytes: number) => void;
  #first: RecordBatch | undefined;
  #ended = false;
  #pulling = false;

  constructor(
    it: AsyncIterator<RecordBatch>,
    first: RecordBatch | undefined,
    writer: ResultWriter,
    format: ResultFormat,
    done: () => void,
    log: (err: UserError) => void,
    sent: (bytes: number) => void,
  ) {
    super({ highWaterMark: 64 * 1024 });
    this.#sent = sent;
    this.#it = it;
    this.#first = first;
    this.#writer = writer;
    this.#format = format;
    this.#done = done;
    this.#log = log;
    if (first === undefined) this.#finish(writer.end());
  }

  #finish(bytes: Uint8Array | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    if (bytes !== undefined && bytes.length > 0) this.push(bytes);
    this.push(null);
    this.#done();
  }

  override push(chunk: Uint8Array | null): boolean {
    if (chunk !== null) this.#sent(chunk.length);
    return super.push(chunk);
  }

  override _read(): void {
    if (this.#ended || this.#pulling) return;
    if (this.#first !== undefined) {
      const b = this.#first;
      this.#first = undefined;
      this.push(this.#writer.write(b));
      return;
    }
    this.#pulling = true;
    void this.#pull();
  }

  async #pull(): Promise<void> {
    try {
      for (;;) {
        const r = await this.#it.next();
        if (this.#ended) return;
        if (r.done === true) {
          this.#finish(this.#writer.end());
          return;
        }
        const bytes = this.#writer.write(r.value);
        if (bytes.length === 0) continue;
        this.#pulling = false;
        this.push(bytes);
        return;
      }
    } catch (e) {
      const err = e instanceof UserError ? e : new UserError('internal', e instanceof Error && e.message.startsWith('BUG:') ? e.message : 'internal error; see the server log');
      this.#log(err);
      this.#finish(streamErrorTrailer(this.#format, err.code, err.message));
    } finally {
      this.#pulling = false;
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#ended) {
      this.#ended = true;
      void this.#it.return?.();
      this.#done();
    }
    callback(error);
  }
}

export function sqlRoutes(ctx: ServerContext): ServerRoute[] {
  const planCache = new PlanCache();
  return [
    {
      method: 'POST',
      path: '/api/v1/sql',
      options: {
        payload: WRITE_PAYLOAD,
        plugins: { sundial: { errors: 'json' } },
      },
      handler: async (request: Request, h: ResponseToolkit) => {
        const s = ctx.services();
        const tenant = tenantOf(request);
        const database = databaseOf(request);
        const chunked = booleanParam(request, 'chunked', false);
        const user = userOf(request);
        const catalog = s.storage.catalog;
        const t = requireMembership(catalog, user, tenant);
        const { format, contentType } = negotiateFormat(request.headers.accept as string | undefined);
        const encoding = checkContentEncoding(request.headers['content-encoding'] as string | undefined);
        const body = await readBody(request.payload as never, encoding, ctx.config['limits.sql_body_bytes'], contentLength(request));
        const sql = decoder.decode(body);
        if (user.mustChangePassword) requireOnlyPasswordChange(sql, user);
        const { session, abort, query, done: finish } = startStatement(ctx.config, ctx.version, s, { user, tenant: t, database, sql, api: 'api/v1/sql', bytesIn: body.length });
        // The response's 'close' before it finished is a disconnect (hapi's request.events would
        // build an event emitter per request for the same thing).
        const res = request.raw.res;
        res.once('close', () => {
          if (!res.writableFinished) abort.abort(new UserError('unavailable', 'the client closed the connection'));
        });
        let sentBytes = 0;
        const done = (): void => finish(sentBytes);
        query.state = 'SCHEDULING';
        // Damaged segment files the reads left out (storage.skip_damaged_segments), for the warning header.
        const skipped = new Set<string>();
        const warn = (res: ResponseObject): ResponseObject =>
          skipped.size === 0 ? res : res.header('X-Sundial-Warning', headerSafe(`skipped damaged segment files: ${[...skipped].join(', ')}`));
        const engine = sqlEngine(s, planCache, skipped);
        try {
          const result = await engine.run(sql, session);
          if (result.kind === 'done') {
            done();
            return h.response().code(200).type(contentType).charset();
          }
          const writer = createResultWriter(format, result.schema);
          const it = result.batches[Symbol.asyncIterator]();
          if (!chunked) {
            const parts: Uint8Array[] = [];
            for (let r = await it.next(); r.done !== true; r = await it.next()) parts.push(writer.write(r.value));
            parts.push(writer.end());
            const out = Buffer.concat(parts);
            sentBytes = out.length;
            done();
            return warn(h.response(out).code(200).type(contentType)).charset();
          }
          // Pull the first batch before answering, so that an early error still gets its status.
          const first = await it.next();
          const log = (err: UserError): void => {
            if (err.status >= 500) ctx.logger.warn({ code: err.code, msg: err.message }, 'query failed while streaming');
          };
          const stream = new ResultStream(it, first.done === true ? undefined : first.value, writer, format, done, log, (n) => (sentBytes += n));
          // Only files skipped by the time the first batch came: the header goes out with it.
          return warn(h.response(stream).code(200).type(contentType)).charset();
        } catch (e) {
          done();
          throw toUserError(e, ctx.logger, request);
        }
      },
    },
  ];
}
