// Server settings from four sources, later ones overriding earlier ones: built-in defaults, a
// TOML file (--config), SUNDIAL_* environment variables, command-line flags. Every setting is
// declared once in SETTINGS (docs/configuration.md's table is checked against it by a test); a bad value
// fails at startup naming the setting and the source it came from.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parse as parseToml } from 'smol-toml';

/**
 * `port`: a TCP port that is off (null) unless set; 0 picks a free one. `origins`: web origins
 * (`https://host[:port]`) or `*`, a TOML array or a comma-separated string.
 */
type Kind = 'string' | 'int' | 'port' | 'bytes' | 'duration' | 'bool' | 'level' | 'origins';

interface SettingSpec {
  /** Dotted TOML path, e.g. "server.port". */
  key: string;
  kind: Kind;
  default: string | number | boolean | null | readonly string[];
  doc: string;
  /** A duration that may be 0 (off). */
  zero?: boolean;
  /** The values a string may take. */
  choices?: readonly string[];
}

/** Every setting; env name = SUNDIAL_ + last path segment upper-cased; flag = --last-segment. */
export const SETTINGS = [
  {
    key: 'server.host',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'Address to listen on. A non-loopback address needs a root password.',
  },
  { key: 'server.port', kind: 'int', default: 8902, doc: 'TCP port (0 picks a free one and logs it).' },
  {
    key: 'server.pg_port',
    kind: 'port',
    default: null,
    doc: 'TCP port of the PostgreSQL wire protocol, on `server.host` (off unless set; 0 picks a free one and logs it).',
  },
  {
    key: 'server.cluster.etcd_endpoints',
    kind: 'string',
    default: '',
    doc: 'etcd endpoints (`http://host:2379`, comma-separated) that hold the catalog and membership of a cluster; empty: a single node with `catalog.json`.',
  },
  {
    key: 'server.cluster.node_id',
    kind: 'string',
    default: '',
    doc: "This node's id in the cluster, unique in it; empty: `<host name>:<port>`.",
  },
  {
    key: 'server.cluster.name',
    kind: 'string',
    default: 'sundial',
    doc: "The cluster's name: the prefix of its keys in etcd (`/<name>/`), so that clusters can share one etcd.",
  },
  {
    key: 'server.headers_timeout',
    kind: 'duration',
    default: 10_000,
    doc: 'An HTTP connection that takes longer than this to send a request line and headers (from when it opens, or when its request starts) is answered 408 and closed.',
  },
  {
    key: 'server.max_connections',
    kind: 'int',
    default: 4096,
    doc: 'HTTP connections open at once; past it a new connection is closed at once while the open ones carry on (0: no cap).',
  },
  {
    key: 'server.pg_max_connections',
    kind: 'int',
    default: 100,
    doc: 'PostgreSQL-port sessions open at once; past it a new one is refused with FATAL 53300, as PostgreSQL refuses past its max_connections (0: no cap).',
  },
  {
    key: 'storage.data_dir',
    kind: 'string',
    default: './data',
    doc: 'Directory for the catalog, WAL and segment files; created if missing.',
  },
  {
    key: 'auth.root_password',
    kind: 'string',
    default: '',
    doc: 'Password of `root` when the user store is first created (empty by default).',
  },
  {
    key: 'log.log_level',
    kind: 'level',
    default: 'info',
    doc: 'One of trace, debug, info, warn, error, fatal, silent.',
  },
  {
    key: 'log.slow_query',
    kind: 'duration',
    zero: true,
    default: 10_000,
    doc: 'A SQL statement that runs longer is logged ("slow query") with its text, user, tenant, rows and time; 0 turns the log off.',
  },
  {
    key: 'server.cors_origins',
    kind: 'origins',
    default: [],
    doc: 'Web origins (`https://app.example.com`, or `*` for any) whose pages may call the SQL, write and export routes from a browser (CORS); none by default.',
  },
  {
    key: 'server.metrics_auth',
    kind: 'string',
    choices: ['auto', 'on', 'off'],
    default: 'auto',
    doc: 'Whether GET /metrics needs the Basic credentials of an admin: on, off, or auto (off while `server.host` is a loopback address, on otherwise).',
  },
  {
    key: 'limits.write_body_bytes',
    kind: 'bytes',
    default: 160 * 1024 * 1024,
    doc: 'Largest write body, compressed or after decompression (413 beyond).',
  },
  {
    key: 'limits.sql_body_bytes',
    kind: 'bytes',
    default: 16 * 1024 * 1024,
    doc: 'Largest SQL body, compressed or after decompression (413 beyond).',
  },
  {
    key: 'limits.max_inflight_write_bytes',
    kind: 'bytes',
    default: 512 * 1024 * 1024,
    doc: 'Decompressed write bytes being processed at once (429 beyond).',
  },
  { key: 'limits.max_concurrent_queries', kind: 'int', default: 64, doc: 'SQL requests running at once (429 beyond).' },
  {
    key: 'limits.query_timeout',
    kind: 'duration',
    default: 600_000,
    doc: 'A query running longer fails with 500 `010010`.',
  },
  {
    key: 'limits.query_memory_bytes',
    kind: 'bytes',
    default: 512 * 1024 * 1024,
    doc: 'Memory one query may hold (422 `010011` beyond).',
  },
  {
    key: 'storage.memtable_bytes',
    kind: 'bytes',
    default: 256 * 1024 * 1024,
    doc: 'In-memory data across databases (including memtables being flushed) before writes get 429.',
  },
  {
    key: 'storage.wal_segment_bytes',
    kind: 'bytes',
    default: 64 * 1024 * 1024,
    doc: 'Size at which a WAL segment file is closed and a new one started.',
  },
  {
    key: 'storage.flush_bytes',
    kind: 'bytes',
    default: 32 * 1024 * 1024,
    doc: "A database's memtable is written to segment files once it holds this much, or when all memtables together reach `storage.memtable_bytes`.",
  },
  {
    key: 'storage.flush_age',
    kind: 'duration',
    default: 600_000,
    doc: '... or once its oldest row has waited this long in memory.',
  },
  {
    key: 'storage.compaction_fan_in',
    kind: 'int',
    default: 4,
    doc: 'Segment files of one level in a time partition merged into one (at least 2).',
  },
  {
    key: 'storage.compaction_thread',
    kind: 'bool',
    default: availableParallelism() > 2,
    doc: 'Write compaction files on a thread of their own, so that merging overlaps requests instead of taking turns with them (default: when there are more than 2 cores).',
  },
  {
    key: 'storage.block_cache_bytes',
    kind: 'bytes',
    default: 64 * 1024 * 1024,
    doc: 'Decoded segment blocks kept in memory for queries.',
  },
  {
    key: 'storage.index_cache_bytes',
    kind: 'bytes',
    default: 64 * 1024 * 1024,
    doc: 'Decoded series index blocks and postings of segment files kept in memory; the rest stays on disk until a query needs it.',
  },
  {
    key: 'storage.wal_sync',
    kind: 'bool',
    default: true,
    doc: 'fsync the WAL before acknowledging a write (turn off only for throwaway data).',
  },
  {
    key: 'storage.external_dir',
    kind: 'string',
    default: '',
    doc: 'Directory that COPY INTO and external tables read files from and write them to (paths outside it are refused); empty: local locations are refused (s3:// ones are not).',
  },
  {
    key: 'storage.skip_damaged_segments',
    kind: 'bool',
    default: false,
    doc: 'Queries leave out segment files known to be damaged, and say so in an `X-Sundial-Warning` header, instead of failing with 500 `020013` when they need them.',
  },
  {
    key: 'storage.object_store.s3_bucket',
    kind: 'string',
    default: '',
    doc: 'Keep segment files in this S3 bucket (it must exist), the local disk only caching them ("bottomless retention"); empty: off, segment files stay in the data directory.',
  },
  {
    key: 'storage.object_store.s3_endpoint',
    kind: 'string',
    default: '',
    doc: 'URL of an S3-compatible store (MinIO, Ceph RGW, Garage: `http://host:9000`); empty: AWS S3 of `s3_region`.',
  },
  {
    key: 'storage.object_store.s3_region',
    kind: 'string',
    default: 'us-east-1',
    doc: 'Region of the bucket (S3-compatible stores mostly take any).',
  },
  {
    key: 'storage.object_store.s3_prefix',
    kind: 'string',
    default: '',
    doc: 'Prefix of every object key (`<prefix>/db/<id>/seg/<file>.seg`), so that servers can share a bucket.',
  },
  {
    key: 'storage.object_store.s3_access_key_id',
    kind: 'string',
    default: '',
    doc: "Access key; empty: the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`, profiles, instance roles).",
  },
  {
    key: 'storage.object_store.s3_secret_access_key',
    kind: 'string',
    default: '',
    doc: 'Secret key of `s3_access_key_id`.',
  },
  {
    key: 'storage.object_store.s3_path_style',
    kind: 'bool',
    default: true,
    doc: 'Path-style URLs (`http://host/bucket/key`), as MinIO, Ceph RGW and Garage want; false for virtual-hosted style.',
  },
  {
    key: 'storage.object_store.cache_bytes',
    kind: 'bytes',
    default: 1024 * 1024 * 1024,
    doc: 'Local disk for cached segment files and byte ranges of them, least recently used evicted first.',
  },
  {
    key: 'storage.object_store.cache_dir',
    kind: 'string',
    default: '',
    doc: 'Folder of that cache; empty: `<data_dir>/object-cache`.',
  },
  {
    key: 'server.cluster.nats_urls',
    kind: 'string',
    default: '',
    doc: 'Keep the write-ahead logs in NATS JetStream at these URLs (comma-separated, `nats://host:4222`), a stream per database; empty: off, WAL files in the data directory.',
  },
  {
    key: 'server.cluster.nats_replicas',
    kind: 'int',
    default: 1,
    doc: 'Replicas of each WAL stream (3 across a three-server NATS cluster); streams are made with it.',
  },
  {
    key: 'server.cluster.nats_stream_prefix',
    kind: 'string',
    default: 'sundial',
    doc: 'Names the WAL streams `<prefix>_<db id>` and subjects `<prefix>.<db id>.<vnode>`: servers that share one NATS each need their own.',
  },
  {
    key: 'storage.vnodes',
    kind: 'int',
    default: 1,
    doc: "Vnodes of a database: a series goes to one by the hash of its key; with the JetStream WAL each is a subject of the database's stream.",
  },
  {
    key: 'usage.report_interval',
    kind: 'duration',
    zero: true,
    default: 10_000,
    doc: "How often the usage counters (requests, bytes in and out, disk and memtable bytes per database) are written to the system tenant's usage_schema database, as CnosDB does; 0 turns the reports off.",
  },
  {
    key: 'query.warmup',
    kind: 'bool',
    default: true,
    doc: 'Once ready, run the common query shapes over a small generated data set in a scratch directory (removed afterwards), so that the first queries after a start are as fast as later ones.',
  },
  {
    key: 'otlp.traces_table',
    kind: 'string',
    default: 'otel_traces',
    doc: 'Table of the spans sent to `/v1/traces` without a `table` header or parameter.',
  },
  {
    key: 'otlp.logs_table',
    kind: 'string',
    default: 'otel_logs',
    doc: 'Table of the log records sent to `/v1/logs` without a `table` header or parameter.',
  },
  {
    key: 'ingest.scan_window_bytes',
    kind: 'bytes',
    default: 8 * 1024 * 1024,
    doc: 'Line-protocol bytes scanned per step; bounds Wasm memory for big bodies.',
  },
  {
    key: 'ingest.parse_workers',
    kind: 'int',
    default: defaultParseWorkers(),
    doc: 'Worker threads that parse span, metric, log, OpenTSDB JSON and Prometheus bodies; 0 parses in the server thread.',
  },
  {
    key: 'ingest.write_warmup',
    kind: 'bool',
    default: true,
    doc: "Once ready, write, flush and compact 16,384 generated rows of one-row series (shaped like spans) in the warm-up's scratch directory, so that the first high-cardinality writes after a start (traces) do not run while V8 compiles that code.",
  },
  {
    key: 'ingest.loki_tenant',
    kind: 'string',
    default: 'cnosdb',
    doc: 'Tenant of a Loki push (`/loki/api/v1/push`) that names none: no `tenant` parameter or header and no `X-Scope-OrgID`.',
  },
  {
    key: 'ingest.loki_database',
    kind: 'string',
    default: 'public',
    doc: 'Database of a Loki push without a `db` parameter or header.',
  },
  {
    key: 'ingest.loki_table',
    kind: 'string',
    default: 'logs',
    doc: 'Table of a Loki push without a `table` parameter or header.',
  },
  {
    key: 'ingest.parse_warmup',
    kind: 'bool',
    default: true,
    doc: 'Once ready, start the parse workers and have each parse small generated bodies of every format first, so that the first requests do not wait for the parsers to load and compile.',
  },
] as const satisfies readonly SettingSpec[];

