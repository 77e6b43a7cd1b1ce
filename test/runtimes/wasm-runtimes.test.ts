// Issue 27: the Wasm core embedded in runtimes other than Node. wasm-abi-probe.mjs drives
// build/sundial.wasm through the ABI of assembly/README.md alone; Bun (JavaScriptCore) and Deno
// (npm @oven/bun-linux-x64 and @deno/linux-x64-glibc, optional dependencies) run it, and what
// they get must be what Node's host code (host/ingest, host/core) makes of the same input.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zstd from 'zstd-napi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlockCodecs } from '../../host/core/codecs.js';
import { ValueType } from '../../host/core/write-batch.js';
import { LineProtocolScanner } from '../../host/ingest/line-protocol.js';
import { loadCore } from '../support/core.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const WASM = join(root, 'build/sundial.wasm');
const PROBE = join(root, 'test/runtimes/wasm-abi-probe.mjs');

interface Column {
  kind: 'i64' | 'f64' | 'bool' | 'str';
  mode: number;
  input: { values: string; validity: number[] | null } | string[];
  block: string;
  decodeRc: number;
  decoded?: string;
  validity?: number[] | null;
  strings?: string[];
}
interface Scan {
  text: string;
  defaultTs: string;
  rc: number;
  rows: number;
  fixups: number;
  batch?: string;
  error?: { code: number; line: number; column: number; offset: number; length: number };
}
interface Probe {
  runtime: string;
  lineProtocol: Scan;
  lineProtocolError: Scan;
  codecs: Column[];
}

const RUNTIMES: {
  name: string;
  pkg: string;
  bin: string;
  args: (dir: string) => string[];
  env: (dir: string) => Record<string, string>;
}[] = [
  { name: 'Node', pkg: 'node', bin: process.execPath, args: () => [], env: () => ({}) },
  {
    name: 'Bun',
    pkg: '@oven/bun-linux-x64',
    bin: join(root, 'node_modules/@oven/bun-linux-x64/bin/bun'),
    args: () => [],
    env: (dir) => ({ BUN_INSTALL_CACHE_DIR: join(dir, 'bun') }),
  },
  {
    name: 'Deno',
    pkg: '@deno/linux-x64-glibc',
    bin: join(root, 'node_modules/@deno/linux-x64-glibc/deno'),
    args: () => ['run', '--no-config', '--no-lock', `--allow-read=${WASM}`],
    env: (dir) => ({ DENO_DIR: join(dir, 'deno'), DENO_NO_UPDATE_CHECK: '1' }),
  },
];

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
const bytesOf = (h: string): Uint8Array => new Uint8Array(Buffer.from(h, 'hex'));
/** The CnosDB codec name BlockCodecs maps to each encoder mode the probe uses. */
const CODEC = {
  i64: { 0: 'DEFAULT', 3: 'DELTATS' },
  f64: { 0: 'DEFAULT', 1: 'NULL', 4: 'GORILLA' },
  bool: { 0: 'DEFAULT' },
} as Record<string, Record<number, string>>;
const TYPE = { i64: ValueType.BigInt, f64: ValueType.Double, bool: ValueType.Boolean } as Record<string, ValueType>;

describe.each(RUNTIMES)('the Wasm core through its documented ABI in $name', (rt) => {
  let dir: string;
  let probe: Probe;
  beforeAll(() => {
    expect(
      existsSync(rt.bin),
      `${rt.name} is missing: npm install (the optional dependency ${rt.pkg} provides it on linux-x64)`,
    ).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'sundial-runtime-'));
    const out = execFileSync(rt.bin, [...rt.args(dir), PROBE, WASM], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, ...rt.env(dir) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    probe = JSON.parse(out) as Probe;
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('runs in that runtime', () => {
    expect(probe.runtime.split(' ')[0]).toBe(rt.name.toLowerCase());
  });

  it('scans line protocol into the write batch Node host code makes of the same body', async () => {
    const lp = probe.lineProtocol;
    expect({ rc: lp.rc, rows: lp.rows, fixups: lp.fixups }).toEqual({ rc: 0, rows: 3, fixups: 1 });
    const scanner = new LineProtocolScanner(await loadCore());
    const batches = scanner.scan(new TextEncoder().encode(lp.text), {
      tsMultiplier: 1n,
      tsDivisor: 1n,
      defaultTs: BigInt(lp.defaultTs),
    });
    expect(batches.map(hex)).toEqual([lp.batch]);
  });

  it('reports a bad line by code, line and column, as the ABI documents', () => {
    // 'cpu usage=\n' on line 2: E_FIELD_VALUE (10) at the end of the line.
    expect(probe.lineProtocolError).toMatchObject({ rc: 10, error: { code: 10, line: 2, column: 11, length: 0 } });
  });

  it('encodes every column as BlockCodecs does and decodes it back', async () => {
    const codecs = BlockCodecs.create(await loadCore(), zstd);
    expect(probe.codecs.length).toBe(9);
    for (const c of probe.codecs) {
      if (c.kind === 'str') {
        expect(c.decodeRc).toBe(0);
        expect(c.strings).toEqual(c.input);
        continue;
      }
      const input = c.input as { values: string; validity: number[] | null };
      const raw = bytesOf(input.values);
      const values =
        c.kind === 'bool' ? raw : c.kind === 'f64' ? new Float64Array(raw.buffer) : new BigInt64Array(raw.buffer);
      const validity = input.validity === null ? undefined : Uint8Array.from(input.validity);
      const block = codecs.encode(TYPE[c.kind]!, values, validity, values.length, CODEC[c.kind]![c.mode]!);
      expect(c.block, `${c.kind} mode ${c.mode}`).toBe(hex(block));
      expect(c.decodeRc).toBe(validity === undefined ? 0 : 1);
      expect(c.validity).toEqual(input.validity);
      // NULL rows decode as 0; present rows as written.
      const present = bytesOf(c.decoded!);
      const width = c.kind === 'bool' ? 1 : 8;
      const want = raw.slice();
      if (validity !== undefined)
        validity.forEach((v, i) => {
          if (v === 0) want.fill(0, i * width, (i + 1) * width);
        });
      expect(hex(present)).toBe(hex(want));
    }
  });
});
