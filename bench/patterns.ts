// npm run bench:patterns — LIKE, ILIKE and regular-expression filters over a string field, end
// to end: a fresh server (dist/, built by the script) is loaded with --rows log-like rows (a tag
// `host` of 1,000 values and a STRING field `msg`: GET, POST and error lines), then each query
// below runs --runs times; prints its count and the median and minimum milliseconds (the first
// query, without a pattern, is the floor of the others). Issue 24 moved patterns off JavaScript's
// backtracking RegExp (LIKE to String methods and one-piece searches, regular expressions to
// RE2JS); run it on both sides of such a change to compare.
//
// Options: --rows 1000000 --runs 7 --only <text> (the queries whose name contains it, and the floor)

import { parseArgs } from 'node:util';
import { http } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';

const { values: opts } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '7' },
    only: { type: 'string' },
  },
});
const ROWS = Number(opts.rows);
const RUNS = Number(opts.runs);

const QUERIES: Array<[string, string]> = [
  // The scan and count without a pattern: what each query below costs beyond it is its pattern's.
  ['no pattern', 'msg IS NOT NULL'],
  ['LIKE prefix', "msg LIKE 'GET %'"],
  ['LIKE suffix', "msg LIKE '%ms'"],
  ['LIKE contains', "msg LIKE '%error%'"],
  ['LIKE three literals', "msg LIKE '%users/%200%ms'"],
  ['NOT LIKE contains', "msg NOT LIKE '%api%'"],
  ['LIKE with _', "msg LIKE 'GET /api/v1/users/_ 200%'"],
  ['ILIKE contains', "msg ILIKE '%ERROR%'"],
  ['~ class and +', "msg ~ 'users/[0-9]+ 200'"],
  ['~* literal', "msg ~* 'CONNECTION'"],
  ['regexp_match group', "regexp_match(msg, 'users/(\\d+)') IS NOT NULL"],
  ['tag LIKE prefix', "host LIKE 'host_1%'"],
];

function line(i: number): string {
  const ts = 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n;
  let msg: string;
  switch (i % 4) {
    case 0:
    case 1:
      msg = `GET /api/v1/users/${i % 5000} ${i % 7 === 0 ? 404 : 200} ${i % 997}ms`;
      break;
    case 2:
      msg = `POST /api/v1/write?db=db${i % 10} 204 ${i % 89}ms`;
      break;
    default:
      msg = `error: connection reset by peer (request ${i})`;
  }
  return `logs,host=host_${i % 1000} msg="${msg}" ${ts}`;
}

const server = await startServer({ waitWarm: true });
try {
  const sql = async (text: string): Promise<{ ms: number; text: string }> => {
    const t0 = performance.now();
    const r = await http(server.url, '/api/v1/sql', { method: 'POST', body: text });
    const ms = performance.now() - t0;
    if (r.status !== 200) throw new Error(`${text}: ${r.status} ${r.text.slice(0, 300)}`);
    return { ms, text: r.text };
  };
  for (let start = 0; start < ROWS; start += 50_000) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(ROWS, start + 50_000); i++) lines.push(line(i));
    const r = await http(server.url, '/api/v1/write?db=public', { method: 'POST', body: lines.join('\n') });
    if (r.status !== 200) throw new Error(`write: ${r.status} ${r.headers['x-sundial-error'] as string}`);
  }
  console.log(`${ROWS} rows; median and minimum of ${RUNS} runs of SELECT count(*) FROM logs WHERE ...`);
  console.log('query                   rows matched   median ms   min ms');
  for (const [name, where] of QUERIES.filter(([n], i) => i === 0 || opts.only === undefined || n.includes(opts.only))) {
    const times: number[] = [];
    let count = '';
    for (let k = 0; k < RUNS; k++) {
      const r = await sql(`SELECT count(*) FROM logs WHERE ${where}`);
      times.push(r.ms);
      count = r.text.split('\n')[1]!;
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(24)}${count.padStart(12)}${times[Math.floor(RUNS / 2)]!.toFixed(0).padStart(12)}${times[0]!.toFixed(0).padStart(9)}`,
    );
  }
} finally {
  await server.stop();
  server.cleanup();
}
