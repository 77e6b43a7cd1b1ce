// The PostgreSQL wire protocol's public face: its listener, for the composition (node/serve.ts).

export { PgListener } from './listener.js';
