// CnosDB's durations (its CnosDuration type, 2.4): database TTL and VNODE_DURATION, a tenant's
// `drop_after` and `DROP ... AFTER`. A bare unsigned integer counts days (infinite when the days
// overflow u64 seconds), `INF` in any case is infinite, and anything else is read as the humantime
// crate reads it: numbers with units, optionally separated by spaces ("1h30m", "2y 1M"). Units
// are case-sensitive (`M` months, `m` minutes); a month is 30.44 days and a year 365.25 days;
// the total is u64 seconds plus nanoseconds, and an overflow is an error like a bad unit.

export interface CnosDuration {
  secs: bigint;
  /** 0 to 999,999,999. */
  nanos: number;
  /** INF: never (secs and nanos are 0). */
  inf: boolean;
}

const U64_MAX = 2n ** 64n - 1n;
const DAY_S = 86_400n;

/** humantime's units: [seconds, nanoseconds] per unit. */
const UNITS: ReadonlyMap<string, readonly [bigint, bigint]> = new Map(
  (
    [
      [
        ['nanos', 'nsec', 'ns'],
        [0n, 1n],
      ],
      [
        ['usec', 'us'],
        [0n, 1_000n],
      ],
      [
        ['millis', 'msec', 'ms'],
        [0n, 1_000_000n],
      ],
      [
        ['seconds', 'second', 'secs', 'sec', 's'],
        [1n, 0n],
      ],
      [
        ['minutes', 'minute', 'min', 'mins', 'm'],
        [60n, 0n],
      ],
      [
        ['hours', 'hour', 'hr', 'hrs', 'h'],
        [3_600n, 0n],
      ],
      [
        ['days', 'day', 'd'],
        [86_400n, 0n],
      ],
      [
        ['weeks', 'week', 'w'],
        [604_800n, 0n],
      ],
      [
        ['months', 'month', 'M'],
        [2_630_016n, 0n],
      ],
      [
        ['years', 'year', 'y'],
        [31_557_600n, 0n],
      ],
    ] as const
  ).flatMap(([names, per]) => names.map((n) => [n, per] as const)),
);

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isSpace = (c: string): boolean => /\s/.test(c);

/** humantime's parse_duration: null for anything it refuses (empty, bad character or unit, overflow). */
function parseHumantime(text: string): { secs: bigint; nanos: bigint } | null {
  let secs = 0n;
  let nanos = 0n;
  let i = 0;
  const n = text.length;
  let any = false;
  for (;;) {
    while (i < n && isSpace(text[i]!)) i++;
    if (i === n) break;
    if (!isDigit(text[i]!)) return null;
    let value = 0n;
    // The number: digits, spaces allowed between them and the unit.
    while (i < n && (isDigit(text[i]!) || isSpace(text[i]!))) {
      if (isDigit(text[i]!)) {
        value = value * 10n + BigInt(text.charCodeAt(i) - 48);
        if (value > U64_MAX) return null;
      }
      i++;
    }
    const start = i;
    while (i < n && isLetter(text[i]!)) i++;
    if (i < n && !isDigit(text[i]!) && !isSpace(text[i]!)) return null;
    const per = UNITS.get(text.slice(start, i));
    if (per === undefined) return null;
    const [unitSecs, unitNanos] = per;
    if (unitSecs > 0n) {
      secs += value * unitSecs;
    } else {
      const total = value * unitNanos;
      secs += total / 1_000_000_000n;
      nanos += total % 1_000_000_000n;
      if (nanos >= 1_000_000_000n) {
        secs += 1n;
        nanos -= 1_000_000_000n;
      }
    }
    if (value * unitSecs > U64_MAX || secs > U64_MAX) return null;
    any = true;
  }
  return any ? { secs, nanos } : null;
}

/** Reads a duration as CnosDB does; null when it is not one (CnosDB: "... is not a valid duration or duration overflow"). */
export function parseCnosDuration(text: string): CnosDuration | null {
  if (/^\+?\d+$/.test(text)) {
    const days = BigInt(text);
    if (days > U64_MAX) return null;
    return days > U64_MAX / DAY_S ? { secs: 0n, nanos: 0, inf: true } : { secs: days * DAY_S, nanos: 0, inf: false };
  }
  if (text.toUpperCase() === 'INF') return { secs: 0n, nanos: 0, inf: true };
  const d = parseHumantime(text);
  return d === null ? null : { secs: d.secs, nanos: Number(d.nanos), inf: false };
}

/** Whole milliseconds (truncated, at most Number.MAX_SAFE_INTEGER); null for INF. */
export function durationMs(d: CnosDuration): number | null {
  if (d.inf) return null;
  const ms = d.secs * 1000n + BigInt(Math.trunc(d.nanos / 1e6));
  return ms > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(ms);
}

/** The message CnosDB gives for a value parseCnosDuration refuses. */
export function invalidDurationMessage(text: string): string {
  return `sql parser error: ${text} is not a valid duration or duration overflow`;
}
