// The range check of a CAST to a narrow integer type (planner/sql-types.ts narrowIntegerRange):
// this engine computes TINYINT, SMALLINT and INT as BIGINT, so such a cast checks its BIGINT
// values against the type's range and fails as DataFusion's cast does ("Can't cast value 300 to
// type Int8"), or gives NULL under TRY_CAST.

import { getValue, isValid, vectorFrom, type Scalar, type Vector } from './batch.js';
import { executionError } from '../errors.js';

/** A narrow integer type computed as BIGINT (BIGINT UNSIGNED): its range and Arrow name. */
export interface IntegerRange {
  min: bigint;
  max: bigint;
  arrow: string;
}

export function checkIntegerRange(v: Vector, range: IntegerRange, tryCast: boolean): Vector {
  let out: Scalar[] | undefined;
  for (let i = 0; i < v.length; i++) {
    if (!isValid(v, i)) continue;
    const x = getValue(v, i) as bigint;
    if (x >= range.min && x <= range.max) continue;
    if (!tryCast) throw executionError(`Arrow error: Cast error: Can't cast value ${x} to type ${range.arrow}`);
    out ??= Array.from({ length: v.length }, (_, k) => (isValid(v, k) ? getValue(v, k) : null));
    out[i] = null;
  }
  return out === undefined
    ? v
    : vectorFrom(
        v.type,
        out,
        Uint8Array.from(out, (x) => (x === null ? 0 : 1)),
      );
}
