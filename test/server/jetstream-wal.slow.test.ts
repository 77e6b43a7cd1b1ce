// The WAL in NATS JetStream (server.cluster.nats_urls) against real nats-server processes: every
// acknowledged row survives a SIGKILL of Sundial exactly once (flushed records are purged from the
// stream and not replayed again), a SIGKILL of one server of a three-server NATS cluster under
// writes loses nothing acknowledged, NATS down means 503 `000003` with nothing of the refused write
// visible, and writes resume when NATS is back. Needs the Debian package nats-server.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http, writeLp } from '../support/http.js';
import { startNats, type TestNats } from '../support/nats.js';
import { startServer } from '../support/server.js';

const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
const CLEAN_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SUNDIAL_')));
const LINES = 50;
/** Request `seq`'s rows: LINES series over 7 hosts, each row's value unique. */
const body = (seq: number): string =>
  Array.from({ length: LINES }, (_, k) => `load,host=h${k % 7} n=${seq * LINES + k}i ${seq * LINES + k}`).join('\n');

async function rowsBySeq(url: string): Promise<{ bySeq: Map<number, number>; rows: number; distinct: number }> {
  const r = await http(url, '/api/v1/sql?db=public', { body: 'SELECT n FROM load' });
  expect(r.status, r.text).toBe(200);
  const values = r.text.trim().split('\n').slice(1).map(Number);
  const bySeq = new Map<number, number>();
  for (const n of values) bySeq.set(Math.floor(n / LINES), (bySeq.get(Math.floor(n / LINES)) ?? 0) + 1);
  return { bySeq, rows: values.length, distinct: new Set(values).size };
}

/** The manifest of database public (the only database with a segment file). */
function publicManifest(dataDir: string): { flushedLsn: number } {
  const dirs = readdirSync(join(dataDir, 'db')).filter((id) => existsSync(join(dataDir, 'db', id, 'seg')));
  const manifests = dirs
    .filter((id) => existsSync(join(dataDir, 'db', id, 'manifest.json')))
    .map((id) => JSON.parse(readFileSync(join(dataDir, 'db', id, 'manifest.json'), 'utf8')) as { flushedLsn: number });
  return manifests.sort((a, b) => b.flushedLsn - a.flushedLsn)[0]!;
}

/** The highest flushed sequence of the data directory's manifests. */
function flushedTo(dataDir: string): number {
  let most = 0;
  for (const id of readdirSync(join(dataDir, 'db'))) {
    const path = join(dataDir, 'db', id, 'manifest.json');
    if (existsSync(path))
      most = Math.max(most, (JSON.parse(readFileSync(path, 'utf8')) as { flushedLsn: number }).flushedLsn);
  }
  return most;
}

/** The names of the WAL streams (of `server.cluster.nats_stream_prefix` `prefix`). */
async function streamNames(urls: string, prefix = 'sundial'): Promise<string[]> {
  const nc = await connect({ servers: urls.split(',') });
  try {
    const names: string[] = [];
    for await (const s of (await nc.jetstreamManager()).streams.list())
      if (s.config.name.startsWith(`${prefix}_`)) names.push(s.config.name);
    return names.sort();
  } finally {
    await nc.close();
  }
}

/** The state of the WAL stream of database public: the longest (usage_schema's has a few reports). */
async function streamState(urls: string): Promise<{ first_seq: number; last_seq: number; messages: number }> {
  const nc = await connect({ servers: urls.split(',') });
  try {
    const jsm = await nc.jetstreamManager();
    const states: Array<{ first_seq: number; last_seq: number; messages: number }> = [];
    for await (const s of jsm.streams.list()) if (s.config.name.startsWith('sundial_')) states.push(s.state);
    return states.sort((a, b) => b.last_seq - a.last_seq)[0]!;
  } finally {
    await nc.close();
  }
}

