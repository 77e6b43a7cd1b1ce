// coalesce and nullif: NULL-aware functions whose arguments meet at a common type.

import { commonType, compare, type DataType, isValid, typeName, type Vector } from '../types/index.js';
import { planError } from '../errors.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { expectArgs } from './signature.js';

/** The row-wise choice among vectors of one type: out[i] = vectors[pick[i]][i]. */
function choose(type: DataType, vectors: readonly Vector[], pick: Int32Array, n: number): Vector {
  const validity = new Uint8Array(n);
  let values: Vector['values'];
  switch (type.id) {
    case 'Float64':
    case 'Float32':
      values = new Float64Array(n);
      break;
    case 'Int64':
    case 'Timestamp':
      values = new BigInt64Array(n);
      break;
    case 'UInt64':
      values = new BigUint64Array(n);
      break;
    case 'Boolean':
      values = new Uint8Array(n);
      break;
    case 'Date32':
      values = new Int32Array(n);
      break;
    case 'Null':
      return { type, length: n, values: null };
    case 'Utf8':
      // NULL slots still hold a string: kernels read every slot.
      values = new Array<string>(n).fill('');
      break;
    default:
      values = new Array(n);
  }
  const out = values as unknown as { [i: number]: unknown };
  for (let i = 0; i < n; i++) {
    const k = pick[i]!;
    if (k < 0) continue;
    const v = vectors[k]!;
    validity[i] = 1;
    out[i] = (v.values as ArrayLike<unknown>)[i];
  }
  return { type, length: n, values, validity };
}

const coalesce: ScalarFunction = {
  kind: 'scalar',
  name: 'coalesce',
  bind(argTypes): BoundSignature {
    if (argTypes.length === 0) throw planError('coalesce must have at least one argument');
    const t = commonType(argTypes);
    if (t === undefined)
      throw planError(`Coalesce could not find a common type for the arguments ${argTypes.map(typeName).join(', ')}`);
    return { argTypes: argTypes.map(() => t), returnType: t };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const pick = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < args.length; k++) {
        if (isValid(args[k]!, i)) {
          pick[i] = k;
          break;
        }
      }
    }
    return choose(returnType, args, pick, n);
  },
};

const nullif: ScalarFunction = {
  kind: 'scalar',
  name: 'nullif',
  bind(argTypes): BoundSignature {
    expectArgs('nullif', argTypes, 2);
    const t = commonType(argTypes);
    if (t === undefined)
      throw planError(`nullif could not find a common type for ${argTypes.map(typeName).join(', ')}`);
    return { argTypes: [t, t], returnType: t };
  },
  evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
    const eq = compare('=', args[0]!, args[1]!);
    const pick = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      const equal = isValid(eq, i) && (eq.values as Uint8Array)[i] === 1;
      if (!equal && isValid(args[0]!, i)) pick[i] = 0;
    }
    return choose(returnType, args, pick, n);
  },
};

/** greatest / least: the largest / smallest non-NULL argument (NULL only when all are). */
function extreme(name: 'greatest' | 'least'): ScalarFunction {
  const sign = name === 'greatest' ? 1 : -1;
  return {
    kind: 'scalar',
    name,
    bind(argTypes): BoundSignature {
      if (argTypes.length === 0) throw planError(`${name} was called without any arguments. It requires at least 1.`);
      const t = commonType(argTypes);
      if (t === undefined)
        throw planError(`${name} could not find a common type for the arguments ${argTypes.map(typeName).join(', ')}`);
      return { argTypes: argTypes.map(() => t), returnType: t };
    },
    evaluate(args: readonly Vector[], n: number, _ctx, returnType: DataType): Vector {
      const pick = new Int32Array(n).fill(-1);
      let best = pick;
      for (let k = 0; k < args.length; k++) {
        const a = args[k]!;
        if (a.type.id === 'Null') continue;
        // Compare the current best with argument k, row by row, through the comparison kernel.
        const current = choose(returnType, args, best, n);
        const better = compare(sign > 0 ? '>' : '<', a, current);
        const next = Int32Array.from(best);
        for (let i = 0; i < n; i++) {
          if (!isValid(a, i)) continue;
          if (best[i]! < 0 || (isValid(better, i) && (better.values as Uint8Array)[i] === 1)) next[i] = k;
        }
        best = next;
      }
      return choose(returnType, args, best, n);
    },
  };
}

export const CONDITIONAL_FUNCTIONS: readonly ScalarFunction[] = [
  coalesce,
  nullif,
  { ...coalesce, name: 'nvl' },
  extreme('greatest'),
  extreme('least'),
];

export { choose };
