// The composition's public face: the configuration, its settings table, the server process and
// the SQL client's targets, for the command (cli/); library mode's is library.ts (package
// exports). Everything else in node/ wires the layers below together.

export { type Config, ConfigError, envName, flagName, loadConfig, SETTINGS } from './config.js';
export { EXIT_FAILURE, EXIT_OK, EXIT_REJECTED, EXIT_USAGE } from './exit-codes.js';
export { packageVersion } from './package-info.js';
export { type RunningServer, serve, StartRefused, startServer } from './serve.js';
export {
  HttpSqlTarget,
  runSql,
  SQL_FORMATS,
  SqlClientError,
  type SqlFormat,
  type SqlSession,
  type SqlTarget,
  statementsOf,
  UnreachableError,
} from './sql-client.js';
export { LocalSqlTarget } from './sql-local.js';
export { BackupError, runBackup } from './backup-client.js';
export { BackupDirError, notRestorable, readBackupManifest, restoreBackup, verifyBackup } from './backup-dir.js';
export { checkDataDirectory, type DataDirCheck } from './data-dir-check.js';
export { DataDirLockedError } from '../storage/index.js';
