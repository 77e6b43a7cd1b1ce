// Elasticsearch's `filter_path` (REST common options, "Response filtering"), for replies whose
// clients ask for a part (Logstash: `filter_path=errors,items.*.error,items.*.status` on every
// bulk). A comma list of dotted paths; `*` in a name matches any characters, a `**` name any
// depth, a leading `-` excludes. Arrays are passed through to their elements. As Elasticsearch's
// filtering writes an object or array only when something in it matched, a bulk reply filtered
// by `items.*.error` keeps only the failed items, and `{}` when none failed.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A path split at dots, each name a matcher ('**': any depth). */
type Path = ReadonlyArray<string>;

function nameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return re.test(name);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What of `paths` is left below `key`; `whole` when one of them ends at it. */
function below(paths: readonly Path[], key: string): { whole: boolean; rest: Path[] } {
  const rest: Path[] = [];
  let whole = false;
  const step = (p: Path): void => {
    const [head, ...tail] = p;
    if (head === undefined) return;
    if (head === '**') {
      // Any depth: this key may be one of the levels it skips, or the first after them.
      rest.push(p);
      step(tail);
      return;
    }
    if (!nameMatches(head, key)) return;
    if (tail.length === 0) whole = true;
    else rest.push(tail);
  };
  for (const p of paths) step(p);
  return { whole, rest };
}

/** The parts of `value` the paths reach; undefined where they reach nothing. */
function include(value: Json, paths: readonly Path[]): Json | undefined {
  if (Array.isArray(value)) {
    const out = value.map((v) => include(v, paths)).filter((v): v is Json => v !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const out: { [key: string]: Json } = {};
  let any = false;
  for (const [key, v] of Object.entries(value)) {
    const { whole, rest } = below(paths, key);
    const kept = whole ? v : rest.length === 0 ? undefined : include(v, rest);
    if (kept !== undefined) {
      out[key] = kept;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** `value` without the parts the paths reach. */
function exclude(value: Json, paths: readonly Path[]): Json {
  if (Array.isArray(value)) return value.map((v) => exclude(v, paths));
  if (value === null || typeof value !== 'object') return value;
  const out: { [key: string]: Json } = {};
  for (const [key, v] of Object.entries(value)) {
    const { whole, rest } = below(paths, key);
    if (!whole) out[key] = rest.length === 0 ? v : exclude(v, rest);
  }
  return out;
}

/** `json` (a reply's text) filtered by `filterPath` (the parameter's value); `{}` when nothing is left. */
export function filterJson(json: string, filterPath: string): string {
  const includes: Path[] = [];
  const excludes: Path[] = [];
  for (const part of filterPath.split(',')) {
    const p = part.trim();
    if (p === '' || p === '-') continue;
    if (p.startsWith('-')) excludes.push(p.slice(1).split('.'));
    else includes.push(p.split('.'));
  }
  if (includes.length === 0 && excludes.length === 0) return json;
  let value: Json | undefined = JSON.parse(json) as Json;
  if (includes.length > 0) value = include(value, includes);
  if (value !== undefined && excludes.length > 0) value = exclude(value, excludes);
  return JSON.stringify(value ?? {});
}
