// The import graph of host/, read from the source: no cycle between files, and no import from a
// folder to one above it (docs/architecture.md, "Layers"). A change that breaks either fails here
// with the files named. Type-only imports count: a cycle of types is still a cycle to read.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(new URL('..', import.meta.url).pathname);
const host = join(root, 'host');

/**
 * What each folder of host/ may import, besides itself. Folders not listed may import nothing.
 * The composition root (cli, then node) sits on top; core at the bottom.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  cli: ['node', 'server', 'pgwire', 'storage', 'meta', 'engine', 'influxql', 'ingest', 'core'],
  sandbox: ['server', 'storage', 'meta', 'engine', 'ingest', 'core'],
  node: ['server', 'pgwire', 'storage', 'meta', 'engine', 'influxql', 'ingest', 'core'],
  pgwire: ['server', 'storage', 'meta', 'engine', 'core'],
  server: ['storage', 'meta', 'engine', 'influxql', 'ingest', 'core'],
  storage: ['meta', 'core'],
  meta: ['core'],
  influxql: ['engine', 'core'],
  engine: ['core'],
  ingest: ['core'],
  core: [],
};

/**
 * Inside host/engine, what each part may import besides itself (docs/architecture.md, "Inside the
 * engine"): a part is a folder or a file at the engine's top. Types sit at the bottom (Arrow's
 * place in DataFusion), the statement's entry (engine.ts) on top; parts not listed import nothing.
 */
const ENGINE_MAY_IMPORT: Record<string, readonly string[]> = {
  'engine.ts': [
    'plan-cache.ts',
    'physical-planner.ts',
    'commands',
    'external',
    'planner',
    'optimizer',
    'exec',
    'query.ts',
    'system',
    'plan',
    'sql',
    'functions',
    'memory',
    'catalog.ts',
    'types',
    'errors.ts',
  ],
  'plan-cache.ts': ['plan', 'functions', 'types'],
  'physical-planner.ts': ['physical-optimizer', 'exec', 'plan', 'types'],
  'physical-optimizer': ['exec', 'plan', 'types'],
  commands: [
    'planner',
    'optimizer',
    'exec',
    'external',
    'system',
    'plan',
    'sql',
    'functions',
    'memory',
    'catalog.ts',
    'types',
    'errors.ts',
  ],
  planner: ['optimizer', 'system', 'plan', 'sql', 'functions', 'catalog.ts', 'types', 'errors.ts'],
  optimizer: ['exec', 'plan', 'functions', 'types', 'errors.ts'],
  exec: ['query.ts', 'plan', 'functions', 'external', 'memory', 'catalog.ts', 'types', 'errors.ts'],
  'query.ts': ['system', 'sql', 'memory', 'types'],
  system: ['plan', 'catalog.ts', 'types', 'errors.ts'],
  plan: ['functions', 'catalog.ts', 'types', 'errors.ts'],
  functions: ['geometry', 'memory', 'types', 'errors.ts'],
  external: ['format', 'sql', 'memory', 'catalog.ts', 'types', 'errors.ts'],
  format: ['memory', 'types'],
  sql: ['types'],
  geometry: ['types'],
  memory: ['types'],
  'catalog.ts': ['types'],
  types: ['errors.ts'],
  'errors.ts': [],
};

/**
 * What each folder of host/storage may import, besides itself (the sub-layers of docs/architecture.md,
 * "Storage"). The files at the top of storage/ (index.ts, storage.ts, database.ts, and
 * catalog-file.ts, the catalog's file for meta's store, checkpoint.ts, a backup's, offline-check.ts, sundial check's, provisional-schema.ts, a write's new schema) compose the folders, which never import them.
 */
const STORAGE_MAY_IMPORT: Record<string, readonly string[]> = {
  compaction: ['read', 'segment', 'memtable', 'series', 'fs'],
  read: ['segment', 'memtable', 'series'],
  segment: ['memtable', 'series', 'fs'],
  wal: ['memtable', 'fs'],
  memtable: ['series'],
  series: [],
  fs: [],
  objstore: ['segment', 'fs'],
  jetstream: ['wal', 'memtable', 'fs'],
};
const STORAGE_TOP = new Set([
  'host/storage/index.ts',
  'host/storage/storage.ts',
  'host/storage/database.ts',
  'host/storage/catalog-file.ts',
  'host/storage/checkpoint.ts',
  'host/storage/offline-check.ts',
  'host/storage/provisional-schema.ts',
]);