/**
 * One parse worker per core the server's own thread leaves free, at least one: with 2 cores,
 * one worker parses while the server's thread stores the previous request (bench/RESULTS.md
 * has the measurements behind this choice).
 */
function defaultParseWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

type SettingKey = (typeof SETTINGS)[number]['key'];
type ValueOf<K extends Kind> = K extends 'int' | 'bytes' | 'duration'
  ? number
  : K extends 'port'
    ? number | null
    : K extends 'bool'
      ? boolean
      : K extends 'origins'
        ? readonly string[]
        : string;
type Shape = { [S in (typeof SETTINGS)[number] as S['key']]: ValueOf<S['kind']> };

/** Resolved settings, keyed by dotted path. Sizes are bytes, durations milliseconds. */
export type Config = Readonly<Shape>;

export const envName = (key: string): string => 'SUNDIAL_' + key.slice(key.lastIndexOf('.') + 1).toUpperCase();
export const flagName = (key: string): string => key.slice(key.lastIndexOf('.') + 1).replaceAll('_', '-');

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};
const TIME_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** An origin as a browser sends it in `Origin`: scheme, host and a port only when not the scheme's own. */
function isOrigin(text: string): boolean {
  return text === '*' || (URL.canParse(text) && new URL(text).origin === text);
}

