// The physical plan's contract (STYLE §26, DataFusion's ExecutionPlan): operators are nodes
// whose `execute` returns a pull-based async iterator of record batches. No work happens before
// the first pull; errors travel through the iterator; `return()` (a consumer breaking out of
// `for await`) releases what the operator holds. The context carries the limits every operator
// honours: the abort signal (timeout, client gone), checked per batch, and the query's memory
// pool, which operators that buffer (sort, aggregate, join build) reserve from.

import type { Core } from '../../core/wasm.js';
import type { RecordBatch, Scalar, Schema } from '../types/index.js';
import type { EngineCatalog } from '../catalog.js';
import type { EvalContext } from '../functions/function-types.js';
import type { LogicalPlan } from '../plan/logical-plan.js';
import type { QuerySession } from '../query.js';
import type { MemoryPool } from '../memory/index.js';
import type { ExternalFiles } from '../external/external-files.js';

/** Runs a subquery plan with the values of the enclosing row's columns it references. */
export type SubqueryRunner = (plan: LogicalPlan, outer: ReadonlyMap<string, Scalar>) => Promise<RecordBatch[]>;

export interface ExecContext {
  readonly catalog: EngineCatalog;
  readonly session: QuerySession;
  readonly memory: MemoryPool;
  readonly eval: EvalContext;
  /** Values of enclosing-query columns inside a correlated subquery (key `qualifier|name`). */
  readonly outer: ReadonlyMap<string, Scalar> | undefined;
  readonly runSubquery: SubqueryRunner;
  /** The Wasm core, when the host loaded one (kernels fall back to TypeScript without it). */
  readonly core: Core | undefined;
  /** The files external tables read (the host confines them to storage.external_dir); none: refused. */
  readonly files?: ExternalFiles;
  /** Throws the signal's reason when the query was aborted (timeout, client gone). */
  checkAbort(): void;
  /** Lets timers and I/O run when this query has held the event loop for a while. */
  maybeYield(): Promise<void>;
}

export interface ExecNode {
  readonly name: string;
  readonly schema: Schema;
  readonly children: readonly ExecNode[];
  execute(ctx: ExecContext): AsyncIterable<RecordBatch>;
  /** One line for EXPLAIN's physical plan. */
  describe(): string;
}

/** The rows the engine aims to put in one batch. */
export const BATCH_ROWS = 8192;

/** The key of an outer column binding. */
export function outerKey(qualifier: string | undefined, name: string): string {
  return `${qualifier ?? ''}|${name}`;
}

/** A one-line description for EXPLAIN: `Name: details`. */
export function describeNode(name: string, details: string): string {
  return details === '' ? name : `${name}: ${details}`;
}

/** The physical plan as indented text. */
export function displayExecPlan(node: ExecNode, depth = 0): string {
  const lines = [`${'  '.repeat(depth)}${node.describe()}`];
  for (const c of node.children) lines.push(displayExecPlan(c, depth + 1));
  return lines.join('\n');
}
