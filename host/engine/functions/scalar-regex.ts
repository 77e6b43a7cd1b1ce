// regexp_match(s, pattern[, flags]) and regexp_replace(s, pattern, replacement[, flags]) as
// DataFusion 27 has them: regexp_match returns the first match's capture groups as a list (the
// whole match when the pattern has none) or NULL; regexp_replace replaces the first match, every
// match with flag 'g', and reads `\1` and `${1}` in the replacement as group references. Patterns
// run on JavaScript's RegExp with the `u` flag: Rust's regex syntax is the same for the usual
// classes, groups and quantifiers (no lookaround in either).

import type { Scalar } from '../batch.js';
import { executionError } from '../errors.js';
import { UTF8 } from '../types.js';
import type { ScalarFunction } from './function-types.js';
import { requireString } from './scalar-string.js';
import { matchSignature, rowwise } from './signature.js';

const LARGE_UTF8 = { id: 'LargeUtf8' } as unknown as typeof UTF8;

/** Compiled patterns by pattern and flags (a column of patterns usually repeats a few). */
const cache = new Map<string, RegExp>();

function compile(fn: string, pattern: string, flags: string, global: boolean): RegExp {
  const key = `${flags}/${global}/${pattern}`;
  let re = cache.get(key);
  if (re !== undefined) return re;
  let js = 'u';
  for (const f of flags) {
    if (f === 'i' || f === 'm' || f === 's') {
      if (!js.includes(f)) js += f;
    } else if (f !== 'g') throw executionError(`Datafusion: Execution error: ${fn}() does not support the flag "${f}"`);
  }
  if (global) js += 'g';
  try {
    re = new RegExp(pattern, js);
  } catch (e) {
    throw executionError(`Arrow error: Compute error: Regular expression did not compile: ${(e as Error).message}`);
  }
  if (cache.size > 256) cache.clear();
  cache.set(key, re);
  return re;
}

const regexpMatch = rowwise({
  name: 'regexp_match',
  bind(argTypes) {
    matchSignature('regexp_match', argTypes, [
      [UTF8, UTF8],
      [LARGE_UTF8, UTF8],
      [UTF8, UTF8, UTF8],
      [LARGE_UTF8, UTF8, UTF8],
    ]);
    requireString('regexp_match', argTypes[0]!);
    return { argTypes: argTypes.map(() => UTF8), returnType: { id: 'List', item: UTF8 } };
  },
  row(args): Scalar {
    const flags = args.length > 2 ? (args[2] as string) : '';
    if (flags.includes('g')) throw executionError('Arrow error: Compute error: regexp_match() does not support the "global" option');
    const m = compile('regexp_match', args[1] as string, flags, false).exec(args[0] as string);
    if (m === null) return null;
    return m.length > 1 ? m.slice(1).map((g) => g ?? null) : [m[0]];
  },
});

/** The replacement text of one match: `\N`, `$N` and `${N}` name groups, `$$` is a dollar. */
function expand(replacement: string, groups: readonly (string | undefined)[]): string {
  return replacement.replace(/\\(\d+)|\$\{(\d+)\}|\$(\d+)|\$\$/g, (whole, a?: string, b?: string, c?: string) => {
    const n = a ?? b ?? c;
    if (n === undefined) return '$';
    return groups[Number(n)] ?? '';
  });
}

const regexpReplace = rowwise({
  name: 'regexp_replace',
  bind(argTypes) {
    matchSignature('regexp_replace', argTypes, [
      [UTF8, UTF8, UTF8],
      [UTF8, UTF8, UTF8, UTF8],
    ]);
    requireString('regexp_replace', argTypes[0]!);
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row(args): Scalar {
    const flags = args.length > 3 ? (args[3] as string) : '';
    const re = compile('regexp_replace', args[1] as string, flags, flags.includes('g'));
    const replacement = args[2] as string;
    return (args[0] as string).replace(re, (...m: unknown[]) => {
      const groups = m.slice(0, m.findIndex((x) => typeof x === 'number')) as (string | undefined)[];
      return expand(replacement, groups);
    });
  },
});

export const REGEX_FUNCTIONS: readonly ScalarFunction[] = [regexpMatch, regexpReplace];
