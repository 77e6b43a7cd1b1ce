// The progress line of `sundial import` and `export` on stderr, rewritten in place at most four
// times a second, and only when stderr is a terminal (a log file would fill with carriage returns).

const INTERVAL_MS = 250;

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export function durationText(s: number): string {
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60
    ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export class Progress {
  readonly #out: NodeJS.WriteStream;
  readonly #start = performance.now();
  #last = 0;
  #shown = false;

  constructor(
    out: NodeJS.WriteStream,
    readonly label: string,
  ) {
    this.#out = out;
  }

  get enabled(): boolean {
    return this.#out.isTTY === true;
  }

  /** Redraws the line (throttled): rows so far, bytes so far out of `total` when known. */
  update(rows: number, bytes: number, total?: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.#last < INTERVAL_MS) return;
    this.#last = now;
    const s = (now - this.#start) / 1000;
    let line = `${this.label}: ${count(rows)} rows, ${count(Math.round(rows / Math.max(s, 0.001)))} rows/s, ${bytesText(bytes)}`;
    if (total !== undefined && total > 0) {
      const done = Math.min(1, bytes / total);
      line += ` of ${bytesText(total)} (${Math.floor(done * 100)}%)`;
      if (done > 0.01) line += `, ETA ${durationText((s / done) * (1 - done))}`;
    }
    this.#out.write(`\r${line}\x1b[K`);
    this.#shown = true;
  }

  /** Clears the line, before the summary is printed. */
  clear(): void {
    if (this.#shown) this.#out.write('\r\x1b[K');
    this.#shown = false;
  }
}
