// Signature matching for functions, as DataFusion 27 does it: try each candidate signature in
// order, coercing arguments implicitly where that loses nothing (integers to DOUBLE, strings to
// TIMESTAMP, NULL to anything); when none fits, the error lists the candidates.

import {
  type DataType,
  FLOAT64,
  getValue,
  INT64,
  isValid,
  type Scalar,
  typeEquals,
  typeName,
  UINT64,
  UTF8,
  type Vector,
  vectorFrom,
} from '../types/index.js';
import { UserError } from '../../core/errors.js';
import { planError } from '../errors.js';
import type { BoundSignature, EvalContext, ScalarFunction } from './function-types.js';
import { ResultBudget, sizeRefusal } from './result-size.js';

/**
 * Whether an argument of type `from` is implicitly cast to `to` when calling a function
 * (DataFusion 27's can_coerce_from): integers widen to DOUBLE, anything becomes a string, strings
 * and dates become nanosecond timestamps (other units accept only themselves), strings become
 * intervals, NULL becomes anything.
 */
export function canCoerceArg(from: DataType, to: DataType): boolean {
  if (typeEquals(from, to) || from.id === 'Null') return true;
  switch (to.id) {
    case 'Float64':
      return from.id === 'Int64' || from.id === 'UInt64' || from.id === 'Float32';
    case 'Float32':
      return from.id === 'Int64' || from.id === 'UInt64';
    case 'Int64':
      return false;
    case 'Timestamp':
      if (to.unit !== 'Nanosecond') return false;
      return from.id === 'Timestamp' || from.id === 'Utf8' || from.id === 'Date32';
    case 'Interval':
      return from.id === 'Utf8';
    case 'Utf8':
      return true;
    default:
      return false;
  }
}

/**
 * A call no signature of its function fits. DataFusion says so in two ways: while it builds the
 * plan (an expression's type asked for), "No function matches ..." with the candidates; in its
 * type_coercion analyzer rule, `coercion`: "Coercion from [Utf8, Int64] to the signature
 * Uniform(1, [Utf8, ...]) failed." (planner/deferred-errors.ts picks which one).
 */
export class SignatureMismatch extends UserError {
  readonly coercion: string;

  constructor(message: string, coercion: string) {
    super('sqlPlan', `Datafusion: Error during planning: ${message}`);
    this.coercion = coercion;
  }
}

/**
 * TypeSignature's Debug form for a candidate list: DataFusion 27 declares most such functions
 * with one_of, even of one candidate (`OneOf([Exact([Utf8, Utf8, Utf8])])`, replace); those of
 * no argument with exact (`Exact([])`). Functions declared otherwise pass their own.
 */
function exactDebug(candidates: readonly (readonly string[])[]): string {
  const one = (c: readonly string[]): string => `Exact([${c.join(', ')}])`;
  if (candidates.length === 1 && candidates[0]!.length === 0) return one([]);
  return `OneOf([${candidates.map(one).join(', ')}])`;
}

/**
 * "No function matches ..." with the candidates, DataFusion's text. `signatureDebug` is the
 * signature as DataFusion's Debug prints it, when the candidates do not tell (Variadic, Uniform).
 */
export function noMatchingSignature(
  name: string,
  argTypes: readonly DataType[],
  candidates: readonly (readonly DataType[])[],
  shownCandidates?: readonly string[],
  signatureDebug?: string,
): SignatureMismatch {
  const shown = (types: readonly DataType[]): string => `${name}(${types.map(typeName).join(', ')})`;
  // Shown candidates are `name(A, B)`: their argument lists make the Exact entries.
  const argsOf = (text: string): string[] => {
    const inner = text.slice(text.indexOf('(') + 1, -1);
    return inner === '' ? [] : inner.split(/, (?![^(]*\))/);
  };
  const debug =
    signatureDebug ??
    exactDebug(shownCandidates !== undefined ? shownCandidates.map(argsOf) : candidates.map((c) => c.map(typeName)));
  return new SignatureMismatch(
    `No function matches the given name and argument types '${shown(argTypes)}'. You might need to add explicit type casts.\n\tCandidate functions:\n\t${(shownCandidates ?? candidates.map(shown)).join('\n\t')}`,
    `Coercion from [${argTypes.map(typeName).join(', ')}] to the signature ${debug} failed.`,
  );
}

/**
 * The candidate the arguments are exactly, else the first they fit (DataFusion 27's data_types:
 * a Float32 argument keeps the Float32 candidate even when a Float64 one comes first), or the
 * no-match error.
 */
export function matchSignature(
  name: string,
  argTypes: readonly DataType[],
  candidates: readonly (readonly DataType[])[],
  signatureDebug?: string,
): readonly DataType[] {
  const exact = candidates.find((c) => c.length === argTypes.length && c.every((t, i) => typeEquals(t, argTypes[i]!)));
  if (exact !== undefined) return exact;
  for (const c of candidates) {
    if (c.length === argTypes.length && c.every((t, i) => canCoerceArg(argTypes[i]!, t))) return c;
  }
  throw noMatchingSignature(name, argTypes, candidates, undefined, signatureDebug);
}

