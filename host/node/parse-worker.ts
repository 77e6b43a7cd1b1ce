// A parse worker of ParsePool (parse-pool.ts): receives one job at a time, runs the same
// runParseJob the server's thread would run, and posts back either the result, with the batch
// buffers transferred (not copied), or the error as data: a UserError's kind and message, or
// anything else as an internal error with its stack, for the server's log. Started with
// `workerData.warmup`, it first parses generated bodies of every format (parse-warmup.ts),
// yielding between them so that a real job never waits for more than one of them.

import { parentPort, threadId, workerData } from 'node:worker_threads';
import { coreWasmBytes } from './package-info.js';
import { UserError } from '../core/errors.js';
import { settleTypedArrayAssumptions } from '../core/v8-typed-arrays.js';
import { Core } from '../core/wasm.js';
import { LineProtocolScanner } from '../ingest/line-protocol.js';
import { LogScanner } from '../ingest/log-scan.js';
import { runParseJob } from '../ingest/parse-jobs.js';
import { WARMUP_ROUNDS, warmupJobs } from '../ingest/parse-warmup.js';
import type { ParseReply, ParseRequest, ParseWorkerData, WarmupReport } from './parse-messages.js';

// Crash injection for the tests (test/server/parse-workers.test.ts): a job for this table ends
// the worker thread mid-request, as an out-of-memory or a native fault would. Unset in production.
const exitOnTable = process.env.SUNDIAL_TEST_PARSE_WORKER_EXIT;

const port = parentPort;
if (port === null) throw new Error('BUG: parse-worker.js runs only as a worker thread');
settleTypedArrayAssumptions(); // before anything is compiled: core/v8-typed-arrays.ts

// The thread's own Wasm core, for the JSON log scanner and the line-protocol scanner (jobs wait in
// the port meanwhile). Without it (a core that does not load) every log body goes to the
// TypeScript reference: slower, same rows; line protocol then fails with a 500, as it would in
// the server's thread, which loads the same core before it listens.
let logs: LogScanner | undefined;
let lineProtocol: LineProtocolScanner | undefined;
try {
  const core = await Core.load(coreWasmBytes());
  logs = new LogScanner(core);
  lineProtocol = new LineProtocolScanner(core, {
    windowBytes: (workerData as ParseWorkerData | undefined)?.scanWindowBytes,
  });
} catch {
  logs = undefined;
}

// A job that cannot be deserialized has no id to answer: end the thread, which fails the
// request it belonged to (parse-pool.ts).
port.on('messageerror', (err) => {
  throw err;
});

port.on('message', (msg: ParseRequest) => {
  let reply: ParseReply;
  let transfer: ArrayBuffer[] = [];
  try {
    if (exitOnTable !== undefined && 'table' in msg.job && msg.job.table === exitOnTable) process.exit(70);
    // A Buffer arrives as a plain Uint8Array: view it as a Buffer again (no copy), or protobufjs
    // decodes strings and bytes in JavaScript instead of natively, and ids become Uint8Arrays
    // whose hex is built character by character (parsing spans took three times as long).
    const body = Buffer.from(msg.body.buffer, msg.body.byteOffset, msg.body.byteLength);
    const result = runParseJob(msg.job, body, logs, lineProtocol);
    reply = { id: msg.id, ok: true, result };
    // Batches of one request never share a buffer (each is encoded on its own), but a repeated
    // entry in a transfer list is an error, so collect them through a Set.
    const buffers = new Set<ArrayBuffer>();
    for (const b of result.batches) buffers.add(b.buffer as ArrayBuffer);
    if (result.actions !== undefined) buffers.add(result.actions.buffer as ArrayBuffer);
    if (result.tables !== undefined) buffers.add(result.tables.of.buffer as ArrayBuffer);
    transfer = [...buffers];
  } catch (e) {
    reply =
      e instanceof UserError
        ? { id: msg.id, ok: false, error: { kind: e.kind, message: e.message, retryAfterS: e.retryAfterS } }
        : {
            id: msg.id,
            ok: false,
            error: {
              message: e instanceof Error ? e.message : String(e),
              stack: e instanceof Error ? e.stack : undefined,
              threadId,
            },
          };
  }
  port.postMessage(reply, transfer);
});

if ((workerData as ParseWorkerData | undefined)?.warmup === true) await warmUp();

async function warmUp(): Promise<void> {
  const started = performance.now();
  const report: WarmupReport = { warmed: true, jobs: 0, ms: 0 };
  try {
    const jobs = warmupJobs(Date.now());
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      for (const { job, body } of jobs) {
        // A copy each time: a parser may keep views of its body in the batches it returns.
        runParseJob(job, Buffer.from(body), logs, lineProtocol);
        report.jobs++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } catch (e) {
    report.error = e instanceof Error ? e.message : String(e);
  }
  report.ms = Math.round(performance.now() - started);
  port!.postMessage(report);
}
