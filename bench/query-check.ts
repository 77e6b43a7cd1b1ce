// bench:query --check: asks every system each benchmark query once more (untimed) and compares
// the answers, so that the table compares systems answering the same question. Each answer is
// reduced to key -> number: a: minute; b: host and hour; c and lastpoint: host and field (an
// instant MetricsQL query reports its evaluation time, not the sample's, so times are left out);
// double-groupby-all: host, hour, field; high-cpu-all: host, time, field; groupby-orderby-limit:
// minute. Values compare with a relative tolerance of 1e-9 (sums in a different order).
// Sundial answers as JSON (Accept: application/json), the peers in their own JSON.

import type { BenchQuery, Windows } from './tsbs-queries.js';

export type Answers = Map<string, Map<string, number>>;

const HOST = 'host_42';

/** The peers' queries a, b and c exactly as ../shared/bench/query-bench.mjs builds them. */
function peerAbc(system: 'influxdb' | 'vm', w: Windows): BenchQuery[] {
  const durS = (w.dataEndMs - w.dataStartMs) / 1000;
  const aStart = w.dataStartMs + Math.floor(durS / 3600 / 2) * 3600_000;
  const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
  if (system === 'influxdb') {
    const q = (name: string, text: string): BenchQuery => ({
      name,
      method: 'GET',
      path: `/query?db=bench&q=${encodeURIComponent(text)}`,
    });
    return [
      q(
        'a',
        `SELECT max(usage_user) FROM cpu WHERE hostname = '${HOST}' AND time >= '${iso(aStart)}' AND time < '${iso(aStart + 3600_000)}' GROUP BY time(1m)`,
      ),
      q(
        'b',
        `SELECT mean(usage_user) FROM cpu WHERE time >= '${iso(w.dataStartMs)}' AND time < '${iso(w.dataEndMs)}' GROUP BY time(1h), hostname`,
      ),
      q('c', 'SELECT * FROM cpu GROUP BY hostname ORDER BY time DESC LIMIT 1'),
    ];
  }
  const e = (ms: number): string => ((ms - 1) / 1000).toFixed(3);
  const range = (name: string, query: string, start: string, end: string, step: number): BenchQuery => ({
    name,
    method: 'GET',
    path: `/api/v1/query_range?nocache=1&query=${encodeURIComponent(query)}&start=${start}&end=${end}&step=${step}`,
  });
  return [
    range('a', `max_over_time(cpu_usage_user{hostname="${HOST}"}[1m])`, e(aStart + 60_000), e(aStart + 3600_000), 60),
    range(
      'b',
      'avg by (hostname) (avg_over_time(cpu_usage_user[1h]))',
      e(w.dataStartMs + 3600_000),
      e(w.dataEndMs),
      3600,
    ),
    {
      name: 'c',
      method: 'GET',
      path: `/api/v1/query?nocache=1&query=${encodeURIComponent('last_over_time({__name__=~"cpu_usage_.*"}[1h])')}&time=${w.dataEndMs / 1000}`,
    },
  ];
}

/** query-bench.mjs's placeholders, for Sundial's shared queries (as it fills them with its defaults and --db public). */
export function substitute(s: string, w: Windows): string {
  const durS = (w.dataEndMs - w.dataStartMs) / 1000;
  const aStart = w.dataStartMs + Math.floor(durS / 3600 / 2) * 3600_000;
  const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
  const v: Record<string, string> = {
    START: iso(w.dataStartMs),
    END: iso(w.dataEndMs),
    A_START: iso(aStart),
    A_END: iso(aStart + 3600_000),
    HOST,
    DB: 'public',
  };
  return s.replace(/\{([A-Z_]+)\}/g, (m, k: string) => v[k] ?? m);
}

