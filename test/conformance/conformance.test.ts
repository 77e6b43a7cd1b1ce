// Runs CnosDB's sqllogictest subset (../shared/conformance/cnosdb/, AGPL fixtures read in place;
// test/support/shared-dir.ts finds them; none is kept in this repository) against the real
// server over HTTP, prints the counts, writes the record-level report to a temporary file, and
// fails when fewer records pass than threshold.json says. The threshold only goes up: raise it
// when more records pass.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';
import { fileLine, fullReport, totalLine } from './report.js';
import { runDirectory } from './runner.js';
import { closeConnections } from './server-client.js';
import threshold from './threshold.json' with { type: 'json' };
import { CONFORMANCE_DIR } from '../support/shared-dir.js';

describe.skipIf(CONFORMANCE_DIR === undefined)('CnosDB sqllogictest conformance', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    closeConnections();
    await server.stop();
    server.cleanup();
  });

  it(`passes at least ${threshold.cnosdb} records`, async () => {
    const result = await runDirectory(CONFORMANCE_DIR!, { url: server.url });
    const reportFile = join(mkdtempSync(join(tmpdir(), 'sundial-conformance-')), 'report.txt');
    writeFileSync(reportFile, fullReport(result));
    console.log([...result.files.map(fileLine), totalLine(result), `record-level report: ${reportFile}`].join('\n'));
    expect(result.files.length).toBe(44);
    expect(result.passed + result.failed + result.skipped).toBe(778);
    expect(result.passed).toBeGreaterThanOrEqual(threshold.cnosdb);
  }, 300_000);
});
