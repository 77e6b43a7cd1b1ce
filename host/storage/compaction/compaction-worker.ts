// The compaction thread of Compactor (compactor.ts): for each job, opens the input files with a
// Wasm core and block cache of its own, writes the merged file (writeCompaction) and posts back
// its meta and keys, or the error as data (a CorruptionError's source, offset and check, so that
// the server marks the bad input as it would have here).

import { parentPort, workerData } from 'node:worker_threads';
import { CorruptionError } from '../../core/errors.js';
import { settleTypedArrayAssumptions } from '../../core/v8-typed-arrays.js';
import { Core } from '../../core/wasm.js';
import {
  BlockCache,
  type CachedBlock,
  nodeSegmentStore,
  SegmentReader,
  type SegmentSlot,
  storageCodecs,
} from '../segment/index.js';
import { writeCompaction } from './compaction.js';
import type { CompactionReply, CompactionRequest, CompactionWorkerData } from './compactor.js';

const port = parentPort;
if (port === null) throw new Error('BUG: compaction-worker.js runs only as a worker thread');
settleTypedArrayAssumptions(); // before anything is compiled: core/v8-typed-arrays.ts

const codecs = storageCodecs(await Core.load((workerData as CompactionWorkerData).wasm));
/** Compaction reads bypass caches (cache = false); the readers still want one for their index reads. */
const cache = new BlockCache<CachedBlock>(4 << 20);

port.on('message', (msg: CompactionRequest) => {
  void run(msg).then((reply) => port.postMessage(reply));
});
port.postMessage({ ready: true } satisfies CompactionReply);

async function run({ id, job }: CompactionRequest): Promise<CompactionReply> {
  const inputs: SegmentSlot[] = [];
  try {
    for (const i of job.inputs)
      inputs.push({
        record: i.record,
        reader: await SegmentReader.open(nodeSegmentStore, i.path, i.record.fileId, codecs, cache),
      });
    const out = await writeCompaction(nodeSegmentStore, job, inputs, codecs);
    return { id, ok: true, out };
  } catch (e) {
    if (e instanceof CorruptionError)
      return {
        id,
        ok: false,
        error: { message: e.message, corrupt: { source: e.source, offset: e.offset, check: e.check } },
      };
    return {
      id,
      ok: false,
      error: { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined },
    };
  } finally {
    for (const s of inputs) s.reader!.retire();
  }
}
