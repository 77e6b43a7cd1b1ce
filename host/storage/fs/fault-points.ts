// Fault injection for the tests: crashes and I/O failures. With SUNDIAL_TEST_KILL_AT=<point> (or
// <point>#<n> for the n-th time), the process SIGKILLs itself when it reaches that point of a
// flush or compaction (test/storage/*crash*). A kill -9 from inside lands at an exact step, which a signal from the
// test process could only hit by luck. Unset in production: the check is one comparison.

const spec = process.env.SUNDIAL_TEST_KILL_AT;
const [target, nth] = spec === undefined ? [undefined, 1] : [spec.split('#')[0], Number(spec.split('#')[1] ?? 1)];
let hits = 0;

/** The named steps, in the order a flush or compaction reaches them (FORMAT.md §6). */
export type FaultPoint =
  | 'flush:segment-written'
  | 'object:uploaded'
  | 'flush:segment-renamed'
  | 'flush:manifest-temp'
  | 'flush:manifest-saved'
  | 'flush:wal-trimmed'
  | 'compact:segment-written'
  | 'compact:segment-renamed'
  | 'compact:manifest-temp'
  | 'compact:manifest-saved'
  | 'compact:inputs-deleted'
  | 'export:segment-written'
  | 'export:segment-renamed';

/** Whether a kill point is set (the query warm-up, whose scratch storage would reach it too, then stays off). */
export function faultPointArmed(): boolean {
  return target !== undefined;
}

export function faultPoint(point: FaultPoint): void {
  if (point !== target) return;
  if (++hits < nth) return;
  process.kill(process.pid, 'SIGKILL');
}

// Failure injection for the fault tests: with SUNDIAL_TEST_FAIL=<point>[#<n>][*<times>][:<CODE>]
// the n-th time the process reaches <point> (default 1), and the `times` - 1 times after it
// (default 1; 0 = every time from then on), the operation fails with an error whose `code` is
// CODE (default EIO), as the file system would fail it. In-process tests arm it with
// `injectFailure`. Unset in production: the check is one comparison.

/** The I/O calls a failure can be injected into. */
export type FailurePoint = 'wal:write' | 'wal:fsync' | 'wal:segment';

interface Failure {
  point: string;
  from: number;
  times: number;
  code: string;
  hits: number;
}

let failure: Failure | undefined = parseFailure(process.env.SUNDIAL_TEST_FAIL);

function parseFailure(spec: string | undefined): Failure | undefined {
  if (spec === undefined || spec === '') return undefined;
  const m = /^([a-z:-]+)(?:#(\d+))?(?:\*(\d+))?(?::([A-Z]+))?$/.exec(spec);
  if (m === null)
    throw new Error(`SUNDIAL_TEST_FAIL: cannot read ${JSON.stringify(spec)} (want <point>[#<n>][*<times>][:<CODE>])`);
  return { point: m[1]!, from: Number(m[2] ?? 1), times: Number(m[3] ?? 1), code: m[4] ?? 'EIO', hits: 0 };
}

/** Arms (or with undefined disarms) an injected failure, as SUNDIAL_TEST_FAIL would (in-process tests). */
export function injectFailure(spec: string | undefined): void {
  failure = parseFailure(spec);
}

/** Throws the injected error when `point` is armed for this hit. */
export function failurePoint(point: FailurePoint): void {
  if (failure === undefined || failure.point !== point) return;
  const hit = ++failure.hits;
  if (hit < failure.from || (failure.times > 0 && hit >= failure.from + failure.times)) return;
  const e = new Error(`${failure.code}: injected failure (SUNDIAL_TEST_FAIL), ${point}`) as NodeJS.ErrnoException;
  e.code = failure.code;
  throw e;
}