/**
 * Edges that break the rules today, each to be removed by the redesign of issue 26; the list
 * may only shrink (an entry that no longer exists fails too, so that it is deleted).
 */
const KNOWN_UPWARD: readonly string[] = [];
const KNOWN_CYCLES: readonly string[] = [];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Relative imports of a file, resolved to files of the tree (`./x.js` names `./x.ts`). */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith('.')) continue;
    const base = resolve(dirname(file), spec).replace(/\.js$/, '');
    for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
      if (known.has(candidate)) {
        out.add(candidate);
        break;
      }
    }
  }
  return [...out];
}

function graph(): Map<string, string[]> {
  const files = sourceFiles(host);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, known)]));
}

/** Strongly connected components of more than one file (Tarjan), each as sorted relative paths. */
function cycles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.map((f) => relative(root, f)).sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) visit(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

const folderOf = (file: string): string => relative(host, file).split('/')[0]!;
const engine = join(host, 'engine');
/** The part of host/engine a file belongs to: its folder there, or the file at the top. */
const enginePartOf = (file: string): string => relative(engine, file).split('/')[0]!;

describe('the import graph of host/', () => {
  const g = graph();

  it('has no cycle between files', () => {
    const found = cycles(g).map((c) => c.join(' <-> '));
    expect(found.filter((c) => !KNOWN_CYCLES.includes(c))).toEqual([]);
    expect(
      KNOWN_CYCLES.filter((c) => !found.includes(c)),
      'cycles gone: delete them from KNOWN_CYCLES',
    ).toEqual([]);
  });

  it('has no import from a folder to one above it', () => {
    const found: string[] = [];
    for (const [file, deps] of g) {
      const from = folderOf(file);
      for (const dep of deps) {
        const to = folderOf(dep);
        if (to !== from && !(MAY_IMPORT[from] ?? []).includes(to))
          found.push(`${relative(root, file)} -> ${relative(root, dep)}`);
      }
    }
    found.sort();
    expect(found.filter((e) => !KNOWN_UPWARD.includes(e))).toEqual([]);
    expect(
      KNOWN_UPWARD.filter((e) => !found.includes(e)),
      'edges gone: delete them from KNOWN_UPWARD',
    ).toEqual([]);
  });

  it('has no import from a folder of host/storage to one above it', () => {
    const found: string[] = [];
    const storage = join(host, 'storage');
    const innerOf = (file: string): string | undefined => {
      const parts = relative(storage, file).split('/');
      return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
    };
    for (const [file, deps] of g) {
      const from = innerOf(file);
      if (from === undefined) continue;
      for (const dep of deps) {
        const to = innerOf(dep);
        const upward =
          to === undefined
            ? STORAGE_TOP.has(relative(root, dep))
            : to !== from && !(STORAGE_MAY_IMPORT[from] ?? []).includes(to);
        if (upward) found.push(`${relative(root, file)} -> ${relative(root, dep)}`);
      }
    }
    expect(found).toEqual([]);
    const folders = [...new Set([...g.keys()].map(innerOf).filter((f) => f !== undefined))];
    expect(folders.filter((f) => !(f in STORAGE_MAY_IMPORT))).toEqual([]);
  });

  it('puts every folder of host/ in a layer', () => {
    const folders = [...new Set([...g.keys()].map(folderOf))].filter((f) => !f.endsWith('.ts') && !f.endsWith('.md'));
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('has no import inside host/engine from a part to one above it', () => {
    const found: string[] = [];
    for (const [file, deps] of g) {
      if (folderOf(file) !== 'engine') continue;
      const from = enginePartOf(file);
      for (const dep of deps) {
        if (folderOf(dep) !== 'engine') continue;
        const to = enginePartOf(dep);
        if (to !== from && !(ENGINE_MAY_IMPORT[from] ?? []).includes(to))
          found.push(`${relative(root, file)} -> ${relative(root, dep)}`);
      }
    }
    expect(found.sort()).toEqual([]);
  });

  it('puts every part of host/engine in a sub-layer', () => {
    const parts = [...new Set([...g.keys()].filter((f) => folderOf(f) === 'engine').map(enginePartOf))];
    expect(parts.filter((p) => !(p in ENGINE_MAY_IMPORT))).toEqual([]);
  });
});
