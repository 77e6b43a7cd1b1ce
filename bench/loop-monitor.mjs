// Preloaded into a server by bench/isolation.ts (`node --import ./bench/loop-monitor.mjs`): how long
// the server's event loop was held by the server's own work. A timer due every 5 ms notes each
// late firing with its lateness in wall time and in the process's CPU time over the same span;
// a thread that waited for a core on a busy machine spent little CPU, one that ran a query slice
// spent about all of it, so the CPU figure is what the code under test controls (on 2 shared
// cores with a load of 15, an idle server's ping p99 was 70-250 ms). At exit the events are written
// to $SUNDIAL_LOOP_MONITOR as JSON: [hrtime µs when it fired, wall ms late, CPU ms late], for
// every firing more than 10 ms late. Garbage collection pauses of the thread over 5 ms go to
// $SUNDIAL_LOOP_MONITOR.gc: [hrtime µs when it ended, ms, kind (1 minor, 2 major, 4 incremental,
// 8 weak callbacks)].
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const out = process.env.SUNDIAL_LOOP_MONITOR;
if (out !== undefined) {
  const EVERY_MS = 5;
  const events = [];
  const now = () => Number(process.hrtime.bigint() / 1000n);
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let due = now() + EVERY_MS * 1000;
  let cpuAtDue = cpu();
  const tick = () => {
    const t = now();
    const c = cpu();
    const lateMs = (t - due) / 1000;
    if (lateMs > 10) events.push([t, Math.round(lateMs), Math.round(c - cpuAtDue)]);
    due = t + EVERY_MS * 1000;
    cpuAtDue = c;
    setTimeout(tick, EVERY_MS).unref();
  };
  setTimeout(tick, EVERY_MS).unref();
  const gcs = [];
  // performance.now() is on the same monotonic clock as hrtime, from timeOrigin.
  const originUs = now() - performance.now() * 1000;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.duration > 5)
        gcs.push([Math.round(originUs + (e.startTime + e.duration) * 1000), Math.round(e.duration), e.detail?.kind ?? 0]);
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    writeFileSync(out, JSON.stringify(events));
    writeFileSync(`${out}.gc`, JSON.stringify(gcs));
  });
}