async function ask(base: string, q: BenchQuery, auth: string | undefined): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (auth !== undefined) headers.Authorization = auth;
  if (q.contentType !== undefined) headers['Content-Type'] = q.contentType;
  const res = await fetch(base + q.path, {
    method: q.method,
    headers,
    ...(q.body === undefined ? {} : { body: q.body }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${q.name}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

const timeMs = (t: string | number): number =>
  typeof t === 'number' ? t : Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`);
/** MetricsQL evaluation time (s) of a bucket ending 1 ms later -> the bucket's start in ms. */
const bucketStart = (t: number, widthMs: number): number => Math.round(t * 1000) + 1 - widthMs;

type Row = Record<string, unknown>;
const field = (name: string): string => name.replace(/^cpu_/, '').replace(/^mean_/, '');

function fromSundial(name: string, rows: Row[]): Map<string, number> {
  const out = new Map<string, number>();
  const put = (k: string, v: unknown): void => void (typeof v === 'number' && out.set(k, v));
  for (const r of rows) {
    switch (name) {
      case 'a':
        put(`${timeMs(r.t as string)}`, r.max_usage_user);
        break;
      case 'b':
        put(`${r.hostname}|${timeMs(r.t as string)}`, r.mean_usage_user);
        break;
      case 'c':
      case 'lastpoint':
        for (const [k, v] of Object.entries(r)) if (k.startsWith('usage_')) put(`${r.hostname}|${k}`, v);
        break;
      case 'double-groupby-all':
        for (const [k, v] of Object.entries(r))
          if (k.startsWith('mean_')) put(`${r.hostname}|${timeMs(r.hour as string)}|${field(k)}`, v);
        break;
      case 'high-cpu-all':
        for (const [k, v] of Object.entries(r))
          if (k.startsWith('usage_')) put(`${r.hostname}|${timeMs(r.time as string)}|${k}`, v);
        break;
      case 'groupby-orderby-limit':
        put(`${timeMs(r.minute as string)}`, r.max_usage_user);
        break;
    }
  }
  return out;
}

interface InfluxSeries {
  tags?: Record<string, string>;
  columns: string[];
  values: unknown[][];
}

const MEANS = [
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

function fromInflux(name: string, body: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const series = ((body as { results: Array<{ series?: InfluxSeries[] }> }).results[0]?.series ?? []) as InfluxSeries[];
  const put = (k: string, v: unknown): void => void (typeof v === 'number' && out.set(k, v));
  for (const s of series) {
    const host = s.tags?.hostname;
    for (const row of s.values) {
      const t = timeMs(row[0] as string);
      const col = (c: string): unknown => row[s.columns.indexOf(c)];
      switch (name) {
        case 'a':
        case 'groupby-orderby-limit':
          put(`${t}`, row[1]);
          break;
        case 'b':
          put(`${host}|${t}`, row[1]);
          break;
        case 'c':
        case 'lastpoint':
          s.columns.forEach((c, i) => {
            if (c.startsWith('usage_')) put(`${host}|${c}`, row[i]);
          });
          break;
        case 'double-groupby-all':
          // mean, mean_1, ... in the order of the SELECT list.
          s.columns.slice(1).forEach((_, i) => {
            put(`${host}|${t}|${MEANS[i]}`, row[i + 1]);
          });
          break;
        case 'high-cpu-all':
          s.columns.forEach((c, i) => {
            if (c.startsWith('usage_')) put(`${col('hostname')}|${t}|${c}`, row[i]);
          });
          break;
      }
    }
  }
  return out;
}

interface VmSeries {
  metric: Record<string, string>;
  values?: Array<[number, string]>;
  value?: [number, string];
}

function fromVm(name: string, body: unknown): Map<string, number> {
  const out = new Map<string, number>();
  const result = (body as { data: { result: VmSeries[] } }).data.result;
  for (const s of result) {
    const host = s.metric.hostname;
    const f = s.metric.__name__ === undefined ? 'usage_user' : field(s.metric.__name__);
    for (const [t, text] of s.values ?? (s.value === undefined ? [] : [s.value])) {
      const v = Number(text);
      switch (name) {
        case 'a':
        case 'groupby-orderby-limit':
          out.set(`${bucketStart(t, 60_000)}`, v);
          break;
        case 'b':
          out.set(`${host}|${bucketStart(t, 3600_000)}`, v);
          break;
        case 'c':
        case 'lastpoint':
          out.set(`${host}|${f}`, v);
          break;
        case 'double-groupby-all':
          out.set(`${host}|${bucketStart(t, 3600_000)}|${f}`, v);
          break;
        case 'high-cpu-all':
          out.set(`${host}|${Math.round(t * 1000)}|${f}`, v);
          break;
      }
    }
  }
  return out;
}

/** Each benchmark query's answer from one system. */
export async function fetchAnswers(
  system: 'sundial' | 'influxdb' | 'vm',
  base: string,
  tsbs: BenchQuery[],
  w: Windows,
  login?: { user: string; password: string },
): Promise<Answers> {
  const out: Answers = new Map();
  const auth =
    login === undefined ? undefined : `Basic ${Buffer.from(`${login.user}:${login.password}`).toString('base64')}`;
  const list =
    system === 'sundial'
      ? tsbs.map((q) => ({
          ...q,
          path: substitute(q.path, w),
          ...(q.body === undefined ? {} : { body: substitute(q.body, w) }),
        }))
      : [...peerAbc(system, w), ...tsbs];
  for (const q of list) {
    const body = await ask(base, q, auth);
    out.set(
      q.name,
      system === 'sundial'
        ? fromSundial(q.name, body as Row[])
        : system === 'influxdb'
          ? fromInflux(q.name, body)
          : fromVm(q.name, body),
    );
  }
  return out;
}

/** Differences between the systems' answers, as lines; empty when they all agree. */
export function checkAnswers(bySystem: Map<string, Answers>): string[] {
  const problems: string[] = [];
  const systems = [...bySystem.keys()];
  const [first, ...rest] = systems;
  if (first === undefined) return problems;
  for (const [query, ref] of bySystem.get(first)!) {
    if (ref.size === 0) problems.push(`${query}: ${first} returned nothing`);
    for (const other of rest) {
      const ans = bySystem.get(other)!.get(query);
      if (ans === undefined) continue;
      let missing = 0;
      let differ = 0;
      let example = '';
      for (const [k, v] of ref) {
        const x = ans.get(k);
        if (x === undefined) {
          missing++;
          example ||= `${k}: ${first} ${v}, ${other} none`;
        } else if (Math.abs(x - v) > 1e-9 * Math.max(1, Math.abs(v))) {
          differ++;
          example ||= `${k}: ${first} ${v}, ${other} ${x}`;
        }
      }
      const extra = [...ans.keys()].filter((k) => !ref.has(k)).length;
      if (missing + differ + extra > 0)
        problems.push(
          `${query}: ${first} vs ${other}: ${ref.size} vs ${ans.size} values, ${missing} missing, ${extra} extra, ${differ} different (${example})`,
        );
    }
  }
  return problems;
}
