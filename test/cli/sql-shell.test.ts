// The interactive `sundial sql` shell in a real terminal (tmux, test/support/terminal.ts), typed
// into as a person would: multi-line statements, backslash commands, the history file, Ctrl-C
// cancelling a running statement (and the server stopping it) or clearing the input, the password
// prompt that does not echo, and --data-dir in this process through library mode.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { open } from '../../host/node/library.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { Terminal } from '../support/terminal.js';

const BIN = new URL('../../bin/sundial.js', import.meta.url).pathname;
const NO_WARMUPS = ['--warmup', 'false', '--write-warmup', 'false', '--parse-warmup', 'false'];
const root = mkdtempSync(join(tmpdir(), 'sundial-shell-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let homes = 0;
/** A fresh home directory, where ~/.sundial_history goes. */
const freshHome = (): string => mkdtempSync(join(root, `home${++homes}-`));

let terminal: Terminal | undefined;
afterEach(() => {
  terminal?.close();
  terminal = undefined;
});

/** `sundial sql ARGS` in a new terminal, with HOME and only the variables given. */
function shell(args: readonly string[], env: Record<string, string>): Terminal {
  terminal = Terminal.start([process.execPath, BIN, 'sql', ...args], env);
  return terminal;
}

/** The screen ends with an empty `prompt` (the shell waits for input). */
const waitsAt =
  (prompt: string) =>
  (screen: string): boolean =>
    screen.endsWith(`\n${prompt.trimEnd()}\n`);

/** The lines of the screen after the last time `marker` begins one. */
function linesFrom(screen: string, marker: string): string {
  return screen.slice(screen.lastIndexOf(`\n${marker}`) + 1);
}

describe('sundial sql shell against a server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ args: NO_WARMUPS });
    const rows = Array.from({ length: 1000 }, (_, i) => `big,h=h${i % 10} v=${i} ${i + 1}`).join('\n');
    expect((await http(server.url, '/api/v1/write?db=public', { body: rows })).status).toBe(200);
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('runs statements as they are typed, over several lines, and prints an aligned table', async () => {
    const t = shell(['--url', server.url], { HOME: freshHome() });
    await t.waitFor(waitsAt('public=> '));
    expect(t.screen()).toContain(`(${server.url}). Type \\? for help, \\q to quit.`);
    t.line('CREATE TABLE shell_t (v DOUBLE,');
    await t.waitFor(waitsAt('public-> '));
    t.line('TAGS(h));');
    await t.waitFor(waitsAt('public=> '));
    t.line("INSERT INTO shell_t (time, h, v) VALUES (1, 'a', 1.5), (2, 'b', 20.25); SELECT h, v");
    await t.waitFor(waitsAt('public-> '));
    t.line('FROM shell_t ORDER BY h;');
    const screen = await t.waitFor((s) => waitsAt('public=> ')(s) && s.includes('| b | 20.25 |'));
    expect(linesFrom(screen, 'public=> INSERT')).toBe(
      [
        "public=> INSERT INTO shell_t (time, h, v) VALUES (1, 'a', 1.5), (2, 'b', 20.25); SELECT h, v",
        '+------+',
        '| rows |',
        '+------+',
        '| 2    |',
        '+------+',
        'public-> FROM shell_t ORDER BY h;',
        '+---+-------+',
        '| h | v     |',
        '+---+-------+',
        '| a | 1.5   |',
        '| b | 20.25 |',
        '+---+-------+',
        'public=>',
        '',
      ].join('\n'),
    );
    // A ; inside a string or a comment ends nothing.
    t.line("SELECT 'x;y' AS s -- not here;");
    await t.waitFor(waitsAt('public-> '));
    t.line(';');
    await t.waitFor((s) => s.includes('| x;y |') && waitsAt('public=> ')(s));
    t.key('C-d');
    await t.waitFor('[exited 0]');
  });

  it('switches database, tenant, format and timing with backslash commands', async () => {
    expect((await http(server.url, '/api/v1/sql', { body: 'CREATE DATABASE shell_db' })).status).toBe(200);
    const t = shell(['--url', server.url], { HOME: freshHome() });
    await t.waitFor(waitsAt('public=> '));
    t.line('\\c no_such_db');
    await t.waitFor('ERROR: 422 030017 Meta: Database not found: "no_such_db"');
    t.line('\\c shell_db');
    await t.waitFor(waitsAt('shell_db=> '));
    expect(t.screen()).toContain('You are now using database "shell_db".');
    t.line('\\format csv');
    t.line('SELECT 7 AS seven;');
    await t.waitFor('seven\n7\n');
    t.line('\\format ndjson');
    t.line('\\timing');
    t.line('SELECT 8 AS eight;');
    const timed = await t.waitFor(/\{"eight":8\}\nTime: \d+\.\d{3} ms\n/);
    expect(timed).toContain('Timing is on.');
    t.line('\\format xml');
    await t.waitFor('ERROR: \\format: unknown format "xml" (want table, csv, tsv, json, ndjson)');
    t.line('\\tenant nobody');
    await t.waitFor(waitsAt('nobody/shell_db=> '));
    t.line('SELECT 9;');
    await t.waitFor(/ERROR: 422 030010 .*\n/);
    t.line('\\nope');
    await t.waitFor('ERROR: invalid command \\nope; try \\? for help');
    t.line('\\?');
    await t.waitFor('\\timing [on|off]    show how long each statement took');
    t.line('\\q');
    await t.waitFor('[exited 0]');
  });

  it('cancels the running statement on Ctrl-C, and the server stops it; the shell goes on', async () => {
    const t = shell(['--url', server.url, '--format', 'csv'], { HOME: freshHome() });
    await t.waitFor(waitsAt('public=> '));
    // 10^9 rows through two cross joins: minutes, unless stopped.
    t.line('SELECT count(*) AS n FROM big a CROSS JOIN big b CROSS JOIN big c;');
    const running = async (): Promise<string[]> => {
      const res = await http(server.url, '/api/v1/sql', {
        body: 'SELECT query_text FROM information_schema.queries',
        headers: { accept: 'application/json' },
      });
      return (JSON.parse(res.text) as Array<{ query_text: string }>).map((r) => r.query_text);
    };
    const deadline = Date.now() + 30_000;
    while (!(await running()).some((q) => q.includes('CROSS JOIN')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(await running()).toContain('SELECT count(*) AS n FROM big a CROSS JOIN big b CROSS JOIN big c');
    t.key('C-c');
    await t.waitFor((s) => s.includes('ERROR: canceled\npublic=>') && waitsAt('public=> ')(s));
    const stopped = Date.now() + 30_000;
    while ((await running()).some((q) => q.includes('CROSS JOIN')) && Date.now() < stopped)
      await new Promise((r) => setTimeout(r, 50));
    expect((await running()).filter((q) => q.includes('CROSS JOIN'))).toEqual([]);
    // At the prompt, Ctrl-C drops the input typed so far, also a statement's earlier lines.
    t.line('SELECT 1 AS one,');
    await t.waitFor(waitsAt('public-> '));
    t.type('SELEC');
    t.key('C-c');
    await t.waitFor('public-> SELEC^C\npublic=>');
    t.line('SELECT 5 AS five;');
    await t.waitFor('five\n5\n');
    t.key('C-d');
    await t.waitFor('[exited 0]');
  });

  it('keeps the history in ~/.sundial_history, or the file given, and recalls it with Up', async () => {
    const home = freshHome();
    const first = shell(['--url', server.url, '--format', 'csv'], { HOME: home });
    await first.waitFor(waitsAt('public=> '));
    first.line('SELECT 11 AS eleven;');
    await first.waitFor('eleven\n11\n');
    first.line('\\q');
    await first.waitFor('[exited 0]');
    first.close();
    const file = join(home, '.sundial_history');
    expect(readFileSync(file, 'utf8')).toBe('SELECT 11 AS eleven;\n\\q\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const again = shell(['--url', server.url, '--format', 'csv'], { HOME: home });
    await again.waitFor(waitsAt('public=> '));
    again.key('Up', 'Up');
    await again.waitFor((s) => s.endsWith('public=> SELECT 11 AS eleven;\n'));
    again.key('Enter');
    await again.waitFor((s) => linesFrom(s, 'public=> SELECT 11').split('eleven\n11\n').length === 2);
    again.key('C-d');
    await again.waitFor('[exited 0]');
    again.close();

    const elsewhere = join(home, 'other-history');
    const third = shell(['--url', server.url, '--format', 'csv'], { HOME: home, SUNDIAL_HISTORY: elsewhere });
    await third.waitFor(waitsAt('public=> '));
    third.line('SELECT 12 AS twelve;');
    await third.waitFor('twelve\n12\n');
    third.key('C-d');
    await third.waitFor('[exited 0]');
    expect(readFileSync(elsewhere, 'utf8')).toBe('SELECT 12 AS twelve;\n');
    // Run again, the statement is the newest line (one copy of it).
    expect(readFileSync(file, 'utf8')).toBe('\\q\nSELECT 11 AS eleven;\n');
  });
});

describe('sundial sql shell password', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ args: [...NO_WARMUPS, '--root-password', 'pa55word'] });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  it('asks for the password when the server refuses the empty one, without echoing it', async () => {
    const t = shell(['--url', server.url, '--format', 'csv'], { HOME: freshHome() });
    await t.waitFor('Password for user root:');
    t.line('pa55word');
    await t.waitFor(waitsAt('public=> '));
    t.line('SELECT 3 AS three;');
    const screen = await t.waitFor('three\n3\n');
    expect(screen).not.toContain('pa55word');
    t.key('C-d');
    await t.waitFor('[exited 0]');
  });

  it('takes SUNDIAL_PASSWORD without asking, and exits 1 on a wrong password', async () => {
    const t = shell(['--url', server.url, '--format', 'csv'], { HOME: freshHome(), SUNDIAL_PASSWORD: 'pa55word' });
    await t.waitFor(waitsAt('public=> '));
    expect(t.screen()).not.toContain('Password');
    t.key('C-d');
    await t.waitFor('[exited 0]');
    t.close();
    const wrong = shell(['--url', server.url], { HOME: freshHome() });
    await wrong.waitFor('Password for user root:');
    wrong.type('nope');
    wrong.key('BSpace', 'BSpace', 'BSpace', 'BSpace');
    wrong.line('wrong');
    await wrong.waitFor('sundial: password authentication failed for user "root"\n[exited 1]');
  });
});

describe('sundial sql shell with --data-dir', () => {
  it('runs statements in this process through library mode, holding the directory', async () => {
    const dataDir = join(root, 'local');
    const t = shell(['--data-dir', dataDir], { HOME: freshHome() });
    await t.waitFor(waitsAt('public=> '));
    expect(t.screen()).toContain(`(${dataDir}). Type \\? for help`);
    t.line('CREATE TABLE local_t (v DOUBLE, TAGS(h));');
    t.line("INSERT INTO local_t (time, h, v) VALUES (1, 'a', 2.5);");
    await t.waitFor((s) => s.includes('| 1    |') && waitsAt('public=> ')(s));
    t.line('SELECT h, v FROM local_t;');
    const screen = await t.waitFor((s) => s.includes('| a | 2.5 |') && waitsAt('public=> ')(s));
    expect(linesFrom(screen, 'public=> SELECT h, v')).toBe(
      [
        'public=> SELECT h, v FROM local_t;',
        '+---+-----+',
        '| h | v   |',
        '+---+-----+',
        '| a | 2.5 |',
        '+---+-----+',
        'public=>',
        '',
      ].join('\n'),
    );
    // While the shell has the directory, a server cannot start on it.
    const refused = await startServer({ dataDir, args: NO_WARMUPS, waitReady: false }).then(
      // It listens only if it took the directory: stop it then, and fail below.
      async (s) => ({ code: await s.stop(), logs: JSON.stringify(s.logs) }),
      (e: unknown) => ({ code: undefined, logs: String(e) }),
    );
    expect(refused.logs).toContain(`data directory ${dataDir} is in use`);
    t.line('\\q');
    await t.waitFor('[exited 0]');
    // Closed: the server takes it, with the rows.
    const server = await startServer({ dataDir, args: NO_WARMUPS });
    try {
      expect((await http(server.url, '/api/v1/sql', { body: 'SELECT h, v FROM local_t' })).text).toBe('h,v\na,2.5\n');
    } finally {
      await server.stop();
    }
  });
});

it('cancels a statement running in process on Ctrl-C (--data-dir), and goes on', async () => {
  const dataDir = join(root, 'local-cancel');
  const db = await open({ dataDir });
  await db.write(Array.from({ length: 1000 }, (_, i) => `big,h=h${i % 10} v=${i} ${i + 1}`).join('\n'));
  await db.close();
  const t = shell(['--data-dir', dataDir, '--format', 'csv'], { HOME: freshHome() });
  await t.waitFor(waitsAt('public=> '));
  // 10^9 rows through two cross joins: minutes, unless stopped.
  t.line('SELECT count(*) AS n FROM big a CROSS JOIN big b CROSS JOIN big c;');
  await t.waitFor((s) => s.endsWith('CROSS JOIN big c;\n'));
  await new Promise((r) => setTimeout(r, 500));
  t.key('C-c');
  await t.waitFor((s) => s.includes('ERROR: canceled\npublic=>') && waitsAt('public=> ')(s));
  t.line('SELECT 6 AS six;');
  await t.waitFor('six\n6\n');
  t.key('C-d');
  await t.waitFor('[exited 0]');
});
