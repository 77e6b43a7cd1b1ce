// Request bodies of realistic shape for every ingest format, for `npm run bench:ingest`: what
// Telegraf, Filebeat/Vector, Promtail, an OpenTelemetry SDK and Prometheus send. All generated
// from a seed, before the clock starts.

import { compressSync } from 'snappy';
import { LOKI_PUSH_REQUEST } from '../host/ingest/loki-push.js';
import { otlpTypes } from '../host/ingest/otlp-proto.js';
import { PROM_TYPES } from '../host/ingest/prometheus-remote.js';
import { mulberry32 as rng } from '../test/support/rng.js';

export interface Workload {
  name: string;
  /** What a row is, for the report. */
  unit: string;
  path: string;
  headers: Record<string, string>;
  bodies: Buffer[];
  /** Rows in each body. */
  bodyRows: number[];
  rows: number;
  /** Field values per row (for comparing with line protocol's values/s). */
  valuesPerRow: number;
}

const START_S = 1_700_000_000;
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1'];

/** The TSBS cpu-only host tags (10 per host), as the line-protocol data set has them. */
function hostTags(h: number): Array<[string, string]> {
  return [
    ['arch', h % 2 ? 'x64' : 'x86'],
    ['datacenter', `${REGIONS[h % 5]}a`],
    ['hostname', `host_${h}`],
    ['os', `Ubuntu${15 + (h % 3)}.10`],
    ['rack', String(h % 100)],
    ['region', REGIONS[h % 5]!],
    ['service', String(h % 20)],
    ['service_environment', h % 3 ? 'production' : 'staging'],
    ['service_version', String(h % 2)],
    ['team', ['SF', 'NYC', 'LON', 'CHI'][h % 4]!],
  ];
}

const CPU_FIELDS = [
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

/** OpenTSDB lines as Telegraf sends them: one metric per line, TSBS cpu tags, seconds. */
export function openTsdbWorkload(hosts: number, intervals: number, linesPerBody = 5000): Workload {
  const random = rng(1);
  const lines: string[] = [];
  for (let t = 0; t < intervals; t++) {
    for (let h = 0; h < hosts; h++) {
      const tags = hostTags(h)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      for (const f of CPU_FIELDS)
        lines.push(`put cpu.${f} ${START_S + t * 10} ${Math.floor(random() * 100)} ${tags}\n`);
    }
  }
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < lines.length; i += linesPerBody) {
    const part = lines.slice(i, i + linesPerBody);
    bodies.push(Buffer.from(part.join('')));
    bodyRows.push(part.length);
  }
  return {
    name: 'OpenTSDB text',
    unit: 'points',
    path: '/api/v1/opentsdb/write',
    headers: {},
    bodies,
    bodyRows,
    rows: lines.length,
    valuesPerRow: 1,
  };
}

/** Web-server access logs of the shape Filebeat and Vector ship: 14 columns, 2 of them tags. */
function logDocuments(count: number): object[] {
  const random = rng(2);
  const methods = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
  const paths = ['/api/cart', '/api/items', '/api/users/me', '/login', '/static/app.js', '/health'];
  const docs: object[] = [];
  for (let i = 0; i < count; i++) {
    const status = random() < 0.9 ? 200 : random() < 0.5 ? 404 : 500;
    docs.push({
      '@timestamp': new Date((START_S + i / 1000) * 1000).toISOString(),
      host: { name: `web-${i % 20}` },
      service: `svc-${i % 5}`,
      log: { level: status >= 500 ? 'error' : 'info' },
      http: {
        request: { method: methods[i % methods.length] },
        response: { status_code: status, bytes: Math.floor(random() * 50_000) },
      },
      url: { path: paths[i % paths.length] },
      user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      client: { ip: `10.0.${i % 256}.${(i * 7) % 256}` },
      event: { duration: Math.floor(random() * 1e7) },
      trace: { id: (i * 2654435761).toString(16).padStart(16, '0') },
      message: `${methods[i % methods.length]} ${paths[i % paths.length]} HTTP/1.1 ${status}`,
    });
  }
  return docs;
}

const LOG_QUERY = 'time_column=@timestamp&tag_columns=host.name,service';

export function bulkWorkload(count: number, docsPerBody = 5000): Workload {
  const docs = logDocuments(count);
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < docs.length; i += docsPerBody) {
    const part = docs.slice(i, i + docsPerBody);
    bodies.push(Buffer.from(part.map((d) => `{"create":{"_index":"logs"}}\n${JSON.stringify(d)}\n`).join('')));
    bodyRows.push(part.length);
  }
  return {
    name: 'ES bulk',
    unit: 'documents',
    path: `/api/v1/es/_bulk?table=bulk_logs&${LOG_QUERY}`,
    headers: { 'content-type': 'application/x-ndjson' },
    bodies,
    bodyRows,
    rows: count,
    valuesPerRow: 12,
  };
}

