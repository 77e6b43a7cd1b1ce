// The exit codes of the `sundial` command and of the server process it runs (docs/cli.md), so
// that scripts and service managers can tell a mistake in the command line from a failure.

/** Done; for serve: stopped cleanly after SIGINT or SIGTERM. */
export const EXIT_OK = 0;
/** A runtime failure: the server could not start (port taken, data directory unreadable) or stop. */
export const EXIT_FAILURE = 1;
/** A usage error: unknown command or option, a bad value or configuration. */
export const EXIT_USAGE = 2;
/** `sundial import`: every line was read, and the ones not rejected were stored; some were rejected. */
export const EXIT_REJECTED = 3;
