// Durability under SIGKILL: writers hammer a real server, it is killed mid-load, restarted on the
// same data directory, and every point of every acknowledged request must be back with its exact
// values; no point of a rejected request may be there; a request whose outcome the client never
// learned is either wholly present or wholly absent (requests are atomic).

import { describe, expect, it } from 'vitest';
import { writeLp } from '../support/http.js';
import { readBack } from '../support/read-back.js';
import { startServer } from '../support/server.js';

const LINES = 40;
const WRITERS = 6;

interface Sent {
  writer: number;
  seq: number;
  outcome: 'ok' | 'rejected' | 'unknown';
}

function body(writer: number, seq: number): string {
  const lines: string[] = [];
  for (let k = 0; k < LINES; k++) {
    const ts = BigInt(seq) * 1000n + BigInt(k);
    lines.push(
      `crash,writer=w${writer},k=${k % 4} v=${value(writer, seq, k)},n=${seq * LINES + k}i,s="${writer}-${seq}-${k}" ${ts}`,
    );
  }
  return lines.join('\n');
}

const value = (writer: number, seq: number, k: number): number => writer * 1e6 + seq + k / 64;

describe('crash safety', () => {
  it('keeps every acknowledged write across SIGKILL and restart', async () => {
    const server = await startServer();
    const sent: Sent[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let seq = 0; !stop; seq++) {
        // Every 7th request is malformed in its last line: it must leave no trace.
        const bad = seq % 7 === 3;
        const text = bad ? body(w, seq) + '\ncrash,writer=bad v=oops 1' : body(w, seq);
        const entry: Sent = { writer: w, seq, outcome: 'unknown' };
        sent.push(entry);
        try {
          const r = await writeLp(server.url, text);
          entry.outcome = r.status === 200 ? 'ok' : 'rejected';
          if (bad) expect(r.status).toBe(400);
          else expect(r.status).toBe(200);
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const running = Array.from({ length: WRITERS }, (_, w) => writer(w));
    // At least 1.5 s of load, and enough acknowledged requests to check (a busy machine, the
    // whole suite running beside this test, can take longer to give them).
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 1500));
    while (sent.filter((x) => x.outcome === 'ok').length <= 40 && Date.now() - started < 20_000)
      await new Promise((r) => setTimeout(r, 100));
    await server.kill();
    stop = true;
    await Promise.all(running);

    const acked = sent.filter((s) => s.outcome === 'ok');
    expect(acked.length).toBeGreaterThan(20);
    expect(sent.some((s) => s.outcome === 'rejected')).toBe(true);

    // The real server recovers from the WAL and serves again.
    const again = await startServer({ dataDir: server.dataDir });
    expect(again.logs.some((l) => l.msg === 'WAL replayed')).toBe(true);
    expect(await again.stop()).toBe(0);

    const stored = await readBack(server.dataDir);
    try {
      const rows = await stored.rows('crash');
      const byRequest = new Map<string, typeof rows>();
      for (const r of rows) {
        const [w, seq] = String(r.s).split('-');
        const key = `${w}-${seq}`;
        if (!byRequest.has(key)) byRequest.set(key, []);
        byRequest.get(key)!.push(r);
      }
      for (const s of sent) {
        const got = byRequest.get(`${s.writer}-${s.seq}`) ?? [];
        if (s.outcome === 'ok') {
          expect(got.length, `acknowledged request ${s.writer}-${s.seq}`).toBe(LINES);
          for (const r of got) {
            const k = Number(String(r.s).split('-')[2]);
            expect(r).toEqual({
              time: BigInt(s.seq) * 1000n + BigInt(k),
              writer: `w${s.writer}`,
              k: String(k % 4),
              v: value(s.writer, s.seq, k),
              n: BigInt(s.seq * LINES + k),
              s: `${s.writer}-${s.seq}-${k}`,
            });
          }
        } else if (s.outcome === 'rejected') {
          expect(got.length, `rejected request ${s.writer}-${s.seq}`).toBe(0);
        } else {
          expect([0, LINES], `request ${s.writer}-${s.seq} of unknown outcome is atomic`).toContain(got.length);
        }
      }
      expect(rows.some((r) => r.writer === 'bad')).toBe(false);
    } finally {
      await stored.close();
      server.cleanup();
    }
  });
});
