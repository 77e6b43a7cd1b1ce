// npm run conformance -- [DIR] [--url URL] [--filter TEXT] [--report FILE] [--verbose]
//                        [--sleep-scale 0.05] [--real-time] [--timeout-ms 30000]
//
// Runs every .slt file under DIR (default ../shared/conformance/cnosdb/) against a fresh Sundial
// server it starts (built first if the sources changed), or against the server at --url, and
// prints `N passed, N failed` per file and in total. Sleeps are shortened except in the files of
// real-time-files.ts; --real-time runs every sleep in full. The record-level report (file:line,
// SQL, expected vs got) goes to --report, by default a file in the temporary directory;
// --verbose also prints it.

import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import buildIfStale from '../support/global-setup.js';
import { SHARED_DIR } from '../support/shared-dir.js';
import { startServer, type TestServer } from '../support/server.js';
import { fileLine, fullReport, totalLine } from './report.js';
import { runDirectory } from './runner.js';
import { closeConnections } from './server-client.js';

export const DEFAULT_DIR = join(SHARED_DIR, 'conformance', 'cnosdb') + '/';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    filter: { type: 'string' },
    report: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    'sleep-scale': { type: 'string', default: '0.05' },
    'real-time': { type: 'boolean', default: false },
    'timeout-ms': { type: 'string', default: '30000' },
  },
});

const dir = resolve(positionals[0] ?? DEFAULT_DIR);
let server: TestServer | undefined;
try {
  let url = opts.url;
  if (url === undefined) {
    buildIfStale();
    server = await startServer();
    url = server.url;
  }
  console.log(`running ${dir} against ${url}`);
  const result = await runDirectory(dir, {
    url,
    filter: opts.filter,
    sleepScale: Number(opts['sleep-scale']),
    ...(opts['real-time'] ? { realTime: 'all' as const } : {}),
    timeoutMs: Number(opts['timeout-ms']),
    onFile: (r) => console.log(fileLine(r)),
  });
  console.log(totalLine(result));
  const report = fullReport(result);
  const reportFile =
    opts.report ??
    join(tmpdir(), 'sundial-conformance', `report-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`);
  mkdirSync(dirname(reportFile), { recursive: true });
  writeFileSync(reportFile, report);
  console.log(`record-level report: ${reportFile}`);
  if (opts.verbose) console.log(report);
} finally {
  closeConnections();
  if (server !== undefined) {
    await server.stop();
    server.cleanup();
  }
}