/**
 * DataFusion's uniform signature: `arity` arguments, all of one of `types` (tried in order);
 * the candidate is shown as `name(Float64/Float32)`.
 */
export function matchUniform(
  name: string,
  argTypes: readonly DataType[],
  arity: number,
  types: readonly DataType[],
  shownTypes: readonly string[] = types.map(typeName),
): readonly DataType[] {
  if (argTypes.length === arity) {
    for (const t of types) if (argTypes.every((a) => typeEquals(a, t))) return argTypes.map(() => t);
    for (const t of types) if (argTypes.every((a) => canCoerceArg(a, t))) return argTypes.map(() => t);
  }
  throw noMatchingSignature(
    name,
    argTypes,
    [],
    [`${name}(${Array.from({ length: arity }, () => shownTypes.join('/')).join(', ')})`],
    `Uniform(${arity}, [${shownTypes.join(', ')}])`,
  );
}

/** DataFusion's math signature: one DOUBLE argument (integers are cast). */
export const NUMERIC_UNARY = [[FLOAT64]] as const;
/** How DataFusion shows the math functions' uniform signature (it also accepts Float32). */
export const MATH_TYPES_SHOWN = ['Float64', 'Float32'];

export const isNumericType = (t: DataType): boolean =>
  t.id === 'Int64' || t.id === 'UInt64' || t.id === 'Float64' || t.id === 'Float32';

export interface RowwiseSpec {
  name: string;
  bind(argTypes: readonly DataType[], constants: readonly (Scalar | undefined)[]): BoundSignature;
  /**
   * One row; arguments are never NULL here unless `nullSafe`. A row that can build a value larger
   * than its arguments asks `budget` first (result-size.ts); every value returned is counted.
   */
  row(args: Scalar[], ctx: EvalContext, returnType: DataType, budget: ResultBudget): Scalar;
  /** Pass NULL arguments to `row` instead of answering NULL. */
  nullSafe?: boolean;
  volatile?: boolean;
}

/**
 * A scalar function computed row by row (the slow general path; fine off the hot loops). The
 * strings and lists it returns count against the query's memory budget, summed over the batch.
 */
export function rowwise(spec: RowwiseSpec): ScalarFunction {
  return {
    kind: 'scalar',
    name: spec.name,
    bind: spec.bind,
    volatile: spec.volatile,
    evaluate(args: readonly Vector[], n: number, ctx: EvalContext, returnType: DataType): Vector {
      const out = new Array<Scalar>(n);
      const row = new Array<Scalar>(args.length);
      const budget = new ResultBudget(spec.name, ctx.memory);
      let validity: Uint8Array | undefined;
      try {
        for (let i = 0; i < n; i++) {
          let anyNull = false;
          for (let k = 0; k < args.length; k++) {
            const a = args[k]!;
            if (!isValid(a, i)) {
              anyNull = true;
              row[k] = null;
            } else row[k] = getValue(a, i);
          }
          const v = anyNull && !spec.nullSafe ? null : spec.row(row, ctx, returnType, budget);
          if (v === null) (validity ??= new Uint8Array(n).fill(1))[i] = 0;
          else budget.add(v);
          out[i] = v;
        }
      } catch (e) {
        throw sizeRefusal(spec.name, e);
      }
      return vectorFrom(returnType, out, validity);
    },
  };
}

/**
 * A built-in aggregate's arity check, named by its Debug name (`Variance`, `StddevPop`):
 * "The function Variance expects 1 arguments, but 0 were provided".
 */
export function expectAggregateArity(debugName: string, argTypes: readonly DataType[], min: number, max = min): void {
  if (argTypes.length < min || argTypes.length > max) {
    throw planError(
      `The function ${debugName} expects ${min === max ? min : `${min} to ${max}`} arguments, but ${argTypes.length} were provided`,
    );
  }
}

/** A built-in aggregate's type error: "The function Median does not support inputs of type Utf8." */
export function unsupportedInput(debugName: string, t: DataType): Error {
  return planError(`The function ${debugName} does not support inputs of type ${typeName(t)}.`);
}

/** Checks the argument count: DataFusion's "... expects N arguments, but M were provided"-style errors. */
export function expectArgs(name: string, argTypes: readonly DataType[], min: number, max = min): void {
  if (argTypes.length < min || argTypes.length > max) {
    const want = min === max ? `${min}` : `${min} to ${max}`;
    throw planError(`The function ${name} expects ${want} arguments, but ${argTypes.length} were provided`);
  }
}

export { FLOAT64, INT64, UINT64, UTF8 };
