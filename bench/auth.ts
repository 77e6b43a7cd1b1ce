// npm run bench:auth — what a password guesser can learn from timing, and what guessing costs
// others. Against a fresh server (dist/, built by the script) it measures the latency of
// `SELECT 1` for: an unknown user, a known user with a wrong password, a user created without a
// password, a valid login not cached yet (each a new user, so every one pays scrypt), and a
// valid cached login. Then the latency of a valid cached user alone and while another client
// floods wrong passwords. Prints median and p90 in ms of each.
//
// What should hold: unknown user, wrong password and no-password logins alike (all pay one
// scrypt, then the same 401); a cached valid login far below them; the valid user's latency
// under a flood close to its latency alone (the cache spares it scrypt; the flood competes for
// the thread pool and the event loop only).
//
// Options: --requests 40 --flood 4 (concurrent guessers) --seconds 3 (of valid requests alone,
// then as long under the flood). Needs `npm run build` first.

import { parseArgs } from 'node:util';
import { http } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '40' },
    flood: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '3' },
  },
});
const N = Number(opts.requests);
const FLOOD = Number(opts.flood);
const SECONDS = Number(opts.seconds);

interface Stats {
  name: string;
  status: number;
  medianMs: number;
  p90Ms: number;
}

function stats(name: string, status: number, ms: number[]): Stats {
  const s = [...ms].sort((a, b) => a - b);
  return { name, status, medianMs: s[Math.floor(s.length / 2)]!, p90Ms: s[Math.floor(s.length * 0.9)]! };
}

const server = await startServer({ waitWarm: true });
try {
  const sql = (user: string, password: string, body = 'SELECT 1') =>
    http(server.url, '/api/v1/sql', { method: 'POST', body, auth: { user, password } });
  const root = async (text: string): Promise<void> => {
    const r = await sql('root', '', text);
    if (r.status !== 200) throw new Error(`${text}: ${r.status} ${r.text}`);
  };
  await root("CREATE USER known WITH PASSWORD = 'right'");
  await root('CREATE USER nopass');
  for (const u of ['known', 'nopass']) await root(`ALTER TENANT cnosdb ADD USER ${u} AS member`);
  for (let i = 0; i < N; i++) {
    await root(`CREATE USER fresh${i} WITH PASSWORD = 'right'`);
    await root(`ALTER TENANT cnosdb ADD USER fresh${i} AS member`);
  }

  /** Valid cached logins one after the other for SECONDS. */
  const measureFor = async (name: string): Promise<Stats> => {
    const ms: number[] = [];
    let status = 0;
    const end = performance.now() + SECONDS * 1000;
    while (performance.now() < end) {
      const t0 = performance.now();
      const r = await sql('known', 'right');
      ms.push(performance.now() - t0);
      status = r.status;
    }
    return stats(`${name} (${ms.length} requests)`, status, ms);
  };

  // Interleave the kinds round by round, so that drift on a shared machine hits them alike.
  const kinds: Array<[string, (i: number) => [string, string]]> = [
    ['unknown user', (i) => [`ghost${i}`, 'right']],
    ['wrong password', () => ['known', 'wrong']],
    ['user without a password sending one', () => ['nopass', 'guess']],
    ['valid, not cached', (i) => [`fresh${i}`, 'right']],
    ['valid, cached', () => ['known', 'right']],
  ];
  await sql('known', 'right');
  const samples = new Map<string, number[]>(kinds.map(([k]) => [k, []]));
  const statuses = new Map<string, number>();
  for (let i = 0; i < N; i++) {
    for (const [name, next] of kinds) {
      const [u, p] = next(i);
      const t0 = performance.now();
      const r = await sql(u, p);
      samples.get(name)!.push(performance.now() - t0);
      statuses.set(name, r.status);
    }
  }
  const rows: Stats[] = kinds.map(([name]) => stats(name, statuses.get(name)!, samples.get(name)!));

  const alone = await measureFor('valid cached, alone');
  let flooding = true;
  let guesses = 0;
  const guessers = Array.from({ length: FLOOD }, async () => {
    while (flooding) {
      await sql('known', `guess${guesses++}`);
    }
  });
  const underFlood = await measureFor(`valid cached, ${FLOOD} clients guessing`);
  flooding = false;
  await Promise.all(guessers);
  rows.push(alone, underFlood);

  console.log(`auth latency, ${N} requests each (ms)`);
  console.log('| login | status | median | p90 |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.status} | ${r.medianMs.toFixed(2)} | ${r.p90Ms.toFixed(2)} |`);
  console.log(`(${guesses} wrong guesses during the flood)`);
} finally {
  await server.stop();
  server.cleanup();
}
