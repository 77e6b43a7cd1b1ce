// POST /api/v1/sql (CONTRACT.md "SQL"). Order of checks: parameters, credentials (onPreAuth),
// tenant, Accept, Content-Encoding, the body (size limit), a pending password change (only that
// statement is allowed), then statement.ts: the concurrent-query budget and the tenant's limits
// (429), the query registry, the query timeout (500 010010), the session whose privileges
// meta/access.ts checks. A query stops when the client goes away. Without `chunked` a formatted result
// of up to BUFFERED_ANSWER_BYTES is sent whole with a Content-Length, and a bigger one streams
// like chunked mode from there; with `chunked` the batches are formatted and sent as the engine
// produces them, pulled only as fast as the socket drains (constant memory). An error after the
// first byte ends the stream with the error object as the trailer.

import { Readable } from 'node:stream';
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { UserError } from '../../core/errors.js';
import type { RecordBatch } from '../../engine/types/index.js';
import { PlanCache } from '../../engine/plan-cache.js';
import { requireMembership } from '../../meta/index.js';
import { headerSafe, toUserError } from '../errors.js';
import { booleanParam, databaseOf, tenantOf } from '../params.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { userOf, type ServerContext } from '../context.js';
import { requireOnlyPasswordChange, startStatement } from '../statement.js';
import {
  createResultWriter,
  negotiateFormat,
  streamErrorTrailer,
  type ResultFormat,
  type ResultWriter,
} from '../../engine/format/index.js';
import { Reservation } from '../../engine/memory/index.js';
import { contentLength, WRITE_PAYLOAD } from './write-pipeline.js';
import { requestIdOf, requestLog, trackResult } from '../monitoring/index.js';

const decoder = new TextDecoder('utf-8');

/**
 * The most of a non-chunked answer held in memory to send it whole with a Content-Length (CONTRACT.md
 * "SQL"); past it, or once the query's memory pool cannot hold more, the rest streams as chunked
 * mode does. A non-chunked `SELECT *` of 10 million rows held its whole 778 MB JSON answer (a
 * 1.8 GB peak); most answers are far smaller and keep their exact length and error status.
 */
const BUFFERED_ANSWER_BYTES = 8 * 1024 * 1024;

/**
 * The formatted result as a readable stream: each read pulls one batch from the engine, so the
 * engine runs exactly as fast as the client takes the bytes. `head` is what was formatted before
 * the response started (the first batch in chunked mode, a buffered beginning otherwise); `ended`:
 * the batches ran out before it.
 */
class ResultStream extends Readable {
  readonly #it: AsyncIterator<RecordBatch>;
  readonly #writer: ResultWriter;
  readonly #format: ResultFormat;
  readonly #done: () => void;
  readonly #log: (err: UserError) => void;
  readonly #sent: (bytes: number) => void;
  #head: Uint8Array[];
  #ended = false;
  #pulling = false;

  constructor(
    it: AsyncIterator<RecordBatch>,
    head: Uint8Array[],
    ended: boolean,
    writer: ResultWriter,
    format: ResultFormat,
    done: () => void,
    log: (err: UserError) => void,
    sent: (bytes: number) => void,
  ) {
    super({ highWaterMark: 64 * 1024 });
    this.#sent = sent;
    this.#it = it;
    this.#head = head;
    this.#writer = writer;
    this.#format = format;
    this.#done = done;
    this.#log = log;
    if (ended) {
      this.#head = [];
      for (const bytes of head) this.push(bytes);
      this.#finish(writer.end());
    }
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
    if (this.#head.length > 0) {
      const head = this.#head;
      this.#head = [];
      for (const bytes of head) this.push(bytes);
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
      const err =
        e instanceof UserError
          ? e
          : new UserError(
              'internal',
              e instanceof Error && e.message.startsWith('BUG:') ? e.message : 'internal error; see the server log',
            );
      this.#log(err);
      const trailer = streamErrorTrailer(this.#format, err.code, err.message);
      if (trailer === undefined) {
        // No trailer in this format (Arrow): end the response without its last chunk.
        this.destroy(err);
        return;
      }
      this.#finish(trailer);
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
        const body = await readBody(
          request.payload as never,
          encoding,
          ctx.config['limits.sql_body_bytes'],
          contentLength(request),
        );
        const sql = decoder.decode(body);
        if (user.mustChangePassword) requireOnlyPasswordChange(sql, user);
        const {
          session,
          abort,
          query,
          done: finish,
        } = startStatement(ctx.config, ctx.version, s, {
          user,
          tenant: t,
          database,
          sql,
          api: 'api/v1/sql',
          bytesIn: body.length,
        });
        // The response's 'close' before it finished is a disconnect (hapi's request.events would
        // build an event emitter per request for the same thing).
        const res = request.raw.res;
        res.once('close', () => {
          if (!res.writableFinished) abort.abort(new UserError('unavailable', 'the client closed the connection'));
        });
        let sentBytes = 0;
        const done = (): void => finish(sentBytes);
        query.state = 'SCHEDULING';
        query.requestId = requestIdOf(request);
        // Damaged segment files the reads left out (storage.skip_damaged_segments), for the warning header.
        const skipped = new Set<string>();
        const warn = (res: ResponseObject): ResponseObject =>
          skipped.size === 0
            ? res
            : res.header('X-Sundial-Warning', headerSafe(`skipped damaged segment files: ${[...skipped].join(', ')}`));
        const engine = s.sql.engine(planCache, skipped);
        try {
          const result = await engine.run(sql, session);
          if (result.kind === 'done') {
            done();
            return h.response().code(200).type(contentType).charset();
          }
          const writer = createResultWriter(format, result.schema, result.memory);
          const it = trackResult(query, result);
          const log = (err: UserError): void => {
            if (err.status >= 500)
              requestLog(ctx.logger, request).warn(
                { code: err.code, msg: err.message },
                'query failed while streaming',
              );
          };
          const sent = (n: number): void => void (sentBytes += n);
          if (!chunked) {
            // The answer whole while it fits; its bytes are the query's memory too.
            const held = new Reservation(result.memory, 'the buffered answer');
            const parts: Uint8Array[] = [];
            let size = 0;
            let r = await it.next();
            for (; r.done !== true; r = await it.next()) {
              const bytes = writer.write(r.value);
              parts.push(bytes);
              size += bytes.length;
              if (size > BUFFERED_ANSWER_BYTES || !held.tryGrow(bytes.length)) break;
            }
            if (r.done === true) {
              parts.push(writer.end());
              held.release();
              const out = Buffer.concat(parts);
              sentBytes = out.length;
              done();
              return warn(h.response(out).code(200).type(contentType)).charset();
            }
            const release = (): void => {
              held.release();
              done();
            };
            // Only files skipped while the answer was held: the header goes out with its first bytes.
            return warn(
              h
                .response(new ResultStream(it, parts, false, writer, format, release, log, sent))
                .code(200)
                .type(contentType),
            ).charset();
          }
          // Pull the first batch before answering, so that an early error still gets its status.
          const first = await it.next();
          const head = first.done === true ? [] : [writer.write(first.value)];
          const stream = new ResultStream(it, head, first.done === true, writer, format, done, log, sent);
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
