// The sandbox page: forms to load data (a table from the server's export route, dropped files,
// the demo set), the SQL editor with its history, and the result as a table and a uPlot chart.
// All work happens in the Web Worker (../browser/worker.ts); this file only draws. The page keeps
// the credentials in memory and sends them with each data request; it needs no login itself.
// `window.sandbox` exposes the same calls for scripts (the browser test and the benchmark).

import uPlot from 'uplot';
import type { Answer, Ready, Request, Result, Status } from '../browser/protocol.js';
import type { SqlAnswer } from '../sandbox.js';
import type { LoadSummary } from '../sandbox-store.js';

type Body = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

class SandboxError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const worker = new Worker(new URL('worker.js', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map<number, { resolve: (a: Result) => void; reject: (e: SandboxError) => void }>();
const ready = new Promise<void>((resolve, reject) => {
  worker.onmessage = (e: MessageEvent<Answer | Ready>) => {
    const a = e.data;
    if (a.id === 0) {
      if (a.ok) resolve();
      else reject(new SandboxError(a.error.code, a.error.message));
      return;
    }
    const p = pending.get(a.id);
    pending.delete(a.id);
    if (a.ok) p?.resolve((a as { result: Result }).result);
    else p?.reject(new SandboxError(a.error.code, a.error.message));
  };
});

async function call<T extends Result>(body: Body, transfer: Transferable[] = []): Promise<T> {
  await ready;
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (a: Result) => void, reject });
    worker.postMessage({ ...body, id }, transfer);
  });
}

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const value = (id: string): string => $<HTMLInputElement>(id).value.trim();

function authorization(): string {
  const bytes = new TextEncoder().encode(`${value('user')}:${$<HTMLInputElement>('password').value}`);
  return 'Basic ' + btoa(String.fromCharCode(...bytes));
}

const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;

async function refreshStatus(): Promise<void> {
  const s = await call<Status>({ kind: 'status' });
  $('memory').textContent = `${mib(s.bytes)} of ${mib(s.limitBytes)}`;
  const list = $('tables');
  list.replaceChildren(
    ...s.tables.map((t) => Object.assign(document.createElement('li'), { textContent: `${t.database}.${t.table}` })),
  );
}

function showLoad(text: string, failed = false): void {
  const el = $('load-status');
  el.textContent = text;
  el.className = failed ? 'failed' : '';
}

async function loading<T>(what: string, work: () => Promise<T>, done: (r: T, ms: number) => string): Promise<T> {
  showLoad(`${what}…`);
  const started = performance.now();
  try {
    const r = await work();
    showLoad(done(r, performance.now() - started));
    await refreshStatus();
    return r;
  } catch (e) {
    const err = e as SandboxError;
    showLoad(`${what} failed: ${err.code ?? ''} ${err.message}`, true);
    throw e;
  }
}

/** The export route's URL for a table and range (same origin: the page is served by the server). */
function exportUrl(p: { tenant?: string; db: string; table: string; start?: string; end?: string }): string {
  const q = new URLSearchParams({ db: p.db, table: p.table });
  if (p.tenant) q.set('tenant', p.tenant);
  if (p.start) q.set('start', p.start);
  if (p.end) q.set('end', p.end);
  return new URL(`../api/v1/export?${q}`, location.href).href;
}

