// The composition's public face: the configuration, its settings table and the server process,
// for the command (cli/). Everything else in node/ wires the layers below together.

export { type Config, ConfigError, envName, flagName, loadConfig, SETTINGS } from './config.js';
export { EXIT_FAILURE, EXIT_OK, EXIT_REJECTED, EXIT_USAGE } from './exit-codes.js';
export { packageVersion } from './package-info.js';
export { serve } from './serve.js';
export { runSql, SQL_FORMATS, SqlClientError, type SqlFormat, statementsOf } from './sql-client.js';
