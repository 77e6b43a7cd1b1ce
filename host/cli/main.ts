// The `sundial` command: resolves the configuration from the arguments, the environment and the
// file they name, then starts the server (serve.ts). Exit codes: 2 for bad configuration, 1 when
// the server fails to start.

import { pino, type Logger } from 'pino';
import { settleTypedArrayAssumptions } from '../core/v8-typed-arrays.js';
import { type Config, ConfigError, loadConfig, serve } from '../node/index.js';

async function main(): Promise<void> {
  settleTypedArrayAssumptions(); // before anything is compiled: core/v8-typed-arrays.ts
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`sundial: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  await serve(config);
}

main().catch((err: unknown) => {
  const logger: Logger = pino();
  logger.fatal({ err }, 'startup failed');
  logger.flush();
  process.exit(1);
});