const api = {
  ready,
  loadTable(
    p: { tenant?: string; db: string; table: string; start?: string; end?: string },
    auth = authorization(),
  ): Promise<LoadSummary> {
    return loading(
      `loading ${p.db}.${p.table}`,
      () => call<LoadSummary>({ kind: 'export', url: exportUrl(p), authorization: auth }),
      (r, ms) =>
        `loaded ${r.database}.${r.table}: ${r.rows.toLocaleString()} rows in ${r.segments} segment files (${mib(r.bytes)}) in ${ms.toFixed(0)} ms`,
    );
  },
  loadFile(
    name: string,
    bytes: Uint8Array,
    database = value('db') || 'public',
  ): Promise<{ table: string; rows: number }> {
    return loading(
      `loading ${name}`,
      () =>
        call<{ table: string; rows: number; format: string }>({ kind: 'file', name, bytes, database }, [
          bytes.buffer as ArrayBuffer,
        ]),
      (r, ms) => `loaded ${name} into ${database}.${r.table}: ${r.rows.toLocaleString()} rows in ${ms.toFixed(0)} ms`,
    );
  },
  loadDemo(hosts: number, hours: number, database = value('db') || 'public'): Promise<{ rows: number }> {
    return loading(
      'generating the demo set',
      () => call<{ rows: number }>({ kind: 'demo', hosts, hours, database }),
      (r, ms) => `loaded the demo set into ${database}.cpu: ${r.rows.toLocaleString()} rows in ${ms.toFixed(0)} ms`,
    );
  },
  sql(text: string, database = 'public'): Promise<SqlAnswer> {
    return call<SqlAnswer>({ kind: 'sql', sql: text, database });
  },
  status: (): Promise<Status> => call<Status>({ kind: 'status' }),
  /** Runs the editor's text as the Run button does, drawing the result. */
  run: (): Promise<void> => run(false),
};
(window as unknown as { sandbox: typeof api }).sandbox = api;

// ---- The editor, its history and the result.

const HISTORY_KEY = 'sundial.sandbox.history';
const HISTORY_MAX = 50;

function history(): string[] {
  try {
    return JSON.parse(localStorage.getItem(HISTORY_KEY) ?? '[]') as string[];
  } catch {
    return [];
  }
}

function remember(text: string): void {
  const list = [text, ...history().filter((h) => h !== text)].slice(0, HISTORY_MAX);
  localStorage.setItem(HISTORY_KEY, JSON.stringify(list));
  drawHistory();
}

function drawHistory(): void {
  const select = $<HTMLSelectElement>('history');
  const first = select.options[0]!;
  select.replaceChildren(
    first,
    ...history().map((h) =>
      Object.assign(document.createElement('option'), {
        value: h,
        textContent: h.length > 80 ? h.slice(0, 80) + '…' : h,
      }),
    ),
  );
}

let chart: uPlot | undefined;

async function run(explain: boolean): Promise<void> {
  const raw = $<HTMLTextAreaElement>('editor').value.trim();
  if (raw === '') return;
  const text = explain && !/^explain\b/i.test(raw) ? `EXPLAIN ${raw}` : raw;
  remember(raw);
  const status = $('result-status');
  const error = $('error');
  status.textContent = 'running…';
  error.hidden = true;
  try {
    const r = await api.sql(text, value('db') || 'public');
    status.textContent = `${r.rows.toLocaleString()} row${r.rows === 1 ? '' : 's'} in ${r.ms.toFixed(1)} ms`;
    draw(r, /^explain\b/i.test(text));
  } catch (e) {
    const err = e as SandboxError;
    status.textContent = '';
    error.hidden = false;
    error.textContent = `${err.code}: ${err.message}`;
    $('result').replaceChildren();
    destroyChart();
  }
}

function destroyChart(): void {
  chart?.destroy();
  chart = undefined;
  $('chart').replaceChildren();
}

/** Rows shown in the table (the chart takes every row). */
const TABLE_ROWS = 1000;

function draw(r: SqlAnswer, plan: boolean): void {
  const rows = r.json === '' ? [] : (JSON.parse(r.json) as Array<Record<string, unknown>>);
  destroyChart();
  if (plan) {
    const pre = document.createElement('pre');
    pre.className = 'plan';
    pre.textContent = rows.map((row) => Object.values(row).join('\n')).join('\n\n');
    $('result').replaceChildren(pre);
    return;
  }
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const c of r.columns)
    head.appendChild(Object.assign(document.createElement('th'), { textContent: c.name, title: c.type }));
  const body = table.createTBody();
  for (const row of rows.slice(0, TABLE_ROWS)) {
    const tr = body.insertRow();
    for (const v of Object.values(row))
      tr.insertCell().textContent = v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  const more =
    rows.length > TABLE_ROWS
      ? [
          Object.assign(document.createElement('p'), {
            textContent: `first ${TABLE_ROWS} of ${rows.length} rows shown`,
          }),
        ]
      : [];
  $('result').replaceChildren(table, ...more);
  drawChart(r, rows);
}

