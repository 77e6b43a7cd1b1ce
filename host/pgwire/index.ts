// The PostgreSQL wire protocol's public face: its listener, for the composition (node/serve.ts),
// and its statement splitter, which the SQL client shares (node/sql-client.ts).

export { PgListener } from './listener.js';
export { splitStatements } from './sql-text.js';
