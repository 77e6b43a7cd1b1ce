// GET /metrics against a real server: the text format, and the series moving by exact amounts as
// writes, queries, flushes, compactions, refused requests and scrapes happen (docs/monitoring.md);
// who may scrape (server.metrics_auth).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, writeLp, type HttpResponse } from '../support/http.js';
import { moved, parseSamples, scrape, scrapeUntil } from '../support/metrics.js';
import { startServer, type TestServer } from '../support/server.js';

const QUIET = {
  SUNDIAL_WARMUP: 'false',
  SUNDIAL_WRITE_WARMUP: 'false',
  SUNDIAL_PARSE_WARMUP: 'false',
  SUNDIAL_REPORT_INTERVAL: '0',
};
const sql = (url: string, text: string): Promise<HttpResponse> =>
  http(url, '/api/v1/sql', { method: 'POST', body: text });

describe('GET /metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, env: QUIET });
  });
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('answers in the text format 0.0.4 without credentials on a loopback listener, with process and Node metrics', async () => {
    const r = await http(server.url, '/metrics', { auth: null });
    expect([r.status, r.headers['content-type']]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    const s = parseSamples(r.text);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(s.has(name), name).toBe(true);
    expect(r.text).toContain('# TYPE sundial_http_requests_total counter\n');
    expect(r.text).toContain('# TYPE sundial_wal_fsync_duration_seconds histogram\n');
  });

  it('shows nothing running and every 429 reason at zero on an idle server', async () => {
    const s = await scrape(server.url);
    const idle = ['sundial_queries_running', 'sundial_queries_memory_bytes', 'sundial_write_bytes_in_flight'];
    const reasons = ['memtable', 'queries', 'tenant', 'write_bytes'].map(
      (r) => `sundial_http_limited_total{reason="${r}"}`,
    );
    const faults = [
      'sundial_wal_write_failures_total',
      'sundial_damaged_segment_files_total',
      'sundial_wal_records_lost_total',
      'sundial_disk_full_refusals_total',
      'sundial_damaged_segments_skipped_total',
    ];
    expect(Object.fromEntries([...idle, ...reasons, ...faults].map((k) => [k, s.get(k)]))).toEqual(
      Object.fromEntries([...idle, ...reasons, ...faults].map((k) => [k, 0])),
    );
    expect(s.get('sundial_http_requests_in_flight'), 'the scrape itself').toBe(1);
  });

  it('counts a write: its rows and body bytes by format, one WAL group commit of one record and its fsync, the memtable bytes', async () => {
    const body = 'cpu,host=a v=1 1000\ncpu,host=b v=2 1000\ncpu,host=a v=3 2000';
    const before = await scrape(server.url);
    const w = await writeLp(server.url, body);
    expect(w.status).toBe(200);
    const after = await scrapeUntil(
      server.url,
      (s) => (s.get('sundial_http_requests_total{route="/api/v1/write",method="POST",status="200"}') ?? 0) > 0,
    );
    expect(
      moved(before, after, [
        'sundial_written_rows_total{format="line-protocol"}',
        'sundial_written_bytes_total{format="line-protocol"}',
        'sundial_wal_group_commit_records_count',
        'sundial_wal_group_commit_records_sum',
        'sundial_wal_fsync_duration_seconds_count',
        'sundial_http_requests_total{route="/api/v1/write",method="POST",status="200"}',
        'sundial_http_request_duration_seconds_count{route="/api/v1/write",method="POST"}',
      ]),
    ).toEqual({
      'sundial_written_rows_total{format="line-protocol"}': 3,
      'sundial_written_bytes_total{format="line-protocol"}': body.length,
      sundial_wal_group_commit_records_count: 1,
      sundial_wal_group_commit_records_sum: 1,
      sundial_wal_fsync_duration_seconds_count: 1,
      'sundial_http_requests_total{route="/api/v1/write",method="POST",status="200"}': 1,
      'sundial_http_request_duration_seconds_count{route="/api/v1/write",method="POST"}': 1,
    });
    expect(after.get('sundial_wal_fsync_duration_seconds_sum')).toBeGreaterThan(
      before.get('sundial_wal_fsync_duration_seconds_sum')!,
    );
    expect(after.get('sundial_memtable_bytes{tenant="cnosdb",database="public"}')).toBeGreaterThan(0);
  });

  it('counts rows by the format of each write route', async () => {
    const before = await scrape(server.url);
    const writes: Array<[string, string, Record<string, string>]> = [
      ['/write?db=public', 'm1,t=x v=1 5', {}],
      ['/api/v1/opentsdb/write', 'm2 1700000000 1 t=x\nm2 1700000001 2 t=x', {}],
      [
        '/api/v1/opentsdb/put',
        JSON.stringify([{ metric: 'm3', timestamp: 1700000000, value: 1, tags: { t: 'x' } }]),
        { 'content-type': 'application/json' },
      ],
      [
        '/api/v1/es/_bulk?table=logs&log_type=ndjson',
        '{"msg":"a","time":"2024-01-01T00:00:00Z"}\n{"msg":"b","time":"2024-01-01T00:00:01Z"}\n',
        { 'content-type': 'application/x-ndjson' },
      ],
    ];
    for (const [path, body, headers] of writes) {
      const r = await http(server.url, path, { method: 'POST', body, headers });
      expect(r.status, `${path}: ${r.text}`).toBeLessThan(300);
    }
    const after = await scrape(server.url);
    const formats = ['line-protocol', 'opentsdb-text', 'opentsdb-json', 'ndjson'].map(
      (f) => `sundial_written_rows_total{format="${f}"}`,
    );
    expect(moved(before, after, formats)).toEqual(Object.fromEntries(formats.map((f, i) => [f, [1, 2, 1, 2][i]])));
  });

  it('counts a query: the request, its duration and its peak memory', async () => {
    const before = await scrape(server.url);
    const q = await sql(server.url, 'SELECT host, v FROM cpu ORDER BY time, host');
    expect(q.text).toBe('host,v\na,1.0\nb,2.0\na,3.0\n');
    const after = await scrapeUntil(
      server.url,
      (s) =>
        s.get('sundial_http_requests_total{route="/api/v1/sql",method="POST",status="200"}') !==
        before.get('sundial_http_requests_total{route="/api/v1/sql",method="POST",status="200"}'),
    );
    expect(
      moved(before, after, [
        'sundial_query_duration_seconds_count',
        'sundial_query_peak_memory_bytes_count',
        'sundial_http_requests_total{route="/api/v1/sql",method="POST",status="200"}',
      ]),
    ).toEqual({
      sundial_query_duration_seconds_count: 1,
      sundial_query_peak_memory_bytes_count: 1,
      'sundial_http_requests_total{route="/api/v1/sql",method="POST",status="200"}': 1,
    });
    expect(after.get('sundial_query_peak_memory_bytes_sum')).toBeGreaterThan(
      before.get('sundial_query_peak_memory_bytes_sum') ?? 0,
    );
    expect([after.get('sundial_queries_running'), after.get('sundial_queries_memory_bytes')]).toEqual([0, 0]);
  });

  it('counts flushes and compactions, and shows the segment files and bytes of each database', async () => {
    const db = '{tenant="cnosdb",database="seg"}';
    expect((await sql(server.url, 'CREATE DATABASE seg')).status).toBe(200);
    expect(
      (await writeLp(server.url, 'cpu,host=a v=1 1000\ncpu,host=b v=2 1000\ncpu,host=a v=3 2000', 'db=seg')).status,
    ).toBe(200);
    const before = await scrape(server.url);
    expect(before.get(`sundial_segment_files${db}`)).toBe(0);
    expect((await sql(server.url, 'COMPACT DATABASE seg')).status).toBe(200);
    const one = await scrape(server.url);
    expect(
      moved(before, one, [
        'sundial_flush_duration_seconds_count{result="ok"}',
        'sundial_flush_duration_seconds_count{result="failed"}',
      ]),
    ).toEqual({
      'sundial_flush_duration_seconds_count{result="ok"}': 1,
      'sundial_flush_duration_seconds_count{result="failed"}': 0,
    });
    expect([one.get(`sundial_segment_files${db}`), one.get(`sundial_memtable_bytes${db}`)]).toEqual([1, 0]);
    expect(one.get(`sundial_segment_bytes${db}`)).toBeGreaterThan(0);

    // A second file in the same partition: the next COMPACT flushes it and merges the two.
    expect((await writeLp(server.url, 'cpu,host=c v=4 3000', 'db=seg')).status).toBe(200);
    expect((await sql(server.url, 'COMPACT DATABASE seg')).status).toBe(200);
    const two = await scrape(server.url);
    expect(
      moved(one, two, [
        'sundial_flush_duration_seconds_count{result="ok"}',
        'sundial_compaction_duration_seconds_count{result="ok"}',
        'sundial_compaction_duration_seconds_count{result="failed"}',
      ]),
    ).toEqual({
      'sundial_flush_duration_seconds_count{result="ok"}': 1,
      'sundial_compaction_duration_seconds_count{result="ok"}': 1,
      'sundial_compaction_duration_seconds_count{result="failed"}': 0,
    });
    expect(two.get(`sundial_segment_files${db}`)).toBe(1);
  });

  it('counts block cache misses when a query decodes blocks of a segment file, and hits when it reads them again', async () => {
    const read = async (): Promise<void> => {
      const r = await http(server.url, '/api/v1/sql?db=seg', {
        method: 'POST',
        body: "SELECT count(*) AS n, sum(v) AS s FROM cpu WHERE host = 'a'",
      });
      expect(r.text).toBe('n,s\n2,4.0\n');
    };
    const before = await scrape(server.url);
    await read();
    const first = await scrape(server.url);
    await read();
    const second = await scrape(server.url);
    const k = ['sundial_block_cache_misses_total', 'sundial_block_cache_hits_total'];
    const m1 = moved(before, first, k);
    const m2 = moved(first, second, k);
    expect(m1.sundial_block_cache_misses_total, 'the first read decoded blocks').toBeGreaterThan(0);
    expect(m2.sundial_block_cache_misses_total, 'the second read decoded none').toBe(0);
    expect(m2.sundial_block_cache_hits_total, 'the second read found its blocks in the cache').toBeGreaterThan(0);
    expect(second.get('sundial_block_cache_bytes')).toBeGreaterThan(0);
  });

  it('counts each answer by route, method and status; paths without a route as "unmatched"', async () => {
    const before = await scrape(server.url);
    expect((await http(server.url, '/nowhere', { auth: null })).status).toBe(404);
    expect((await http(server.url, '/api/v1/sql', { auth: null })).status).toBe(405);
    expect(
      (
        await http(server.url, '/api/v1/sql', {
          method: 'POST',
          body: 'SELECT 1',
          auth: { user: 'root', password: 'wrong' },
        })
      ).status,
    ).toBe(401);
    expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
    const series = [
      'sundial_http_requests_total{route="unmatched",method="GET",status="404"}',
      'sundial_http_requests_total{route="unmatched",method="GET",status="405"}',
      'sundial_http_requests_total{route="/api/v1/sql",method="POST",status="401"}',
      'sundial_http_requests_total{route="/api/v1/ping",method="GET",status="200"}',
    ];
    const after = await scrapeUntil(server.url, (s) => s.get(series[3]!) !== before.get(series[3]!));
    expect(moved(before, after, series)).toEqual(Object.fromEntries(series.map((s) => [s, 1])));
  });
});