export function ndjsonWorkload(count: number, docsPerBody = 5000): Workload {
  const docs = logDocuments(count);
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < docs.length; i += docsPerBody) {
    const part = docs.slice(i, i + docsPerBody);
    bodies.push(Buffer.from(part.map((d) => JSON.stringify(d) + '\n').join('')));
    bodyRows.push(part.length);
  }
  return {
    name: 'NDJSON',
    unit: 'documents',
    path: `/api/v1/es/_bulk?table=nd_logs&log_type=ndjson&${LOG_QUERY}`,
    headers: {},
    bodies,
    bodyRows,
    rows: count,
    valuesPerRow: 12,
  };
}

/** Promtail's push: snappy protobuf, 8 streams per request. */
export function lokiWorkload(count: number, entriesPerBody = 5000): Workload {
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < count; i += entriesPerBody) {
    bodyRows.push(Math.min(entriesPerBody, count - i));
    const streams = Array.from({ length: 8 }, (_, s) => ({
      labels: `{job="varlogs", host="web-${s}", filename="/var/log/app-${s}.log"}`,
      entries: [] as object[],
    }));
    for (let j = i; j < Math.min(count, i + entriesPerBody); j++) {
      streams[j % 8]!.entries.push({
        timestamp: { seconds: START_S + Math.floor(j / 1000), nanos: (j % 1000) * 1_000_000 },
        line: `level=info msg="request served" path=/api/items/${j} status=200 duration=${j % 97}ms`,
      });
    }
    bodies.push(
      compressSync(Buffer.from(LOKI_PUSH_REQUEST.encode(LOKI_PUSH_REQUEST.fromObject({ streams })).finish())),
    );
  }
  return {
    name: 'Loki protobuf',
    unit: 'entries',
    path: '/api/v1/es/_bulk?table=loki_logs&log_type=loki&tag_columns=job,host',
    headers: { 'content-type': 'application/x-protobuf' },
    bodies,
    bodyRows,
    rows: count,
    valuesPerRow: 2,
  };
}

/** OpenTelemetry SDK batches: 512 spans per request (the BatchSpanProcessor default), 3 services. */
export function otlpWorkload(count: number, spansPerBody = 512, seed = 3): Workload {
  const T = otlpTypes().ExportTraceServiceRequest;
  const random = rng(seed);
  const id = (n: number) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(random() * 256);
    return b;
  };
  const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const int = (key: string, v: number) => ({ key, value: { intValue: v } });
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < count; i += spansPerBody) {
    const n = Math.min(spansPerBody, count - i);
    bodyRows.push(n);
    const spans: object[] = [];
    let traceId = id(16);
    let parent: Buffer | undefined;
    for (let j = 0; j < n; j++) {
      if (j % 8 === 0) {
        traceId = id(16);
        parent = undefined;
      }
      const spanId = id(8);
      const start = BigInt(START_S) * 1_000_000_000n + BigInt(i + j) * 1_000_000n;
      spans.push({
        traceId,
        spanId,
        parentSpanId: parent,
        name: parent ? 'SELECT items' : 'GET /api/items',
        kind: parent ? 3 : 2,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + BigInt(Math.floor(random() * 5e7))).toString(),
        attributes: parent
          ? [
              str('db.system', 'postgresql'),
              str('db.name', 'shop'),
              str('db.statement', 'SELECT * FROM items WHERE id = $1'),
              str('net.peer.name', 'db-1'),
            ]
          : [
              str('http.method', 'GET'),
              str('http.route', '/api/items'),
              str('http.target', `/api/items/${j}`),
              int('http.status_code', 200),
              str('net.host.name', 'shop.example'),
              str('user_agent.original', 'curl/8.5.0'),
            ],
        events:
          j % 16 === 0
            ? [{ timeUnixNano: start.toString(), name: 'cache miss', attributes: [str('key', `item:${j}`)] }]
            : [],
        status: { code: parent ? 0 : 1 },
      });
      parent ??= spanId;
    }
    const request = {
      resourceSpans: [
        {
          resource: {
            attributes: [
              str('service.name', `shop-${i % 3}`),
              str('service.version', '1.4.2'),
              str('host.name', `node-${i % 7}`),
              str('telemetry.sdk.language', 'nodejs'),
              str('telemetry.sdk.name', 'opentelemetry'),
            ],
          },
          scopeSpans: [{ scope: { name: '@opentelemetry/instrumentation-http', version: '0.52.0' }, spans }],
        },
      ],
    };
    bodies.push(Buffer.from(T.encode(T.fromObject(request)).finish()));
  }
  return {
    name: 'OTLP spans (protobuf)',
    unit: 'spans',
    path: '/api/v1/traces',
    headers: { 'content-type': 'application/x-protobuf', table: 'spans' },
    bodies,
    bodyRows,
    rows: count,
    valuesPerRow: 20,
  };
}

