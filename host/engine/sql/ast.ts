// The SQL abstract syntax tree, both halves: expressions and queries (ast-expressions.ts) and
// statements (ast-statements.ts, which refer to the first). Everything imports the tree from here.

export * from './ast-expressions.js';
export * from './ast-statements.js';
