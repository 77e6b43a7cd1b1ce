// The PostgreSQL wire protocol's public face: its listener, for the composition (node/serve.ts),
// and its statement splitter and tokenizer, which the SQL client and shell share (node/sql-client.ts,
// cli/statement-buffer.ts).

export { PgListener } from './listener.js';
export { splitStatements, tokenizePg } from './sql-text.js';