/** Prometheus remote write: 2000 samples per request (its max_samples_per_send), TSBS-like series. */
export function promWorkload(hosts: number, intervals: number, samplesPerBody = 2000): Workload {
  const random = rng(4);
  const series: object[] = [];
  for (let t = 0; t < intervals; t++) {
    for (let h = 0; h < hosts; h++) {
      const base = hostTags(h).map(([name, value]) => ({ name, value }));
      for (const f of CPU_FIELDS) {
        series.push({
          labels: [{ name: '__name__', value: `cpu_${f}` }, ...base],
          samples: [{ value: Math.floor(random() * 100), timestamp: (START_S + t * 10) * 1000 }],
        });
      }
    }
  }
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < series.length; i += samplesPerBody) {
    const part = series.slice(i, i + samplesPerBody);
    bodyRows.push(part.length);
    const m = PROM_TYPES.WriteRequest.fromObject({ timeseries: part });
    bodies.push(compressSync(Buffer.from(PROM_TYPES.WriteRequest.encode(m).finish())));
  }
  return {
    name: 'Prometheus remote write',
    unit: 'samples',
    path: '/api/v1/prom/write',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    },
    bodies,
    bodyRows,
    rows: series.length,
    valuesPerRow: 1,
  };
}

/**
 * OTLP metrics as an OpenTelemetry collector's host-metrics and HTTP instrumentation send them
 * (protobuf, cumulative): per host and interval, `system.cpu.time` (8 cpus x 4 states), a memory
 * gauge (3 states), request counts (5 routes x 2 statuses) and a latency histogram (5 routes, 15
 * buckets); 50 data points, each a row; bodies of `hostsPerBody` hosts x 8 intervals.
 */
export function otlpMetricsWorkload(
  hosts: number,
  intervals: number,
  hostsPerBody = 5,
  intervalsPerBody = 8,
): Workload {
  const T = otlpTypes().ExportMetricsServiceRequest;
  const random = rng(5);
  const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const routes = ['/api/cart', '/api/items', '/api/users/me', '/login', '/health'];
  const bounds = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
  const ns = (t: number) => String(BigInt(START_S + t * 10) * 1_000_000_000n);
  const start = ns(-1000);
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  let rows = 0;
  for (let t0 = 0; t0 < intervals; t0 += intervalsPerBody) {
    for (let h0 = 0; h0 < hosts; h0 += hostsPerBody) {
      const resourceMetrics: object[] = [];
      let points = 0;
      for (let h = h0; h < Math.min(hosts, h0 + hostsPerBody); h++) {
        const cpu: object[] = [];
        const memory: object[] = [];
        const requests: object[] = [];
        const latency: object[] = [];
        for (let t = t0; t < Math.min(intervals, t0 + intervalsPerBody); t++) {
          const time = ns(t);
          for (let c = 0; c < 8; c++) {
            for (const state of ['user', 'system', 'idle', 'iowait'])
              cpu.push({
                attributes: [str('cpu', `cpu${c}`), str('state', state)],
                startTimeUnixNano: start,
                timeUnixNano: time,
                asDouble: t * 10 * random(),
              });
          }
          for (const state of ['used', 'free', 'cached'])
            memory.push({
              attributes: [str('state', state)],
              timeUnixNano: time,
              asInt: String(Math.floor(random() * 2 ** 34)),
            });
          for (const route of routes) {
            for (const status of ['200', '500'])
              requests.push({
                attributes: [str('http.route', route), str('http.status_code', status)],
                startTimeUnixNano: start,
                timeUnixNano: time,
                asInt: String(t * 100 + Math.floor(random() * 100)),
              });
            const counts = bounds.map(() => Math.floor(random() * 50));
            counts.push(Math.floor(random() * 5));
            const count = counts.reduce((a, b) => a + b, 0);
            latency.push({
              attributes: [str('http.route', route)],
              startTimeUnixNano: start,
              timeUnixNano: time,
              count: String(count),
              sum: count * 120.5,
              min: 0.2,
              max: 9000,
              bucketCounts: counts.map(String),
              explicitBounds: bounds,
            });
          }
        }
        points += cpu.length + memory.length + requests.length + latency.length;
        resourceMetrics.push({
          resource: {
            attributes: [
              str('service.name', `shop-${h % 3}`),
              str('host.name', `host-${h}`),
              str('host.arch', h % 2 ? 'amd64' : 'arm64'),
              str('os.type', 'linux'),
              str('cloud.region', REGIONS[h % 5]!),
              str('service.instance.id', `i-${h}`),
            ],
          },
          scopeMetrics: [
            {
              scope: { name: 'otelcol/hostmetricsreceiver/cpu', version: '0.98.0' },
              metrics: [
                {
                  name: 'system.cpu.time',
                  unit: 's',
                  sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: cpu },
                },
                { name: 'system.memory.usage', unit: 'By', gauge: { dataPoints: memory } },
              ],
            },
            {
              scope: { name: '@opentelemetry/instrumentation-http', version: '0.52.0' },
              metrics: [
                {
                  name: 'http.server.requests',
                  unit: '1',
                  sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: requests },
                },
                {
                  name: 'http.server.duration',
                  unit: 'ms',
                  histogram: { aggregationTemporality: 2, dataPoints: latency },
                },
              ],
            },
          ],
        });
      }
      bodyRows.push(points);
      rows += points;
      bodies.push(Buffer.from(T.encode(T.fromObject({ resourceMetrics })).finish()));
    }
  }
  return {
    name: 'OTLP metrics (protobuf)',
    unit: 'data points',
    path: '/v1/metrics',
    headers: { 'content-type': 'application/x-protobuf' },
    bodies,
    bodyRows,
    rows,
    valuesPerRow: 1,
  };
}