describe('one NATS server', () => {
  // A NATS of its own per test: a stream belongs to one data directory.
  let nats: TestNats;
  beforeEach(async () => {
    nats = await startNats(1);
  });
  afterEach(async () => {
    await nats?.close();
  });

  it('keeps every acknowledged row exactly once across a SIGKILL, replaying only what is not flushed', async () => {
    // Small memtables: most requests are flushed (and purged from the stream) before the kill.
    const args = ['--nats-urls', nats.urls, '--vnodes', '3', '--flush-bytes', '16KiB'];
    const server = await startServer({ args });
    const acked: number[] = [];
    for (let seq = 0; seq < 120; seq++) {
      const r = await writeLp(server.url, body(seq));
      expect(r.status, r.text).toBe(200);
      acked.push(seq);
    }
    await server.kill();
    const state = await streamState(nats.urls);
    const flushedLsn = publicManifest(server.dataDir).flushedLsn;
    expect(flushedLsn, 'some requests were flushed').toBeGreaterThan(0);
    // `sundial check` reads a data directory whose WAL is in NATS (no wal/ folder) without complaint.
    const check = spawnSync(BIN, ['check', '--data-dir', server.dataDir], { encoding: 'utf8', env: CLEAN_ENV });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(state.first_seq, 'flushed records were purged from the stream').toBeGreaterThan(1);

    const again = await startServer({ dataDir: server.dataDir, args });
    try {
      const replayed = again.logs.find((l) => l.msg === 'WAL replayed' && l.db === 'public');
      // Exactly the messages after the manifest's flushed sequence are replayed (a message of a
      // split write is a record of its own): none that a segment file already holds.
      expect(Number(replayed?.records ?? 0), 'records replayed').toBe(state.last_seq - flushedLsn);
      const { bySeq, rows, distinct } = await rowsBySeq(again.url);
      expect(distinct, 'every row once').toBe(rows);
      for (const seq of acked) expect(bySeq.get(seq), `acknowledged request ${seq}`).toBe(LINES);
      expect(rows).toBe(acked.length * LINES);
      // Writes go on after the restart, with sequences after the replayed ones.
      expect((await writeLp(again.url, body(500))).status).toBe(200);
      expect((await rowsBySeq(again.url)).rows).toBe((acked.length + 1) * LINES);
    } finally {
      await again.stop();
      again.cleanup();
    }
  });

  it('answers 503 000003 while NATS is down, stores nothing of the refused write, and resumes when it is back', async () => {
    const server = await startServer({ inProcess: true, args: ['--nats-urls', nats.urls] });
    try {
      expect((await writeLp(server.url, body(0))).status).toBe(200);
      await nats.nodes[0]!.kill();
      // The client notices the lost connection at once (the socket closes): bounded loop.
      let refused: Awaited<ReturnType<typeof writeLp>> | undefined;
      for (let i = 0; i < 50 && refused === undefined; i++) {
        const r = await writeLp(server.url, body(1));
        if (r.status !== 200) refused = r;
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(refused?.status, JSON.stringify(refused)).toBe(503);
      expect(refused!.headers['x-sundial-error-code']).toBe('000003');
      expect(refused!.headers['retry-after']).toBe('1');
      expect(refused!.headers['x-sundial-error']).toContain(`NATS JetStream at ${nats.nodes[0]!.url} is unavailable`);
      const down = await rowsBySeq(server.url);
      expect(down.bySeq.get(1) ?? 0, 'the refused write is not visible').toBe(0);

      await nats.nodes[0]!.start();
      let status = 0;
      for (let i = 0; i < 100 && status !== 200; i++) {
        status = (await writeLp(server.url, body(2))).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status, 'writes resume once NATS is back').toBe(200);
      const after = await rowsBySeq(server.url);
      expect(after.bySeq.get(0)).toBe(LINES);
      expect(after.bySeq.get(2)).toBe(LINES);
    } finally {
      await server.stop();
      server.cleanup();
    }
  });

  it("refuses to start on another data directory's stream rather than replay its records", async () => {
    const first = await startServer({ inProcess: true, args: ['--nats-urls', nats.urls] });
    expect((await writeLp(first.url, body(0))).status).toBe(200);
    await first.stop();
    first.cleanup();
    // The streams are opened after the server listens (it answers 503 meanwhile): it exits then.
    const second = await startServer({ args: ['--nats-urls', nats.urls], waitReady: false });
    try {
      expect(await second.exited).toBe(1);
      expect(JSON.stringify(second.logs)).toMatch(
        /the JetStream stream sundial_\d+ at nats:\/\/127\.0\.0\.1:\d+ holds the WAL of another data directory/,
      );
    } finally {
      second.cleanup();
    }
  });

  it('runs two servers on one NATS with their own stream prefixes, each replaying only its own records', async () => {
    const a = await startServer({ args: ['--nats-urls', nats.urls] });
    const bArgs = ['--nats-urls', nats.urls, '--nats-stream-prefix', 'other-1'];
    const b = await startServer({ args: bArgs });
    try {
      for (let seq = 0; seq < 3; seq++) expect((await writeLp(a.url, body(seq))).status).toBe(200);
      for (let seq = 10; seq < 12; seq++) expect((await writeLp(b.url, body(seq))).status).toBe(200);
      expect((await streamNames(nats.urls)).length, 'public and usage_schema of the first').toBe(2);
      expect((await streamNames(nats.urls, 'other-1')).length, 'public and usage_schema of the second').toBe(2);
      await b.kill();
      const again = await startServer({ dataDir: b.dataDir, args: bArgs });
      try {
        expect([...(await rowsBySeq(again.url)).bySeq]).toEqual([
          [10, LINES],
          [11, LINES],
        ]);
      } finally {
        await again.stop();
      }
      expect([...(await rowsBySeq(a.url)).bySeq]).toEqual([
        [0, LINES],
        [1, LINES],
        [2, LINES],
      ]);
    } finally {
      await a.stop();
      a.cleanup();
      b.cleanup();
    }
  });

  it('refuses a stream prefix that cannot name a stream', async () => {
    const failed = await startServer({
      args: ['--nats-urls', nats.urls, '--nats-stream-prefix', 'a.b'],
      waitReady: false,
    }).then(
      async (s) => {
        await s.stop();
        s.cleanup();
        return undefined;
      },
      (e: Error) => e.message,
    );
    expect(failed).toContain(
      "server.cluster.nats_stream_prefix must be 1 to 32 letters, digits, '-' or '_', got 'a.b'",
    );
  });

  it('makes a stream per database and deletes it with DROP DATABASE', async () => {
    const server = await startServer({ inProcess: true, args: ['--nats-urls', nats.urls] });
    const sql = async (body: string, db = 'public'): Promise<void> => {
      const r = await http(server.url, `/api/v1/sql?db=${db}`, { body });
      expect(r.status, r.text).toBe(200);
    };
    try {
      await sql('CREATE DATABASE other');
      expect((await writeLp(server.url, body(0), 'db=other')).status).toBe(200);
      const before = await streamNames(nats.urls);
      expect(before.length, before.join(', ')).toBe(3); // public, usage_schema, other
      await sql('DROP DATABASE other');
      const after = await streamNames(nats.urls);
      expect(after.length, after.join(', ')).toBe(2);
      expect(before.filter((n) => !after.includes(n))).toHaveLength(1);
    } finally {
      await server.stop();
      server.cleanup();
    }
  });

  it("deletes at start the streams of databases a crash in DROP DATABASE left, and only this directory's", async () => {
    const args = ['--nats-urls', nats.urls];
    const first = await startServer({ inProcess: true, args });
    await first.stop();
    const before = readFileSync(join(first.dataDir, 'catalog.json'), 'utf8');
    const second = await startServer({ inProcess: true, dataDir: first.dataDir, args });
    const r = await http(second.url, '/api/v1/sql?db=public', { body: 'CREATE DATABASE other' });
    expect(r.status, r.text).toBe(200);
    expect((await writeLp(second.url, body(0), 'db=other')).status).toBe(200);
    await second.stop();
    const made = await streamNames(nats.urls);
    expect(made).toHaveLength(3);
    // The state a crash after DROP DATABASE saved the catalog leaves: the catalog names no
    // database `other`, while its folder (with its token file) and its stream are still there.
    writeFileSync(join(first.dataDir, 'catalog.json'), before);
    const ids = readdirSync(join(first.dataDir, 'db'));
    // Streams of the prefix this directory did not make: one whose folder is missing, one whose
    // folder's token differs (a data directory made anew on the same NATS).
    mkdirSync(join(first.dataDir, 'db', '998'));
    writeFileSync(join(first.dataDir, 'db', '998', 'wal-stream'), 'mine\n');
    const nc = await connect({ servers: nats.urls.split(',') });
    try {
      const jsm = await nc.jetstreamManager();
      for (const id of [998, 999])
        await jsm.streams.add({
          name: `sundial_${id}`,
          subjects: [`sundial.${id}.*`],
          description: `sundial WAL of database ${id}, data directory token theirs`,
        });
    } finally {
      await nc.close();
    }
    const third = await startServer({ inProcess: true, dataDir: first.dataDir, args });
    try {
      const left = await streamNames(nats.urls);
      const gone = made.filter((n) => !left.includes(n));
      expect(gone, left.join(', ')).toHaveLength(1);
      expect(ids, 'the folder of the dropped database was there').toContain(gone[0]!.slice('sundial_'.length));
      expect(left).toEqual([...made.filter((n) => n !== gone[0]), 'sundial_998', 'sundial_999'].sort());
      expect(readdirSync(join(first.dataDir, 'db')).sort(), 'its folder is removed too').toEqual(
        ids.filter((id) => `sundial_${id}` !== gone[0]).sort(),
      );
      expect(
        third.logs.some((l) => l.msg === 'deleted the WAL stream of a dropped database' && l.stream === gone[0]),
      ).toBe(true);
    } finally {
      await third.stop();
      third.cleanup();
    }
  });

  it('moves a stream younger than the manifest past the flushed sequence, so that new records replay', async () => {
    const args = (urls: string): string[] => ['--nats-urls', urls, '--flush-age', '1s', '--report-interval', '0'];
    const server = await startServer({ args: args(nats.urls) });
    for (let seq = 0; seq < 5; seq++) expect((await writeLp(server.url, body(seq))).status).toBe(200);
    // Bounded: the memtable is flushed within a few seconds of flush_age.
    const last = (await streamState(nats.urls)).last_seq;
    for (let i = 0; i < 100 && !(existsSync(join(server.dataDir, 'db')) && flushedTo(server.dataDir) >= last); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(flushedTo(server.dataDir), 'every record flushed').toBe(last);
    await server.stop();
    // NATS lost its store: the same data directory on a new, empty NATS.
    const fresh = await startNats(1);
    try {
      const again = await startServer({ dataDir: server.dataDir, args: args(fresh.urls) });
      try {
        expect(
          again.logs.some(
            (l) => l.msg === 'the WAL stream is behind the manifest; moving its sequence past the flushed records',
          ),
        ).toBe(true);
        for (let seq = 5; seq < 8; seq++) expect((await writeLp(again.url, body(seq))).status).toBe(200);
      } finally {
        await again.kill();
      }
      const third = await startServer({ dataDir: server.dataDir, args: args(fresh.urls) });
      try {
        const { bySeq, rows } = await rowsBySeq(third.url);
        expect(rows).toBe(8 * LINES);
        for (let seq = 0; seq < 8; seq++) expect(bySeq.get(seq), `request ${seq}`).toBe(LINES);
      } finally {
        await third.stop();
        third.cleanup();
      }
    } finally {
      await fresh.close();
    }
  });

  it('refuses to start with NATS while WAL files hold unflushed records, and loses none of them', async () => {
    const files = await startServer({ inProcess: true });
    for (let seq = 0; seq < 3; seq++) expect((await writeLp(files.url, body(seq))).status).toBe(200);
    await files.stop();
    const refused = await startServer({ dataDir: files.dataDir, args: ['--nats-urls', nats.urls], waitReady: false });
    // Bounded: a server that does not refuse is killed, and the test fails on its exit code.
    const timer = setTimeout(() => void refused.kill(), 30_000);
    const code = await refused.exited;
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(JSON.stringify(refused.logs)).toMatch(
      /database cnosdb\.\w+ has \d+ unflushed records in its WAL files \([^)]*\); start the server once without server\.cluster\.nats_urls/,
    );
    const back = await startServer({ inProcess: true, dataDir: files.dataDir });
    try {
      expect([...(await rowsBySeq(back.url)).bySeq]).toEqual([
        [0, LINES],
        [1, LINES],
        [2, LINES],
      ]);
    } finally {
      await back.stop();
      back.cleanup();
    }
  });

  it('backs up every row acknowledged before the backup, though unflushed, and restores it', async () => {
    const server = await startServer({ args: ['--nats-urls', nats.urls] });
    const dir = mkdtempSync(join(tmpdir(), 'sundial-js-backup-'));
    try {
      // Writes go on during the backup: those acknowledged before it began must be in it, whole.
      let next = 0;
      let stop = false;
      const acked = new Set<number>();
      const writer = (async () => {
        while (!stop) {
          const seq = next++;
          const r = await writeLp(server.url, body(seq));
          expect(r.status, r.text).toBe(200);
          acked.add(seq);
        }
      })();
      while (acked.size < 20) await new Promise((resolve) => setTimeout(resolve, 20));
      const before = [...acked];
      const backup = spawnSync(BIN, ['backup', join(dir, 'backup'), '--url', server.url], {
        encoding: 'utf8',
        env: CLEAN_ENV,
      });
      stop = true;
      await writer;
      expect(backup.status, backup.stdout + backup.stderr).toBe(0);
      const restore = spawnSync(BIN, ['restore', join(dir, 'backup'), '--data-dir', join(dir, 'restored')], {
        encoding: 'utf8',
        env: CLEAN_ENV,
      });
      expect(restore.status, restore.stdout + restore.stderr).toBe(0);
      // The copy starts with NATS under a prefix of its own, and (then) with WAL files.
      for (const args of [['--nats-urls', nats.urls, '--nats-stream-prefix', 'restored'], []]) {
        const copy = await startServer({ inProcess: true, dataDir: join(dir, 'restored'), args });
        try {
          const { bySeq, rows, distinct } = await rowsBySeq(copy.url);
          expect(distinct).toBe(rows);
          for (const seq of before)
            expect(bySeq.get(seq), `request ${seq}, acknowledged before the backup`).toBe(LINES);
          for (const [seq, n] of bySeq) expect(n, `request ${seq} whole`).toBe(LINES);
        } finally {
          await copy.stop();
        }
      }
    } finally {
      await server.stop();
      server.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('CHECK DATABASE finds the stream missing, behind the acknowledged records, or of another data directory', async () => {
    const server = await startServer({ inProcess: true, args: ['--nats-urls', nats.urls, '--report-interval', '0'] });
    const check = async (): Promise<Array<{ file: string; offset: number | null; problem: string }>> => {
      const r = await http(server.url, '/api/v1/sql?db=public', {
        body: 'CHECK DATABASE public',
        headers: { accept: 'application/json' },
      });
      expect(r.status, r.text).toBe(200);
      return JSON.parse(r.text) as Array<{ file: string; offset: number | null; problem: string }>;
    };
    const nc = await connect({ servers: nats.urls.split(',') });
    try {
      for (let seq = 0; seq < 3; seq++) expect((await writeLp(server.url, body(seq))).status).toBe(200);
      expect(await check()).toEqual([]);
      const jsm = await nc.jetstreamManager();
      let stream: { name: string; subjects: string[]; description: string } | undefined;
      for await (const s of jsm.streams.list())
        if (s.state.messages > 0)
          stream = { name: s.config.name, subjects: s.config.subjects, description: s.config.description ?? '' };
      const file = `JetStream stream ${stream!.name}`;
      const cases: Array<[string, (() => Promise<unknown>) | undefined, RegExp]> = [
        [
          'missing',
          undefined,
          /^the stream does not exist at nats:\/\/127\.0\.0\.1:\d+ \(deleted, or NATS lost its store\)/,
        ],
        [
          'behind',
          () => jsm.streams.add({ ...stream! }),
          /^the stream ends at sequence 0, behind the last acknowledged 3: NATS lost records$/,
        ],
        [
          'another directory',
          () => jsm.streams.add({ ...stream!, description: 'sundial WAL of database 2, data directory token theirs' }),
          /^the stream belongs to another data directory \(sundial WAL of database 2, data directory token theirs\), not to this one/,
        ],
      ];
      await jsm.streams.delete(stream!.name);
      for (const [name, make, problem] of cases) {
        await make?.();
        const rows = await check();
        if (make !== undefined) await jsm.streams.delete(stream!.name);
        expect(rows, name).toEqual([
          { file, offset: null, problem: expect.stringMatching(problem) as string, action: '' },
        ]);
      }
    } finally {
      await nc.close();
      await server.stop();
      server.cleanup();
    }
  });

  it('stops the server at start when NATS cannot be reached, naming the URL', async () => {
    const url = 'nats://127.0.0.1:1';
    const failed = await startServer({ args: ['--nats-urls', url], waitReady: false }).then(
      async (s) => {
        await s.stop();
        s.cleanup();
        return undefined;
      },
      (e: Error) => e.message,
    );
    expect(failed).toMatch(/server exited with 1 before the expected log line/);
    expect(failed).toContain(`cannot connect to NATS at ${url} (server.cluster.nats_urls)`);
  });
});

describe('a three-server NATS cluster with three replicas', () => {
  let nats: TestNats;
  beforeAll(async () => {
    nats = await startNats(3);
  });
  afterAll(async () => {
    await nats?.close();
  });

  it('loses nothing acknowledged when one NATS server is SIGKILLed under writes', async () => {
    const args = ['--nats-urls', nats.urls, '--nats-replicas', '3', '--vnodes', '2'];
    const server = await startServer({ args });
    const acked = new Set<number>();
    const refused: number[] = [];
    const unexpected: string[] = [];
    let seq = 0;
    const writer = async (until: () => boolean): Promise<void> => {
      while (!until()) {
        const n = seq++;
        let r: Awaited<ReturnType<typeof writeLp>>;
        try {
          r = await writeLp(server.url, body(n));
        } catch (e) {
          unexpected.push(`request ${n}: no answer (${(e as Error).message}); did the server end?`);
          return;
        }
        if (r.status === 200) acked.add(n);
        else if (r.status !== 503) {
          // Not thrown here: the loops below would wait for a writer that stopped (the test hung so).
          unexpected.push(`request ${n}: ${r.status} ${r.text}`);
          return;
        } else {
          refused.push(n);
          // A client waits before it retries (the answer says Retry-After: 1; a tenth of it here):
          // 503s come at once while the streams elect new leaders, and without a pause they used
          // up the 600 requests of the bound within a second under load.
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    let stop = false;
    const load = Promise.all([writer(() => stop), writer(() => stop)]);
    while (acked.size < 40 && unexpected.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await nats.nodes[0]!.kill();
    const killedAt = acked.size;
    // Writes are acknowledged again by the two servers left (bounded: 600 requests at most).
    while (acked.size < killedAt + 40 && seq < 600 && unexpected.length === 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await load;
    expect(unexpected, 'answers other than 200 and 503').toEqual([]);
    expect(acked.size, `acknowledged after the kill (refused: ${refused.length})`).toBeGreaterThanOrEqual(
      killedAt + 40,
    );
    await server.kill();

    const again = await startServer({ dataDir: server.dataDir, args });
    try {
      const { bySeq, rows, distinct } = await rowsBySeq(again.url);
      expect(distinct, 'every row once').toBe(rows);
      for (const n of acked) expect(bySeq.get(n), `acknowledged request ${n}`).toBe(LINES);
      for (const n of refused) expect([0, LINES], `refused request ${n}`).toContain(bySeq.get(n) ?? 0);
    } finally {
      await again.stop();
      again.cleanup();
      await nats.nodes[0]!.start();
    }
    // Leader elections of the meta group and of each stream run on a loaded machine here: the
    // restart's replay may wait out a stalled consumer (JetStreamWal.#replay) before it is ready.
  }, 180_000);
});
