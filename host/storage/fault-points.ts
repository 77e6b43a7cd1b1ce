// Crash injection for the crash tests (test/storage/*crash*): with SUNDIAL_TEST_KILL_AT=<point>
// (or <point>#<n> for the n-th time), the process SIGKILLs itself when it reaches that point of a
// flush or compaction. A kill -9 from inside lands at an exact step, which a signal from the
// test process could only hit by luck. Unset in production: the check is one comparison.

const spec = process.env.SUNDIAL_TEST_KILL_AT;
const [target, nth] = spec === undefined ? [undefined, 1] : [spec.split('#')[0], Number(spec.split('#')[1] ?? 1)];
let hits = 0;

/** The named steps, in the order a flush or compaction reaches them (FORMAT.md §6). */
export type FaultPoint =
  | 'flush:segment-written'
  | 'flush:segment-renamed'
  | 'flush:manifest-temp'
  | 'flush:manifest-saved'
  | 'flush:wal-trimmed'
  | 'compact:segment-written'
  | 'compact:segment-renamed'
  | 'compact:manifest-temp'
  | 'compact:manifest-saved'
  | 'compact:inputs-deleted';

/** Whether a kill point is set (the query warm-up, whose scratch storage would reach it too, then stays off). */
export function faultPointArmed(): boolean {
  return target !== undefined;
}

export function faultPoint(point: FaultPoint): void {
  if (point !== target) return;
  if (++hits < nth) return;
  process.kill(process.pid, 'SIGKILL');
}
