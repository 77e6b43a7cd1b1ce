// POST /api/v1/admin/backup: a consistent online backup (docs/backup.md), for admins only (the
// copy holds every tenant's data and the password hashes). The storage takes a checkpoint at one
// instant (storage/checkpoint.ts); this streams its files in the framing below, leaving out the
// segment files the client says it already holds (an incremental backup), and ends with the
// SHA-256 of every file it sent. Streamed, not written on the server: the backup lands where the
// client runs, needs no path on the server's machine, and an interrupted copy is the client's to
// throw away. A failure midway ends the response without its end record; the client keeps its
// previous backup.
//
// Framing (application/x-sundial-backup): lines of JSON, each a header, some followed by raw bytes:
//   {"format":"sundial-backup","version":1,"time":...,"databases":[...]}      the checkpoint
//   {"path":...,"kind":...,"size":N,"identity"?:...}  then N bytes            a file sent
//   {"path":...,"kind":...,"size":N,"kept":true}                             a file the client holds
//   {"end":true,"files":N,"bytes":B,"sha256":{path: hex}}                   the end

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { bug, UserError } from '../../core/errors.js';
import { requireSystemMaintainer } from '../../meta/index.js';
import type { Checkpoint } from '../../storage/index.js';
import { userOf, type ServerContext } from '../context.js';
import { checkContentEncoding, readBody } from '../request-body.js';
import { contentLength, WRITE_PAYLOAD } from './write-pipeline.js';

export const BACKUP_MEDIA_TYPE = 'application/x-sundial-backup';

/** What the client holds: path -> identity (a segment file's trailer, as the checkpoint gives it). */
function parseHave(body: Buffer): Map<string, string> {
  const have = new Map<string, string>();
  if (body.length === 0) return have;
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new UserError('bodyDecode', `the backup request is not valid JSON: ${(e as Error).message}`);
  }
  const list = (doc as { have?: unknown } | null)?.have ?? [];
  if (!Array.isArray(list)) throw new UserError('bodyDecode', 'the backup request\'s "have" is not an array');
  for (const f of list) {
    const { path, identity } = (f ?? {}) as { path?: unknown; identity?: unknown };
    if (typeof path !== 'string' || typeof identity !== 'string')
      throw new UserError('bodyDecode', 'each entry of "have" needs a string "path" and "identity"');
    have.set(path, identity);
  }
  return have;
}

const line = (o: unknown): Buffer => Buffer.from(JSON.stringify(o) + '\n');

async function* frames(
  checkpoint: Checkpoint,
  have: ReadonlyMap<string, string>,
  time: string,
): AsyncGenerator<Buffer | Uint8Array> {
  try {
    yield line({ format: 'sundial-backup', version: 1, time, databases: checkpoint.databases });
    const sha256: Record<string, string> = {};
    let bytes = 0;
    for (const f of checkpoint.files) {
      const identity = await f.identity();
      const { size, chunks } = await f.open();
      if (identity !== undefined && have.get(f.path) === identity) {
        yield line({ path: f.path, kind: f.kind, size, identity, kept: true });
        continue;
      }
      yield line({ path: f.path, kind: f.kind, size, ...(identity === undefined ? {} : { identity }) });
      const hash = createHash('sha256');
      let sent = 0;
      for await (const c of chunks) {
        hash.update(c);
        sent += c.length;
        yield c;
      }
      if (sent !== size) throw bug(`${f.path} gave ${sent} bytes, announced ${size}`);
      sha256[f.path] = hash.digest('hex');
      bytes += size;
    }
    yield line({ end: true, files: Object.keys(sha256).length, bytes, sha256 });
  } finally {
    checkpoint.release();
  }
}

export function backupRoutes(ctx: ServerContext): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/admin/backup',
      options: { payload: WRITE_PAYLOAD, plugins: { sundial: { errors: 'json' } } },
      handler: async (request: Request, h: ResponseToolkit) => {
        const services = ctx.services();
        requireSystemMaintainer(userOf(request));
        const encoding = checkContentEncoding(request.headers['content-encoding'] as string | undefined);
        const body = await readBody(
          request.payload as never,
          encoding,
          ctx.config['limits.sql_body_bytes'],
          contentLength(request),
        );
        const have = parseHave(body);
        const checkpoint = await services.storage.checkpoint();
        const time = new Date(services.nowMs()).toISOString();
        ctx.logger.info(
          { databases: checkpoint.databases, files: checkpoint.files.length, held: have.size },
          'backup checkpoint taken',
        );
        const stream = Readable.from(frames(checkpoint, have, time), { objectMode: false });
        // A client gone before the first read never starts the generator (whose finally releases).
        stream.once('close', () => checkpoint.release());
        stream.on('error', (err) =>
          ctx.logger.error({ err }, 'backup stream failed; the client keeps its previous backup'),
        );
        return h.response(stream).type(BACKUP_MEDIA_TYPE);
      },
    },
  ];
}
