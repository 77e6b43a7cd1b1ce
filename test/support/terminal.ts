// A real pseudo-terminal for tests of interactive commands, driven through tmux (Debian's `tmux`,
// which .ci/run installs): a person's keys go in with send-keys, the screen comes back with
// capture-pane. Each terminal is a tmux server of its own (`-L`), so tests never share one.

import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

let terminals = 0;

/** Throws naming the package when tmux is missing, as the other client-driven tests do. */
export function requireTmux(): void {
  const r = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(
      'tmux is missing: these tests type into a real terminal through it; install the Debian package tmux (apt-get install tmux)',
    );
  }
}

export class Terminal {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  #tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * Runs `argv` in a new terminal of `width` x `height` with exactly `env` (plus TERM); when it
   * exits, the screen shows `[exited N]`.
   */
  static start(argv: readonly string[], env: Record<string, string>, width = 160, height = 60): Terminal {
    requireTmux();
    const t = new Terminal(`sundial-test-${process.pid}-${++terminals}`);
    const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
    const r = spawnSync(
      'tmux',
      [
        '-L',
        t.#socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'main',
        '-x',
        String(width),
        '-y',
        String(height),
        `${quoted}; echo "[exited $?]"; sleep 600`,
      ],
      {
        encoding: 'utf8',
        env: { ...env, PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm' },
      },
    );
    if (r.status !== 0) throw new Error(`tmux new-session failed: ${r.stderr}`);
    return t;
  }

  /** Types `text` as keys, byte for byte (hex, so that tmux reads no `;` or key name in it). */
  type(text: string): void {
    this.#tmux(
      'send-keys',
      '-t',
      'main',
      '-H',
      ...[...Buffer.from(text, 'utf8')].map((b) => b.toString(16).padStart(2, '0')),
    );
  }

  /** Types `text`, then Enter. */
  line(text: string): void {
    this.type(text);
    this.key('Enter');
  }

  /** Presses keys by tmux's names: Enter, C-c, C-d, Up. */
  key(...names: string[]): void {
    this.#tmux('send-keys', '-t', 'main', ...names);
  }

  /** Everything on the screen and above it, wrapped lines joined, trailing blank lines dropped. */
  screen(): string {
    return this.#tmux('capture-pane', '-p', '-J', '-t', 'main', '-S', '-5000').replace(/\s+$/, '') + '\n';
  }

  /** Waits until the screen satisfies `want` (a text it contains, a pattern, a test); returns the screen. */
  async waitFor(want: string | RegExp | ((screen: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const test =
      typeof want === 'string'
        ? (s: string) => s.includes(want)
        : want instanceof RegExp
          ? (s: string) => want.test(s)
          : want;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.screen();
      if (test(s)) return s;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(want)}; it shows:\n${s}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Ends the terminal and what runs in it. */
  close(): void {
    spawnSync('tmux', ['-L', this.#socket, 'kill-server']);
    // tmux leaves its socket file behind: one per terminal would pile up in /tmp.
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.#socket), { force: true });
  }
}
