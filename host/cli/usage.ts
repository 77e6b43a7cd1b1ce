// The command's own failures: a message for stderr and the exit code it ends with
// (node/exit-codes.ts), as opposed to the server's failures, which are logged.

import { EXIT_USAGE } from '../node/exit-codes.js';

export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A mistake in the command line: exit 2. */
export class UsageError extends CommandError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
