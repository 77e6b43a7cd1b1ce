// The interactive `sundial sql` shell (issue 29, docs/cli.md), as psql behaves: statements gather
// over lines until `;` (statement-buffer.ts), backslash commands act at once, history lives in a
// file, and Ctrl-C cancels the statement running (the HTTP request is aborted, and the server stops
// a query whose client went away) or clears the input, never ending the shell; Ctrl-D or \q does.
// Lines typed while a statement runs wait their turn.

import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { SQL_FORMATS, SqlClientError, type SqlFormat, type SqlSession, type SqlTarget } from '../node/index.js';
import { StatementBuffer } from './statement-buffer.js';

/** Lines of history kept, in memory and in the file. */
const HISTORY_LINES = 1000;

export interface ShellOptions {
  target: SqlTarget;
  session: SqlSession;
  /** The history file; undefined: none kept. */
  historyFile: string | undefined;
  /** What the banner says the shell talks to: a URL or a data directory. */
  where: string;
  version: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream & NodeJS.WriteStream;
  errors: NodeJS.WritableStream;
}

const HELP = `General
  \\q                  quit (also Ctrl-D on an empty line)
  \\?                  this help
Connection
  \\c [DATABASE]       use another database (or show the current one)
  \\tenant [NAME]      use another tenant (or show the current one)
Output
  \\format [FORMAT]    print answers as ${Object.keys(SQL_FORMATS).join(', ')} (or show the current one)
  \\timing [on|off]    show how long each statement took
Statements end with ; and may span lines. Ctrl-C cancels the statement running,
or clears the input.
`;

function readHistory(file: string | undefined): string[] {
  if (file === undefined) return [];
  try {
    // The file is oldest first, as shells keep it; readline wants newest first.
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .slice(-HISTORY_LINES)
      .reverse();
  } catch {
    return [];
  }
}

export function runShell(o: ShellOptions): Promise<void> {
  const session = o.session;
  const buffer = new StatementBuffer();
  let timing = false;
  let running: AbortController | undefined;
  let queue: Promise<void> = Promise.resolve();

  const rl: Interface = createInterface({
    input: o.input,
    output: o.output,
    terminal: true,
    history: readHistory(o.historyFile),
    historySize: HISTORY_LINES,
    removeHistoryDuplicates: true,
  });
  if (o.historyFile !== undefined) {
    const file = o.historyFile;
    rl.on('history', (lines: string[]) => {
      try {
        // Owner-only: statements may hold passwords (CREATE USER ... PASSWORD).
        writeFileSync(file, lines.toReversed().join('\n') + '\n', { mode: 0o600 });
      } catch (e) {
        o.errors.write(`sundial: cannot write the history to ${file}: ${(e as Error).message}\n`);
      }
    });
  }

  const prompt = (): void => {
    const where = session.tenant === 'cnosdb' ? session.database : `${session.tenant}/${session.database}`;
    rl.setPrompt(`${where}${buffer.pending ? '->' : '=>'} `);
    rl.prompt();
  };
  const say = (text: string): void => void o.output.write(text + '\n');
  const fail = (text: string): void => void o.errors.write(`ERROR: ${text}\n`);

  const run = async (sql: string): Promise<void> => {
    const abort = new AbortController();
    running = abort;
    const started = performance.now();
    try {
      await o.target.run(sql, session, o.output, abort.signal);
    } catch (e) {
      if (!(e instanceof SqlClientError)) throw e;
      fail(e.message);
    } finally {
      running = undefined;
    }
    if (timing) say(`Time: ${(performance.now() - started).toFixed(3)} ms`);
  };

  const command = async (line: string): Promise<void> => {
    const [name = '', ...args] = line.trim().slice(1).split(/\s+/);
    const arg = args[0];
    switch (name) {
      case 'q':
      case 'quit':
        rl.close();
        return;
      case '?':
        o.output.write(HELP);
        return;
      case 'c':
      case 'connect':
        if (arg === undefined)
          return say(`You are using database "${session.database}" of tenant "${session.tenant}".`);
        try {
          // Checked before switching: a typo should not turn every later statement into an error.
          await o.target.run(
            'SHOW TABLES',
            { ...session, database: arg },
            new Writable({ write: (_chunk, _encoding, done) => done() }),
          );
        } catch (e) {
          if (!(e instanceof SqlClientError)) throw e;
          return fail(e.message);
        }
        session.database = arg;
        return say(`You are now using database "${arg}".`);
      case 'tenant':
        if (arg === undefined) return say(`You are using tenant "${session.tenant}".`);
        session.tenant = arg;
        return say(`You are now using tenant "${arg}".`);
      case 'timing':
        if (arg !== undefined && arg !== 'on' && arg !== 'off') return fail(`\\timing: want on or off, got "${arg}"`);
        timing = arg === undefined ? !timing : arg === 'on';
        return say(`Timing is ${timing ? 'on' : 'off'}.`);
      case 'format':
        if (arg === undefined) return say(`Output format is ${session.format}.`);
        if (!Object.hasOwn(SQL_FORMATS, arg))
          return fail(`\\format: unknown format "${arg}" (want ${Object.keys(SQL_FORMATS).join(', ')})`);
        session.format = arg as SqlFormat;
        return say(`Output format is ${arg}.`);
      default:
        return fail(`invalid command \\${name}; try \\? for help`);
    }
  };

  const handle = async (line: string): Promise<void> => {
    if (line.trimStart().startsWith('\\')) await command(line);
    else for (const sql of buffer.add(line)) await run(sql);
  };

  return new Promise((resolve, reject) => {
    let closed = false;
    rl.on('line', (line) => {
      queue = queue
        .then(() => handle(line))
        .then(() => {
          if (!closed) prompt();
        }, reject);
    });
    rl.on('SIGINT', () => {
      if (running !== undefined) {
        running.abort();
        return;
      }
      // Nothing runs: drop what was typed, as psql does, and prompt again (^C after the whole
      // line: the cursor goes to its end first).
      rl.write(null, { ctrl: true, name: 'e' });
      o.output.write('^C\n');
      rl.write(null, { ctrl: true, name: 'u' });
      buffer.clear();
      prompt();
    });
    rl.on('close', () => {
      closed = true;
      running?.abort();
      void queue.then(() => {
        o.output.write('\n');
        resolve();
      }, reject);
    });
    o.output.write(`sundial ${o.version} (${o.where}). Type \\? for help, \\q to quit.\n`);
    prompt();
  });
}
