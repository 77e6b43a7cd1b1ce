// The sandbox's built-in demo set, generated where it is used: TSBS's devops cpu-only shape
// (../shared/bench/gen-cpu.mjs, after github.com/timescale/tsbs pkg/data/usecases/devops): table
// `cpu`, ten host tags, ten BIGINT fields usage_user .. usage_guest_nice, each a random walk
// clamped to [0, 100], one row per host every 10 s. Seeded, so every page draws the same rows.

export const DEMO_FIELDS = [
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

const REGIONS = [
  'us-east-1',
  'us-west-1',
  'us-west-2',
  'eu-west-1',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-northeast-1',
  'sa-east-1',
];
const OS = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'];
const ARCH = ['x64', 'x86'];
const TEAM = ['SF', 'NYC', 'LON', 'CHI'];
const ENV = ['production', 'staging', 'test'];

/** sfc32 seeded through splitmix32, as gen-cpu.mjs. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  const sm = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = sm();
  let b = sm();
  let c = sm();
  let d = sm();
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

export interface DemoOptions {
  hosts: number;
  /** Length of the set in seconds, from `startMs`. */
  durationS: number;
  startMs: number;
  intervalS: number;
  seed: number;
}

export const DEMO_DEFAULTS: DemoOptions = {
  hosts: 10,
  durationS: 86_400,
  startMs: Date.UTC(2016, 0, 1),
  intervalS: 10,
  seed: 42,
};

/**
 * The set as line protocol, in pieces of about `chunkRows` rows (time-major: every host at t0,
 * then t1, ...), so that a caller can scan and store it a piece at a time.
 */
export function* demoLineProtocol(options: Partial<DemoOptions> = {}, chunkRows = 50_000): Generator<string> {
  const o = { ...DEMO_DEFAULTS, ...options };
  const r = rng(o.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
  const prefixes: string[] = [];
  const walk: number[][] = [];
  for (let h = 0; h < o.hosts; h++) {
    const region = pick(REGIONS);
    const tags = [
      `hostname=host_${h}`,
      `region=${region}`,
      `datacenter=${region}${'abc'[Math.floor(r() * 3)]}`,
      `rack=${Math.floor(r() * 100)}`,
      `os=${pick(OS)}`,
      `arch=${pick(ARCH)}`,
      `team=${pick(TEAM)}`,
      `service=${Math.floor(r() * 20)}`,
      `service_version=${Math.floor(r() * 2)}`,
      `service_environment=${pick(ENV)}`,
    ];
    prefixes.push(`cpu,${tags.join(',')} `);
    walk.push(DEMO_FIELDS.map(() => r() * 100));
  }
  const steps = Math.floor(o.durationS / o.intervalS);
  let out: string[] = [];
  for (let i = 0; i < steps; i++) {
    const ts = `${BigInt(o.startMs + i * o.intervalS * 1000) * 1_000_000n}`;
    for (let h = 0; h < o.hosts; h++) {
      const w = walk[h]!;
      let fields = '';
      for (let f = 0; f < w.length; f++) {
        // N(0, 1) steps by Box-Muller, clamped to [0, 100].
        const step = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
        w[f] = Math.min(100, Math.max(0, w[f]! + step));
        fields += `${f === 0 ? '' : ','}${DEMO_FIELDS[f]}=${Math.round(w[f]!)}i`;
      }
      out.push(prefixes[h]! + fields + ' ' + ts);
    }
    if (out.length >= chunkRows) {
      yield out.join('\n');
      out = [];
    }
  }
  if (out.length > 0) yield out.join('\n');
}