const NUMERIC = new Set(['Float64', 'Int64', 'UInt64', 'Float32', 'Int32']);
const COLORS = ['#1d6fb8', '#e07b39', '#3a9d5d', '#c0392b', '#8e44ad', '#16a085', '#d4ac0d', '#7f8c8d'];

/**
 * A time-series chart when the result has a timestamp column and numeric ones: one line per
 * numeric column, and per value of the first text column when there is one (hostname), at most
 * eight lines.
 */
function drawChart(r: SqlAnswer, rows: Array<Record<string, unknown>>): void {
  const names = r.columns.map((c) => c.name);
  const ti = r.columns.findIndex((c) => c.type === 'Timestamp');
  const numeric = r.columns.map((c, i) => (NUMERIC.has(c.type) ? i : -1)).filter((i) => i >= 0);
  if (ti < 0 || numeric.length === 0 || rows.length === 0) return;
  const gi = r.columns.findIndex((c) => c.type === 'Utf8');
  const keyOf = (row: unknown[]): string => (gi < 0 ? '' : String(row[gi]));
  const lines: Array<{ label: string; col: number; group: string }> = [];
  const groups = gi < 0 ? [''] : [...new Set(rows.map((row) => keyOf(Object.values(row))))];
  for (const g of groups)
    for (const c of numeric)
      if (lines.length < COLORS.length)
        lines.push({ label: g === '' ? names[c]! : `${names[c]} ${g}`, col: c, group: g });
  const times = [...new Set(rows.map((row) => Date.parse(String(Object.values(row)[ti]) + 'Z') / 1000))].sort(
    (a, b) => a - b,
  );
  const at = new Map(times.map((t, i) => [t, i]));
  const data: Array<Array<number | null>> = [
    times,
    ...lines.map(() => new Array<number | null>(times.length).fill(null)),
  ];
  for (const row of rows) {
    const v = Object.values(row);
    const x = at.get(Date.parse(String(v[ti]) + 'Z') / 1000)!;
    lines.forEach((l, k) => {
      if (keyOf(v) === l.group && v[l.col] !== null) data[k + 1]![x] = Number(v[l.col]);
    });
  }
  const el = $('chart');
  chart = new uPlot(
    {
      width: Math.max(400, el.clientWidth || 800),
      height: 280,
      // The answer's timestamps are UTC (no zone in the text): show them so.
      tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      series: [{}, ...lines.map((l, k) => ({ label: l.label, stroke: COLORS[k], width: 1.5, spanGaps: false }))],
      axes: [{}, {}],
    },
    data as uPlot.AlignedData,
    el,
  );
}

// ---- Wiring.

$('run').addEventListener('click', () => void run(false));
$('explain').addEventListener('click', () => void run(true));
$<HTMLTextAreaElement>('editor').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    void run(false);
  }
});
$<HTMLSelectElement>('history').addEventListener('change', (e) => {
  const v = (e.target as HTMLSelectElement).value;
  if (v !== '') $<HTMLTextAreaElement>('editor').value = v;
  (e.target as HTMLSelectElement).selectedIndex = 0;
});
$('server-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void api
    .loadTable({
      tenant: value('tenant'),
      db: value('server-db'),
      table: value('server-table'),
      start: value('start'),
      end: value('end'),
    })
    .catch(() => undefined);
});
$('demo-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void api.loadDemo(Number(value('demo-hosts')), Number(value('demo-hours'))).catch(() => undefined);
});

async function loadFiles(files: Iterable<File>): Promise<void> {
  for (const f of files) await api.loadFile(f.name, new Uint8Array(await f.arrayBuffer())).catch(() => undefined);
}
const drop = $('drop');
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  void loadFiles(e.dataTransfer?.files ?? []);
});
$<HTMLInputElement>('file-input').addEventListener(
  'change',
  (e) => void loadFiles((e.target as HTMLInputElement).files ?? []),
);

drawHistory();
ready.then(
  async () => {
    $('engine-state').textContent = 'engine ready (Web Worker)';
    await refreshStatus();
  },
  (e: SandboxError) => {
    $('engine-state').textContent = `the engine did not start: ${e.message}`;
  },
);