function convert(
  spec: SettingSpec,
  raw: unknown,
  source: string,
): string | number | boolean | null | readonly string[] {
  const bad = (want: string): never => {
    throw new ConfigError(`invalid ${spec.key} from ${source}: ${JSON.stringify(raw)} (want ${want})`);
  };
  switch (spec.kind) {
    case 'string':
      if (spec.choices !== undefined)
        return typeof raw === 'string' && spec.choices.includes(raw) ? raw : bad(spec.choices.join(', '));
      return typeof raw === 'string' ? raw : bad('a string');
    case 'level':
      return typeof raw === 'string' && LEVELS.includes(raw) ? raw : bad(LEVELS.join(', '));
    case 'bool':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return bad('true or false');
    case 'port': {
      if (raw === '' || raw === 'off') return null;
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      return Number.isSafeInteger(n) && n >= 0 && n <= 65535 ? n : bad('a port 0-65535, or "off"');
    }
    case 'int': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
      return Number.isSafeInteger(n) && n >= 0 ? n : bad('a non-negative integer');
    }
    case 'bytes': {
      if (typeof raw === 'number')
        return Number.isSafeInteger(raw) && raw > 0 ? raw : bad('a positive number of bytes');
      const m = typeof raw === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(raw) : null;
      const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
      return m && unit !== undefined && Number(m[1]) > 0
        ? Math.round(Number(m[1]) * unit)
        : bad('bytes like 1048576, "64MiB" or "500MB"');
    }
    case 'origins': {
      const list =
        typeof raw === 'string'
          ? raw
              .split(',')
              .map((o) => o.trim())
              .filter((o) => o !== '')
          : raw;
      if (!Array.isArray(list) || !list.every((o) => typeof o === 'string' && isOrigin(o)))
        return bad('origins like "https://app.example.com,http://localhost:5173" (scheme, host, port only), or "*"');
      return list as string[];
    }
    case 'duration': {
      const min = spec.zero === true ? 0 : 1;
      if (typeof raw === 'number')
        return Number.isSafeInteger(raw) && raw >= min
          ? raw
          : bad(min === 0 ? 'milliseconds, 0 for off' : 'positive milliseconds');
      const m = typeof raw === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(raw) : null;
      const ms = m ? Math.round(Number(m[1]) * TIME_UNITS[m[2] ?? 'ms']!) : NaN;
      return ms >= min ? ms : bad(`a duration like 30000, "30s" or "10m"${min === 0 ? ', 0 for off' : ''}`);
    }
  }
}