/**
 * OTLP logs as an OpenTelemetry SDK's batch processor sends them (protobuf, 512 records a body):
 * application log lines with a severity, 3 attributes and, for most, the span they were logged in.
 */
export function otlpLogsWorkload(count: number, recordsPerBody = 512): Workload {
  const T = otlpTypes().ExportLogsServiceRequest;
  const random = rng(6);
  const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const id = (n: number) => {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(random() * 256);
    return b;
  };
  const levels = [
    [9, 'INFO'],
    [9, 'INFO'],
    [9, 'INFO'],
    [5, 'DEBUG'],
    [13, 'WARN'],
    [17, 'ERROR'],
  ] as const;
  const bodies: Buffer[] = [];
  const bodyRows: number[] = [];
  for (let i = 0; i < count; i += recordsPerBody) {
    const n = Math.min(recordsPerBody, count - i);
    bodyRows.push(n);
    const logRecords: object[] = [];
    for (let j = 0; j < n; j++) {
      const k = i + j;
      const [severityNumber, severityText] = levels[k % levels.length]!;
      const time = String(
        BigInt(START_S) * 1_000_000_000n + BigInt(k) * 1_000_000n + BigInt(Math.floor(random() * 1000)),
      );
      logRecords.push({
        timeUnixNano: time,
        observedTimeUnixNano: time,
        severityNumber,
        severityText,
        body: {
          stringValue: `request ${k % 997} for /api/items/${k % 101} finished in ${Math.floor(random() * 500)} ms (cache ${k % 3 ? 'hit' : 'miss'})`,
        },
        attributes: [
          str('http.route', '/api/items/:id'),
          str('user.id', `u${k % 5000}`),
          { key: 'attempt', value: { intValue: k % 3 } },
        ],
        ...(k % 4 ? { traceId: id(16), spanId: id(8), flags: 1 } : {}),
      });
    }
    const request = {
      resourceLogs: [
        {
          resource: {
            attributes: [
              str('service.name', `shop-${i % 3}`),
              str('service.version', '1.4.2'),
              str('host.name', `node-${i % 7}`),
              str('telemetry.sdk.language', 'nodejs'),
            ],
          },
          scopeLogs: [{ scope: { name: 'shop-logger', version: '1.0.0' }, logRecords }],
        },
      ],
    };
    bodies.push(Buffer.from(T.encode(T.fromObject(request)).finish()));
  }
  return {
    name: 'OTLP logs (protobuf)',
    unit: 'records',
    path: '/v1/logs',
    headers: { 'content-type': 'application/x-protobuf' },
    bodies,
    bodyRows,
    rows: count,
    valuesPerRow: 6,
  };
}
