// The contracts of scalar, aggregate and window functions: how the planner types a call and how
// the executor runs it. Each function lives in a file of its family (scalar-math.ts,
// aggregates.ts, ...) and is listed in registry.ts, so issue 5's breadth plugs in here.

import type { DataType, Scalar, Vector } from '../types/index.js';
import { UserError, type ErrorKind } from '../../core/errors.js';

/** Who runs the statement, where (current_user() and the other session functions). */
export interface SessionValues {
  readonly user: string;
  readonly tenant: string;
  readonly database: string;
  /** The user's role in the tenant; null when none. */
  readonly role: string | null;
}

/** The query's memory pool as functions see it (exec/exec-plan.ts MemoryPool). */
export interface MemoryBudget {
  readonly limitBytes: number;
  /** Bytes the query's operators hold now. */
  readonly usedBytes: number;
  /** The operator that last took memory (`aggregate state`, `join build side`, ...). */
  readonly holder?: string | undefined;
}

/** What a scalar function may read besides its arguments. */
export interface EvalContext {
  /** The statement's now(), nanoseconds since the epoch. */
  readonly nowNs: bigint;
  /** Absent while folding constants (session functions are volatile, so never folded). */
  readonly session?: SessionValues;
  /**
   * The budget the values a function builds are checked against before it builds them
   * (result-size.ts); absent: only the longest string V8 can hold limits them.
   */
  readonly memory?: MemoryBudget;
}

/** The typed form of a call: the types the arguments are cast to, and the result type. */
export interface BoundSignature {
  readonly argTypes: readonly DataType[];
  readonly returnType: DataType;
  /**
   * An order-sensitive aggregate's ORDER BY (`array_agg(x ORDER BY y DESC)`): its keys arrive as
   * extra arguments after `argTypes`, one per entry here.
   */
  readonly orderBy?: readonly { readonly asc: boolean; readonly nullsFirst: boolean }[];
}

export interface ScalarFunction {
  readonly kind: 'scalar';
  /** The lower-case SQL name; result columns show it as written here (`date_bin(...)`). */
  readonly name: string;
  /**
   * Types a call, or throws the planning error DataFusion gives (wrong count, no matching
   * signature). `constants` holds the literal value of each argument that is a constant.
   */
  bind(argTypes: readonly DataType[], constants: readonly (Scalar | undefined)[]): BoundSignature;
  /** Computes `n` rows; arguments arrive already cast to `argTypes`. */
  evaluate(args: readonly Vector[], n: number, ctx: EvalContext, returnType: DataType): Vector;
  /** Different results for the same arguments within one statement (random()). */
  readonly volatile?: boolean;
  /**
   * A stand-in the planner keeps for an expression that failed with an error reported later
   * (planner/deferred-errors.ts): `name` is the expression's whole text, never called.
   */
  readonly opaque?: boolean;
}

/**
 * Per-group state of an aggregate over many groups at once (DataFusion's GroupsAccumulator):
 * `update` folds rows into the groups `groups[i]` names; groups are numbered densely from 0.
 */
export interface GroupsAccumulator {
  /** Folds rows [0, n) of `args` into the groups of `groups`; `numGroups` groups exist now. */
  update(args: readonly Vector[], groups: Int32Array, n: number, numGroups: number): void;
  /** Merges group `src` of `other` into group `dst` (same function, same types). */
  merge?(other: GroupsAccumulator, src: number, dst: number): void;
  /**
   * The result of every group, in group order. It must leave the state as it was: window
   * frames that grow (running totals) call it after each update.
   */
  finish(numGroups: number): Vector;
  /** Bytes held, for the query memory limit. */
  sizeBytes(): number;
}

export interface AggregateFunction {
  readonly kind: 'aggregate';
  readonly name: string;
  /** The name in result columns and messages: `COUNT`, `AVG`, or the UDAF's own `first`. */
  readonly displayName: string;
  /** `constants` holds the literal value of each argument that is a constant (a percentile). */
  bind(argTypes: readonly DataType[], distinct: boolean, constants?: readonly (Scalar | undefined)[]): BoundSignature;
  createAccumulator(sig: BoundSignature, distinct: boolean): GroupsAccumulator;
  /** The aggregate reads its ORDER BY keys (BoundSignature.orderBy); others ignore ORDER BY. */
  readonly orderSensitive?: boolean;
}

/** The frame of every row of a partition: rows [start[i], end[i]) (empty when end <= start). */
export interface WindowFrames {
  readonly start: Int32Array;
  readonly end: Int32Array;
}

export interface WindowFunction {
  readonly kind: 'window';
  readonly name: string;
  /** Types a call; `constants` as for scalar functions (lag's offset, ntile's count). */
  bind(argTypes: readonly DataType[], constants?: readonly (Scalar | undefined)[]): BoundSignature;
  /**
   * Computes the function for one partition whose rows are already sorted by the window's
   * ORDER BY; `peers[i]` is the index of the first row of row i's peer group (equal ORDER BY
   * keys) and `frames` each row's window frame. Returns one value per row.
   */
  evaluatePartition(
    args: readonly Vector[],
    n: number,
    peers: Int32Array,
    sig: BoundSignature,
    frames: WindowFrames,
  ): Vector;
}

/**
 * An error DataFusion raises only when it builds the physical plan (a window function's literal
 * arguments), after every planning and analyzer error of the statement (planner/deferred-errors.ts).
 */
export class PhysicalPlanError extends UserError {
  /** The call's typing to plan with until the error is thrown, when the function can give one. */
  readonly fallback: BoundSignature | undefined;

  constructor(kind: ErrorKind, message: string, fallback?: BoundSignature) {
    super(kind, message);
    this.fallback = fallback;
  }
}
