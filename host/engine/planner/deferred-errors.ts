// When DataFusion 27 reports a type error, and in which words. It builds a plan without
// checking types, except where it asks for an expression's type: the select list's (once,
// before aggregation), GROUP BY's, a LIKE pattern's. That question follows function arguments,
// binary operands and negation, but stops at CAST, NOT, IS, BETWEEN, IN, LIKE and CASE (whose
// type is the first THEN's): an error below those, or anywhere in WHERE and HAVING (a filter's
// type is not asked), surfaces only after the whole plan is built, in the type_coercion analyzer
// rule ("type_coercion\ncaused by\nError during planning: Coercion from [Utf8, Int64] to the
// signature ... failed."); a CAST DataFusion cannot do fails in the optimizer when its operand is
// constant (simplify_expressions folds it; this engine's optimizer does the same), else with the
// physical plan, when window functions also check their literal arguments. This planner types everything as it goes; the errors DataFusion
// finds late are collected here instead of thrown, and the first is thrown once the statement's
// plan is complete, in the order DataFusion's analyzer meets them: a SELECT's inputs before it
// (blocks close inner first), in it WHERE, GROUP BY, aggregate arguments, HAVING, window
// arguments, the select list, ORDER BY.

/** Where in a SELECT an expression sits, in the analyzer's order. */
export const Clause = {
  Where: 1,
  GroupBy: 2,
  AggregateArgs: 3,
  Having: 4,
  WindowArgs: 5,
  Select: 6,
  OrderBy: 7,
} as const;
export type Clause = (typeof Clause)[keyof typeof Clause];

interface Entry {
  readonly clause: Clause;
  readonly seq: number;
  readonly error: Error;
}

/** One SELECT's late errors, handed to the statement when the SELECT is planned. */
export class BlockErrors {
  readonly #statement: StatementErrors;
  readonly #entries: Entry[] = [];

  constructor(statement: StatementErrors) {
    this.#statement = statement;
  }

  /** How many errors the block holds (a mark to tell whether planning a part added one). */
  get size(): number {
    return this.#entries.length;
  }

  /** An error of the type_coercion rule met in `clause`. */
  add(clause: Clause, error: Error): void {
    this.#entries.push({ clause, seq: this.#entries.length, error });
  }

  /** An error of physical planning. */
  addPhysical(error: Error): void {
    this.#statement.addPhysical(error);
  }

  /** The SELECT is planned: its errors follow those of the blocks that closed before. */
  close(): void {
    const sorted = [...this.#entries].sort((a, b) => a.clause - b.clause || a.seq - b.seq);
    for (const e of sorted) this.#statement.addAnalyzed(e.error);
  }
}

export class StatementErrors {
  readonly #analyzed: Error[] = [];
  readonly #physical: Error[] = [];

  block(): BlockErrors {
    return new BlockErrors(this);
  }

  addAnalyzed(error: Error): void {
    this.#analyzed.push(error);
  }

  addPhysical(error: Error): void {
    this.#physical.push(error);
  }

  /**
   * Throws the first late error, if any: the analyzer's; else, as the optimizer runs before
   * physical planning, whatever `optimize` throws, then the first of physical planning's.
   */
  throwFirst(optimize: () => void): void {
    const analyzed = this.#analyzed[0];
    if (analyzed !== undefined) throw analyzed;
    const physical = this.#physical[0];
    if (physical === undefined) return;
    optimize();
    throw physical;
  }
}
