// Bitwise operators & | ^ << >> on 64-bit integers (sqlparser 0.35 reads `^` as XOR outside
// PostgreSQL; DataFusion 27 runs them with arrow's bitwise kernels). Shifts are Rust's
// wrapping_shl / wrapping_shr of the left operand by the right one taken as u32, so the
// amount counts modulo 64 and a signed value shifts right arithmetically.

import { andValidity, type DataType, type Vector } from '../types/index.js';

export type BitwiseOperator = '&' | '|' | '^' | '<<' | '>>';

/** `a op b` over Int64 or UInt64 vectors of the result type; NULL where either is NULL. */
export function bitwise(op: BitwiseOperator, a: Vector, b: Vector, type: DataType): Vector {
  const n = a.length;
  const nullOf = (v: Vector): Uint8Array | undefined => (v.type.id === 'Null' ? new Uint8Array(n) : v.validity);
  const validity = andValidity(nullOf(a), nullOf(b), n);
  const signed = type.id !== 'UInt64';
  const out = signed ? new BigInt64Array(n) : new BigUint64Array(n);
  if (a.type.id === 'Null' || b.type.id === 'Null') return { type, length: n, values: out, validity };
  const x = a.values as BigInt64Array | BigUint64Array;
  const y = b.values as BigInt64Array | BigUint64Array;
  const wrap = signed ? (v: bigint): bigint => BigInt.asIntN(64, v) : (v: bigint): bigint => BigInt.asUintN(64, v);
  for (let i = 0; i < n; i++) {
    const l = x[i]!;
    const r = y[i]!;
    switch (op) {
      case '&':
        out[i] = l & r;
        break;
      case '|':
        out[i] = l | r;
        break;
      case '^':
        out[i] = l ^ r;
        break;
      case '<<':
        out[i] = wrap(l << (BigInt.asUintN(32, r) & 63n));
        break;
      case '>>':
        out[i] = l >> (BigInt.asUintN(32, r) & 63n);
        break;
    }
  }
  return { type, length: n, values: out, validity };
}
