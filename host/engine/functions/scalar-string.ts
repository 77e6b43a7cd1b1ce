// String functions. Lengths count characters (code points), as Rust's chars() does, not UTF-16
// units. DataFusion 27 returns Int32 for character_length; this engine has no Int32, so lengths
// are BIGINT (the only visible difference is the type name in error messages).

import type { Scalar } from '../batch.js';
import { BOOLEAN, INT64, UTF8, type DataType } from '../types.js';
import { planError } from '../errors.js';
import type { ScalarFunction } from './function-types.js';
import { expectArgs, matchSignature, noMatchingSignature, rowwise } from './signature.js';
import { scalarToString } from '../exec/cast.js';

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function stringUnary(name: string, returnType: DataType, f: (s: string) => Scalar): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      matchSignature(name, argTypes, [[UTF8]]);
      return { argTypes: [UTF8], returnType };
    },
    row: (args) => f(args[0] as string),
  });
}

function stringBinary(name: string, returnType: DataType, f: (a: string, b: string) => Scalar): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      matchSignature(name, argTypes, [[UTF8, UTF8]]);
      return { argTypes: [UTF8, UTF8], returnType };
    },
    row: (args) => f(args[0] as string, args[1] as string),
  });
}

function trimChars(s: string, chars: string, left: boolean, right: boolean): string {
  const set = new Set(Array.from(chars));
  const cps = Array.from(s);
  let a = 0;
  let b = cps.length;
  if (left) while (a < b && set.has(cps[a]!)) a++;
  if (right) while (b > a && set.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

function trimFunction(name: string, left: boolean, right: boolean): ScalarFunction {
  return rowwise({
    name,
    bind(argTypes) {
      const sig = matchSignature(name, argTypes, [[UTF8], [UTF8, UTF8]]);
      return { argTypes: sig, returnType: UTF8 };
    },
    row: (args) => trimChars(args[0] as string, args.length > 1 ? (args[1] as string) : ' ', left, right),
  });
}

/** concat(a, b, ...): NULL arguments are skipped; any type is shown as text. */
const concat: ScalarFunction = rowwise({
  name: 'concat',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length === 0) throw planError('The function concat expects at least one argument');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row: (args) => args.map((a) => (a === null ? '' : (a as string))).join(''),
});

const concatWs: ScalarFunction = rowwise({
  name: 'concat_ws',
  nullSafe: true,
  bind(argTypes) {
    if (argTypes.length < 2) throw planError('The function concat_ws expects at least two arguments');
    return { argTypes: argTypes.map(() => UTF8), returnType: UTF8 };
  },
  row: (args) => (args[0] === null ? null : args.slice(1).filter((a) => a !== null).join(args[0] as string)),
});

/** substr(s, start[, count]): 1-based, characters; start may be < 1 as in PostgreSQL. */
const substr: ScalarFunction = rowwise({
  name: 'substr',
  bind(argTypes) {
    const sig = matchSignature('substr', argTypes, [[UTF8, INT64], [UTF8, INT64, INT64]]);
    return { argTypes: sig, returnType: UTF8 };
  },
  row(args) {
    const cps = Array.from(args[0] as string);
    const start = Number(args[1] as bigint);
    let end = cps.length + 1;
    if (args.length > 2) {
      const count = Number(args[2] as bigint);
      if (count < 0) throw planError(`negative substring length not allowed: substr(<str>, ${start}, ${count})`);
      end = start + count;
    }
    const from = Math.max(start, 1);
    return end <= from ? '' : cps.slice(from - 1, end - 1).join('');
  },
});

const strpos = stringBinary('strpos', INT64, (s, sub) => {
  const at = s.indexOf(sub);
  return at < 0 ? 0n : BigInt(codePointLength(s.slice(0, at)) + 1);
});

const replace = rowwise({
  name: 'replace',
  bind(argTypes) {
    matchSignature('replace', argTypes, [[UTF8, UTF8, UTF8]]);
    return { argTypes: [UTF8, UTF8, UTF8], returnType: UTF8 };
  },
  row: (args) => (args[0] as string).split(args[1] as string).join(args[2] as string),
});

/** to_char-like text of any value, used by casts in string functions. */
export function asText(v: Scalar, type: DataType): string {
  return scalarToString(v, type);
}

export const STRING_FUNCTIONS: readonly ScalarFunction[] = [
  stringUnary('lower', UTF8, (s) => s.toLowerCase()),
  stringUnary('upper', UTF8, (s) => s.toUpperCase()),
  stringUnary('character_length', INT64, (s) => BigInt(codePointLength(s))),
  stringUnary('length', INT64, (s) => BigInt(codePointLength(s))),
  stringUnary('char_length', INT64, (s) => BigInt(codePointLength(s))),
  stringUnary('octet_length', INT64, (s) => BigInt(new TextEncoder().encode(s).length)),
  stringUnary('reverse', UTF8, (s) => Array.from(s).reverse().join('')),
  stringUnary('initcap', UTF8, (s) => s.toLowerCase().replace(/(^|[^\p{L}\p{N}])(\p{L})/gu, (_m, p: string, c: string) => p + c.toUpperCase())),
  stringBinary('starts_with', BOOLEAN, (s, p) => s.startsWith(p)),
  stringBinary('ends_with', BOOLEAN, (s, p) => s.endsWith(p)),
  trimFunction('btrim', true, true),
  trimFunction('trim', true, true),
  trimFunction('ltrim', true, false),
  trimFunction('rtrim', false, true),
  concat,
  concatWs,
  substr,
  strpos,
  replace,
  rowwise({
    name: 'repeat',
    bind(argTypes) {
      matchSignature('repeat', argTypes, [[UTF8, INT64]]);
      return { argTypes: [UTF8, INT64], returnType: UTF8 };
    },
    row: (args) => (args[0] as string).repeat(Math.max(0, Number(args[1] as bigint))),
  }),
  rowwise({
    name: 'left',
    bind(argTypes) {
      matchSignature('left', argTypes, [[UTF8, INT64]]);
      return { argTypes: [UTF8, INT64], returnType: UTF8 };
    },
    row(args) {
      const cps = Array.from(args[0] as string);
      const k = Number(args[1] as bigint);
      return (k < 0 ? cps.slice(0, Math.max(0, cps.length + k)) : cps.slice(0, k)).join('');
    },
  }),
  rowwise({
    name: 'right',
    bind(argTypes) {
      matchSignature('right', argTypes, [[UTF8, INT64]]);
      return { argTypes: [UTF8, INT64], returnType: UTF8 };
    },
    row(args) {
      const cps = Array.from(args[0] as string);
      const k = Number(args[1] as bigint);
      return (k < 0 ? cps.slice(Math.min(cps.length, -k)) : cps.slice(Math.max(0, cps.length - k))).join('');
    },
  }),
];

export { expectArgs, noMatchingSignature };
