// The four TSBS devops queries issue 5 adds to bench:query, for Sundial (CnosDB SQL), InfluxDB
// 1.6 (InfluxQL) and VictoriaMetrics (MetricsQL), as entries for ../shared/bench/query-bench.mjs
// (`--target custom --queries FILE`), so that every system is timed by the same client.
//
// Definitions: TSBS cmd/tsbs_generate_queries/uses/devops (DoubleGroupByDuration and
// HighCPUDuration 12 h) with the SQL of its TimescaleDB generator and the InfluxQL of its influx
// generator. TSBS draws each window at random; here they are fixed, so that every system and
// every run answers the same question: the 12 hours in the middle of the data set, and for
// groupby-orderby-limit an end three quarters into it, on a minute boundary.
// Where TSBS's own text does not ask the same question, the equivalent is used instead:
// - groupby-orderby-limit, InfluxQL: TSBS sends `... GROUP BY time(1m) LIMIT 5` without
//   `ORDER BY time DESC`, which returns the first five minutes of the data, not the last five
//   before the end as its SQL does; `ORDER BY time DESC` is added.
// - lastpoint: CnosDB's dialect (DataFusion 27) has no `DISTINCT ON`, so the SQL is
//   query c's (row_number() = 1 per host). TSBS has no VictoriaMetrics version of it (nor of
//   high-cpu-all and groupby-orderby-limit); the MetricsQL below returns the same values.
//   lastpoint looks back over the whole data set, as the SQL and InfluxQL (no time bound) do;
//   query c keeps the anchors' 1 h look-back (PEERS.md), which favours VictoriaMetrics.
// - VictoriaMetrics windows are (t - w, t]; evaluating at a bucket end minus 1 ms gives the SQL
//   bucket [start, end) for millisecond data, as query-bench.mjs does for a and b.

export interface BenchQuery {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  contentType?: string;
}

export const TSBS_NAMES = ['double-groupby-all', 'high-cpu-all', 'groupby-orderby-limit', 'lastpoint'] as const;

const FIELDS = [
  'usage_user',
  'usage_system',
  'usage_idle',
  'usage_nice',
  'usage_iowait',
  'usage_irq',
  'usage_softirq',
  'usage_steal',
  'usage_guest',
  'usage_guest_nice',
];

const HOUR = 3600_000;
const MINUTE = 60_000;

export interface Windows {
  /** double-groupby-all and high-cpu-all: [start, end). */
  startMs: number;
  endMs: number;
  /** groupby-orderby-limit: time < this. */
  limitEndMs: number;
  /** The data set: [dataStart, dataEnd). */
  dataStartMs: number;
  dataEndMs: number;
}

export function windows(startIso: string, durationS: number): Windows {
  const dataStartMs = Date.parse(startIso);
  const dataEndMs = dataStartMs + durationS * 1000;
  const span = Math.min(12 * HOUR, durationS * 1000);
  const startMs = dataStartMs + Math.floor((durationS * 1000 - span) / 2 / HOUR) * HOUR;
  const limitEndMs = dataStartMs + Math.floor((durationS * 1000 * 3) / 4 / MINUTE) * MINUTE;
  return { startMs, endMs: startMs + span, limitEndMs, dataStartMs, dataEndMs };
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
/** A VictoriaMetrics evaluation time: seconds with millisecond digits. */
const vmTime = (ms: number): string => (ms / 1000).toFixed(3);

export function sundialQueries(w: Windows, db: string): BenchQuery[] {
  const sql = (name: string, body: string): BenchQuery => ({
    name,
    method: 'POST',
    path: `/api/v1/sql?db=${encodeURIComponent(db)}`,
    contentType: 'text/plain',
    body,
  });
  const S = iso(w.startMs);
  const E = iso(w.endMs);
  return [
    sql(
      'double-groupby-all',
      `SELECT date_bin(INTERVAL '1 hour', time) AS hour, hostname, ${FIELDS.map((f) => `avg(${f}) AS mean_${f}`).join(', ')} FROM cpu WHERE time >= '${S}' AND time < '${E}' GROUP BY hour, hostname ORDER BY hour, hostname`,
    ),
    sql('high-cpu-all', `SELECT * FROM cpu WHERE usage_user > 90.0 AND time >= '${S}' AND time < '${E}'`),
    sql(
      'groupby-orderby-limit',
      `SELECT date_bin(INTERVAL '1 minute', time) AS minute, max(usage_user) AS max_usage_user FROM cpu WHERE time < '${iso(w.limitEndMs)}' GROUP BY minute ORDER BY minute DESC LIMIT 5`,
    ),
    sql(
      'lastpoint',
      'SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY hostname ORDER BY time DESC) AS rn FROM cpu) WHERE rn = 1 ORDER BY hostname',
    ),
  ];
}

export function influxQueries(w: Windows, db: string): BenchQuery[] {
  const q = (name: string, text: string): BenchQuery => ({
    name,
    method: 'GET',
    path: `/query?db=${encodeURIComponent(db)}&q=${encodeURIComponent(text)}`,
  });
  const S = iso(w.startMs);
  const E = iso(w.endMs);
  return [
    q(
      'double-groupby-all',
      `SELECT ${FIELDS.map((f) => `mean(${f})`).join(', ')} from cpu where time >= '${S}' and time < '${E}' group by time(1h),hostname`,
    ),
    q('high-cpu-all', `SELECT * from cpu where usage_user > 90.0 and time >= '${S}' and time < '${E}'`),
    q(
      'groupby-orderby-limit',
      `SELECT max(usage_user) from cpu WHERE time < '${iso(w.limitEndMs)}' group by time(1m) ORDER BY time DESC limit 5`,
    ),
    q('lastpoint', 'SELECT * from cpu group by "hostname" order by time desc limit 1'),
  ];
}

export function vmQueries(w: Windows): BenchQuery[] {
  const range = (name: string, query: string, startMs: number, endMs: number, stepS: number): BenchQuery => ({
    name,
    method: 'GET',
    path: `/api/v1/query_range?nocache=1&query=${encodeURIComponent(query)}&start=${vmTime(startMs)}&end=${vmTime(endMs)}&step=${stepS}`,
  });
  const metrics = `{__name__=~"cpu_(${FIELDS.join('|')})"}`;
  const lookbackS = Math.ceil((w.dataEndMs - w.dataStartMs) / 1000);
  return [
    range(
      'double-groupby-all',
      `avg(avg_over_time(${metrics}[1h])) by (__name__, hostname)`,
      w.startMs + HOUR - 1,
      w.endMs - 1,
      3600,
    ),
    // Every 10 s sample time of the window (the data's interval): the fields of the rows whose
    // usage_user is above 90, per host.
    range('high-cpu-all', `${metrics} and on (hostname) (cpu_usage_user > 90)`, w.startMs, w.endMs - 10_000, 10),
    range(
      'groupby-orderby-limit',
      'max(max_over_time(cpu_usage_user[1m]))',
      w.limitEndMs - 4 * MINUTE - 1,
      w.limitEndMs - 1,
      60,
    ),
    {
      name: 'lastpoint',
      method: 'GET',
      path: `/api/v1/query?nocache=1&query=${encodeURIComponent(`last_over_time(${metrics}[${lookbackS}s])`)}&time=${vmTime(w.dataEndMs)}`,
    },
  ];
}