describe('429s by reason', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Any data at all fills a memtable of one byte: the second write is refused.
    server = await startServer({ inProcess: true, env: QUIET, args: ['--memtable-bytes', '1'] });
  });
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('counts a write refused for a full memtable as reason "memtable"', async () => {
    const before = await scrape(server.url);
    expect((await writeLp(server.url, 'cpu v=1 1')).status).toBe(200);
    const refused = await writeLp(server.url, 'cpu v=2 2');
    expect([refused.status, refused.headers['x-sundial-error-code']]).toEqual([429, '030024']);
    const after = await scrapeUntil(
      server.url,
      (s) => s.get('sundial_http_requests_total{route="/api/v1/write",method="POST",status="429"}') === 1,
    );
    expect(
      moved(before, after, [
        'sundial_http_limited_total{reason="memtable"}',
        'sundial_http_limited_total{reason="write_bytes"}',
        'sundial_http_requests_total{route="/api/v1/write",method="POST",status="429"}',
      ]),
    ).toEqual({
      'sundial_http_limited_total{reason="memtable"}': 1,
      'sundial_http_limited_total{reason="write_bytes"}': 0,
      'sundial_http_requests_total{route="/api/v1/write",method="POST",status="429"}': 1,
    });
  });
});

describe('server.metrics_auth', () => {
  const cases: Array<{ name: string; setting: string | undefined; none: number; member: number; admin: number }> = [
    {
      name: 'auto on a loopback listener: no credentials needed',
      setting: undefined,
      none: 200,
      member: 200,
      admin: 200,
    },
    { name: 'on: an admin only', setting: 'on', none: 401, member: 422, admin: 200 },
    { name: 'off: no credentials needed', setting: 'off', none: 200, member: 200, admin: 200 },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const server = await startServer({
        inProcess: true,
        env: QUIET,
        args: c.setting === undefined ? [] : ['--metrics-auth', c.setting],
      });
      try {
        expect((await sql(server.url, "CREATE USER plain WITH PASSWORD = 'pw'")).status).toBe(200);
        const none = await http(server.url, '/metrics', { auth: null });
        const member = await http(server.url, '/metrics', { auth: { user: 'plain', password: 'pw' } });
        const admin = await http(server.url, '/metrics', { auth: { user: 'root', password: '' } });
        expect([none.status, member.status, admin.status]).toEqual([c.none, c.member, c.admin]);
        if (c.none === 401) expect(JSON.parse(none.text).error_code).toBe('010016');
        if (c.member === 422)
          expect(JSON.parse(member.text)).toEqual({
            error_code: '010004',
            error_message: expect.stringContaining('maintainer for system'),
          });
      } finally {
        await server.stop();
        server.cleanup();
      }
    });
  }

  it('refuses to start with another value, naming the setting and the choices', async () => {
    await expect(startServer({ inProcess: true, env: QUIET, args: ['--metrics-auth', 'sometimes'] })).rejects.toThrow(
      /invalid server\.metrics_auth from flag --metrics-auth: "sometimes" \(want auto, on, off\)/,
    );
  });
});
