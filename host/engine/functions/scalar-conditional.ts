// coalesce and nullif: NULL-aware functions whose arguments meet at a common type.

import type { Vector } from '../batch.js';
import { isValid } from '../batch.js';
import { planError } from '../errors.js';
import { commonType } from '../planner/coercion.js';
import { typeName, type DataType } from '../types.js';
import type { BoundSignature, ScalarFunction } from './function-types.js';
import { expectArgs } from './signature.js';
import { compare } from '../exec/compute.js';

/** The row-wise choice among vectors of one type: out[i] = vectors[pick[i]][i]. */
function choose(type: DataType, vectors: readonly Vector[], pick: Int32Array, n: number): Vector {
  const validity = new Uint8Array(n);
  let values: Vector['values'];
  switch (type.id) {
    case 'Float64':
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
    if (t === undefined) throw planError(`Coalesce could not find a common type for the arguments ${argTypes.map(typeName).join(', ')}`);
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
    if (t === undefined) throw planError(`nullif could not find a common type for ${argTypes.map(typeName).join(', ')}`);
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

export const CONDITIONAL_FUNCTIONS: readonly ScalarFunction[] = [coalesce, nullif, { ...coalesce, name: 'nvl' }];

export { choose };