function lookup(tree: Record<string, unknown>, key: string): unknown {
  let node: unknown = tree;
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Keys present in the TOML file that no setting declares (typos must not pass silently). */
function unknownKeys(tree: Record<string, unknown>, prefix = ''): string[] {
  const known = new Set<string>(SETTINGS.map((s) => s.key));
  const out: string[] = [];
  for (const [k, v] of Object.entries(tree)) {
    const path = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !known.has(path))
      out.push(...unknownKeys(v as Record<string, unknown>, path + '.'));
    else if (!known.has(path)) out.push(path);
  }
  return out;
}

export interface LoadOptions {
  argv?: string[];
  env?: Record<string, string | undefined>;
}

/** Resolves the configuration. Throws ConfigError naming the setting and source on bad input. */
export function loadConfig({ argv = process.argv.slice(2), env = process.env }: LoadOptions = {}): Config {
  const options: Record<string, { type: 'string' }> = { config: { type: 'string' } };
  for (const s of SETTINGS) options[flagName(s.key)] = { type: 'string' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: false, strict: true });
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  const flags = parsed.values as Record<string, string | undefined>;

  let file: Record<string, unknown> = {};
  const configPath = flags.config ?? env.SUNDIAL_CONFIG;
  if (configPath !== undefined) {
    try {
      file = parseToml(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError(`cannot read config file ${configPath}: ${(e as Error).message}`);
    }
    const unknown = unknownKeys(file);
    if (unknown.length > 0) throw new ConfigError(`unknown setting(s) in ${configPath}: ${unknown.join(', ')}`);
  }

  const out: Record<string, string | number | boolean | null | readonly string[]> = {};
  for (const spec of SETTINGS as readonly SettingSpec[]) {
    let value = spec.default;
    const fromFile = lookup(file, spec.key);
    if (fromFile !== undefined) value = convert(spec, fromFile, `config file ${configPath}`);
    const fromEnv = env[envName(spec.key)];
    if (fromEnv !== undefined) value = convert(spec, fromEnv, `environment variable ${envName(spec.key)}`);
    const fromFlag = flags[flagName(spec.key)];
    if (fromFlag !== undefined) value = convert(spec, fromFlag, `flag --${flagName(spec.key)}`);
    out[spec.key] = value;
  }
  if ((out['storage.compaction_fan_in'] as number) < 2)
    throw new ConfigError(`invalid storage.compaction_fan_in: ${out['storage.compaction_fan_in']} (want 2 or more)`);
  if ((out['server.port'] as number) > 65535)
    throw new ConfigError(`invalid server.port: ${out['server.port']} (want 0-65535)`);
  if (!/^[A-Za-z0-9_.-]+$/.test(out['server.cluster.name'] as string))
    throw new ConfigError(
      `invalid server.cluster.name: ${JSON.stringify(out['server.cluster.name'])} (want letters, digits, '_', '.' or '-': it is a key prefix in etcd)`,
    );
  return out as Config;
}

export type { SettingKey };
