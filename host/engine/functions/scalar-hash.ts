// Hash functions: md5 (hex text, as DataFusion returns it), sha224/sha256/sha384/sha512 and
// digest(s, algorithm). DataFusion returns the sha* and digest results as Binary, which Arrow
// shows as lowercase hex; this engine has no binary type and returns that hex text. The hashes
// come from @noble/hashes (audited, no Node built-ins, so the engine stays browser-ready).

import { blake2b, blake2s } from '@noble/hashes/blake2.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { md5 } from '@noble/hashes/legacy.js';
import { sha224, sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { executionError } from '../errors.js';
import { UTF8 } from '../types/index.js';
import type { ScalarFunction } from './function-types.js';
import { requireString } from './scalar-string.js';
import { matchSignature, matchUniform, rowwise } from './signature.js';

const ALGORITHMS: Readonly<Record<string, (b: Uint8Array) => Uint8Array>> = {
  md5,
  sha224,
  sha256,
  sha384,
  sha512,
  blake2s,
  blake2b,
  blake3,
};

const encoder = new TextEncoder();
const hex = (algorithm: (b: Uint8Array) => Uint8Array, s: string): string => bytesToHex(algorithm(encoder.encode(s)));

function hashFunction(name: string): ScalarFunction {
  const algorithm = ALGORITHMS[name]!;
  return rowwise({
    name,
    bind(argTypes) {
      matchUniform(name, argTypes, 1, [UTF8], ['Utf8', 'LargeUtf8', 'Binary', 'LargeBinary']);
      requireString(name, argTypes[0]!);
      return { argTypes: [UTF8], returnType: UTF8 };
    },
    row: (args) => hex(algorithm, args[0] as string),
  });
}

const LARGE_UTF8 = { id: 'LargeUtf8' } as unknown as typeof UTF8;
const BINARY = { id: 'Binary' } as unknown as typeof UTF8;
const LARGE_BINARY = { id: 'LargeBinary' } as unknown as typeof UTF8;

const digest = rowwise({
  name: 'digest',
  bind(argTypes) {
    matchSignature('digest', argTypes, [
      [UTF8, UTF8],
      [LARGE_UTF8, UTF8],
      [BINARY, UTF8],
      [LARGE_BINARY, UTF8],
    ]);
    requireString('digest', argTypes[0]!);
    return { argTypes: [UTF8, UTF8], returnType: UTF8 };
  },
  row(args) {
    const algorithm = ALGORITHMS[(args[1] as string).toLowerCase()];
    if (algorithm === undefined)
      throw executionError(
        `Datafusion: Error during planning: There is no built-in digest algorithm named '${args[1] as string}'`,
      );
    return hex(algorithm, args[0] as string);
  },
});

export const HASH_FUNCTIONS: readonly ScalarFunction[] = [
  hashFunction('md5'),
  hashFunction('sha224'),
  hashFunction('sha256'),
  hashFunction('sha384'),
  hashFunction('sha512'),
  digest,
];
