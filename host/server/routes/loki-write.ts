// One Loki push through the write pipeline, shared by `/loki/api/v1/push` and
// `/api/v1/es/_bulk?log_type=loki`: JSON or snappy protobuf, each entry placed beside the rows the
// table already holds (loki-placement.ts), the push counting as placed until it is stored.

import type { Request } from '@hapi/hapi';
import { lokiPlacementKey, parseLokiBeside } from '../loki-placement.js';
import type { ServerContext } from '../context.js';
import { runWrite, type WriteTarget } from './write-pipeline.js';

export interface LokiWrite {
  table: string;
  timeColumn: string;
  tagColumns: string[];
  /** The body is snappy-compressed protobuf `logproto.PushRequest` (else JSON). */
  protobuf: boolean;
}

/** Stores one push; resolves once it is durable, throws UserError for every rejection. */
export async function writeLokiPush(
  ctx: ServerContext,
  request: Request,
  target: WriteTarget,
  w: LokiWrite,
): Promise<void> {
  let stored: (() => void) | undefined;
  try {
    const format = w.protobuf ? 'loki-protobuf' : 'loki-json';
    await runWrite(
      ctx,
      request,
      target,
      { format, bodyLimitBytes: ctx.config['limits.write_body_bytes'], snappy: w.protobuf },
      ({ body, db, dbUnit, services }) => {
        const placing = services.lokiTables.place(lokiPlacementKey(target.tenant, target.database, w.table), (settle) =>
          parseLokiBeside(services.storage, db, w.table, body, settle, (b, seed) =>
            services.parsers.parse(
              { format, table: w.table, timeColumn: w.timeColumn, tagColumns: w.tagColumns, dbUnit, now: 0n, seed },
              b,
            ),
          ),
        );
        return placing.then((p) => ((stored = p.stored), p.out));
      },
    );
  } finally {
    stored?.();
  }
}
