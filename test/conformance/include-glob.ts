// Expands the pattern of an .slt `include` line (relative to the including file) to files, sorted
// by path as Rust's `glob` crate yields them. Node 20 has no fs.glob, and includes only need
// `*`, `?`, `[...]` and `**`, so this is a small segment-by-segment matcher.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';

const MAGIC = /[*?[]/;

/** Files matching `pattern`, resolved against the directory of `fromFile`. Missing files: `[]`. */
export function expandInclude(pattern: string, fromFile: string): string[] {
  const full = isAbsolute(pattern) ? pattern : join(dirname(fromFile), pattern);
  if (!MAGIC.test(full)) return existsSync(full) && statSync(full).isFile() ? [resolve(full)] : [];
  const segments = resolve(full).split(sep);
  const root = segments.shift() + sep;
  const out: string[] = [];
  walk(root, segments, out);
  return [...new Set(out)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function walk(dir: string, segments: string[], out: string[]): void {
  if (segments.length === 0) {
    if (existsSync(dir) && statSync(dir).isFile()) out.push(dir);
    return;
  }
  const [head, ...rest] = segments as [string, ...string[]];
  if (!MAGIC.test(head)) {
    walk(join(dir, head), rest, out);
    return;
  }
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  if (head === '**') {
    walk(dir, rest, out);
    for (const e of entries) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p, segments, out);
    }
    return;
  }
  const re = segmentRegex(head);
  for (const e of entries) if (re.test(e)) walk(join(dir, e), rest, out);
}

function segmentRegex(segment: string): RegExp {
  let src = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '*') src += '[^/]*';
    else if (c === '?') src += '[^/]';
    else if (c === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close < 0) {
        src += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, close);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      src += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = close;
    } else src += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  // Like the glob crate's default options, a leading `*` does not match a leading dot.
  return new RegExp(segment.startsWith('.') ? `^${src}$` : `^(?!\\.)${src}$`);
}
