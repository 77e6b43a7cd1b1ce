// The HTTP floor of bench:query: a hapi server (the server's own HTTP stack: same hapi, same
// Node) that does no work at all. It answers each benchmark request with the bytes Sundial
// answered it with, recorded beforehand, so that the query client measures what the stack costs
// before any SQL runs: request parsing, hapi's lifecycle, the socket write, and the client's own
// first-run costs. A Sundial query cannot be faster than this row.
//
// Usage (bench/query.ts starts it): node --import tsx bench/http-floor.ts ANSWERS.json
//   ANSWERS.json: [{ path, body, contentType, answer }], answer as text. Prints {"port": N} once
//   it listens on 127.0.0.1 (a free port), and runs until it is sent SIGTERM.

import { readFileSync } from 'node:fs';
import Hapi from '@hapi/hapi';

/** One recorded exchange: what query-bench.mjs sends (path and body) and what Sundial answered. */
export interface RecordedAnswer {
  path: string;
  body: string;
  contentType: string;
  answer: string;
}

const answers = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as RecordedAnswer[];
const byRequest = new Map(
  answers.map((a) => [`${a.path}\n${a.body}`, { contentType: a.contentType, bytes: Buffer.from(a.answer) }]),
);

const server = Hapi.server({ host: '127.0.0.1', port: 0 });
server.route({
  method: 'POST',
  path: '/{any*}',
  options: { payload: { parse: false, output: 'data' } },
  handler: (request, h) => {
    const payload = request.payload as Buffer | null;
    const found = byRequest.get(
      `${request.url.pathname}${request.url.search}\n${payload === null ? '' : payload.toString('utf8')}`,
    );
    if (found === undefined) return h.response('no recorded answer for this request\n').code(404);
    return h.response(found.bytes).type(found.contentType);
  },
});
await server.start();
process.stdout.write(`${JSON.stringify({ port: server.info.port })}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
