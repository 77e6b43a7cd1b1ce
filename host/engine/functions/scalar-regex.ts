// regexp_match(s, pattern[, flags]) and regexp_replace(s, pattern, replacement[, flags]) as
// DataFusion 27 has them: regexp_match returns the first match's capture groups as a list (the
// whole match when the pattern has none) or NULL; regexp_replace replaces the first match, every
// match with flag 'g', and reads `\1` and `${1}` in the replacement as group references. Patterns
// are CnosDB's (the Rust regex crate's syntax), run in linear time on RE2JS (rust-regex.ts); a
// pattern that does not compile fails as DataFusion reports it: arrow's "Regular expression did
// not compile: {Debug}" for regexp_match, an External error with the Display text for
// regexp_replace.

import type { RE2JS } from 're2js';
import { type Scalar, UTF8 } from '../types/index.js';
import { executionError } from '../errors.js';
import { ChunkedString } from './chunked-string.js';
import type { ScalarFunction } from './function-types.js';
import type { ResultBudget } from './result-size.js';
import { compileRustRegex, RegexError, requiredLiteral } from './rust-regex.js';
import { requireString } from './scalar-string.js';
import { matchSignature, rowwise } from './signature.js';

const LARGE_UTF8 = { id: 'LargeUtf8' } as unknown as typeof UTF8;

/** A compiled pattern and the literal every match contains (rust-regex.ts requiredLiteral). */
interface Compiled {
  readonly re: RE2JS;
  readonly needed: string | undefined;
}

/** Compiled patterns by flags and pattern (a column of patterns usually repeats a few). */
const cache = new Map<string, Compiled>();

/** The last pattern compiled: a column of rows shares one pattern, looked up without a key. */
let last: { pattern: string; flags: string | undefined; compiled: Compiled } | undefined;

function compile(pattern: string, flags: string | undefined, failure: (e: RegexError) => Error): Compiled {
  if (last !== undefined && last.pattern === pattern && last.flags === flags) return last.compiled;
  const key = `${flags ?? ''}/${pattern}`;
  let c = cache.get(key);
  if (c !== undefined) {
    last = { pattern, flags, compiled: c };
    return c;
  }
  try {
    c = { re: compileRustRegex(pattern, flags), needed: requiredLiteral(pattern, flags) };
  } catch (e) {
    throw e instanceof RegexError ? failure(e) : e;
  }
  if (cache.size >= 256) cache.clear();
  cache.set(key, c);
  last = { pattern, flags, compiled: c };
  return c;
}

/** Whether `s` can hold a match at all: a row without the needed literal is skipped unsearched. */
const mayMatch = (c: Compiled, s: string): boolean => c.needed === undefined || s.includes(c.needed);

const arrowFailure = (e: RegexError): Error =>
  executionError(`Arrow error: Compute error: Regular expression did not compile: ${e.debug}`);
const externalFailure = (e: RegexError): Error => executionError(`Datafusion: External error: ${e.message}`);

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
    const flags = args.length > 2 ? (args[2] as string) : undefined;
    if (flags?.includes('g'))
      throw executionError('Arrow error: Compute error: regexp_match() does not support the "global" option');
    const c = compile(args[1] as string, flags, arrowFailure);
    const s = args[0] as string;
    if (!mayMatch(c, s)) return null;
    // The matcher, not exec(): exec builds a RegExpExecArray with its groups object (1.3 against
    // 0.9 s over 1M rows).
    const m = c.re.matcher(s);
    if (!m.find()) return null;
    const groups = c.re.groupCount();
    if (groups === 0) return [m.group(0)];
    const out = new Array<string | null>(groups);
    for (let g = 1; g <= groups; g++) out[g - 1] = m.group(g);
    return out;
  },
});

/** The replacement text of one match: `\N`, `$N` and `${N}` name groups, `$$` is a dollar. */
function expand(replacement: string, groups: ArrayLike<string | undefined>): string {
  return replacement.replace(/\\(\d+)|\$\{(\d+)\}|\$(\d+)|\$\$/g, (_whole, a?: string, b?: string, c?: string) => {
    const n = a ?? b ?? c;
    if (n === undefined) return '$';
    return groups[Number(n)] ?? '';
  });
}

/** Whether a replacement reads no group (so each match is replaced by the same text). */
const LITERAL_REPLACEMENT = /^[^\\$]*$/;

/**
 * Replaces the first match of `re` in `s` (every match with `all`), as Rust's Regex::replace and
 * replace_all do: an empty match right where the previous match ended is no match ('baaa' with
 * a* and '-' is '-b-', where JavaScript and RE2JS's own replaceAll give '-b--'). The output's size
 * is checked as it grows, before the pieces are joined: a global replacement can make a string
 * many times its input (issue 24). RE2JS finds about a million matches a second.
 */
function replace(s: string, re: RE2JS, replacement: string, all: boolean, budget: ResultBudget): string {
  const fixed = LITERAL_REPLACEMENT.test(replacement) ? replacement : undefined;
  const m = re.matcher(s);
  const groups = re.groupCount() + 1;
  const out = new ChunkedString();
  let matched = false;
  let last = 0;
  let units = 0;
  while (m.find()) {
    const at = m.start();
    const end = m.end();
    if (at === end && matched && at === last) continue;
    matched = true;
    const text =
      fixed ??
      expand(
        replacement,
        Array.from({ length: groups }, (_, g) => m.group(g) ?? undefined),
      );
    units += at - last + text.length;
    // Only growth can pass the budget: the input is already held.
    if (units + s.length - end > s.length) budget.string(units + s.length - end);
    out.append(s.slice(last, at));
    out.append(text);
    last = end;
    if (!all) break;
  }
  if (!matched) return s;
  out.append(s.slice(last));
  return out.toString();
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
  row(args, _ctx, _type, budget): Scalar {
    const flags = args.length > 3 ? (args[3] as string) : undefined;
    // DataFusion: "g" alone is replace-all without flags; other flags go into `(?flags)`.
    const all = flags?.includes('g') === true;
    const c = compile(args[1] as string, flags?.replaceAll('g', ''), externalFailure);
    const s = args[0] as string;
    return mayMatch(c, s) ? replace(s, c.re, args[2] as string, all, budget) : s;
  },
});

export const REGEX_FUNCTIONS: readonly ScalarFunction[] = [regexpMatch, regexpReplace];
