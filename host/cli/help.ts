// The help texts of the `sundial` command. serve's options are generated from the settings table
// the configuration loader reads (node/config.ts SETTINGS), so that a new setting is a flag, an
// environment variable and a line of help at once.

import { envName, flagName, SETTINGS } from '../node/config.js';

/** Columns the help is wrapped to: 80, the width terminals open with. */
const WIDTH = 80;
const INDENT = 4;

const PLACEHOLDER: Record<(typeof SETTINGS)[number]['kind'], string> = {
  string: 'TEXT',
  int: 'N',
  port: 'PORT|off',
  bytes: 'BYTES',
  duration: 'DURATION',
  bool: 'true|false',
  level: 'LEVEL',
  origins: 'ORIGIN,...',
};

const UNITS: Array<[number, string]> = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];
const TIMES: Array<[number, string]> = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** A default as a user would type it back: 160MiB, 10m, off, "". */
function shown(kind: string, value: string | number | boolean | null | readonly string[]): string {
  if (value === null) return 'off';
  if (typeof value === 'object') return value.length === 0 ? 'none' : value.join(',');
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' && kind === 'bytes') {
    const unit = UNITS.find(([n]) => value % n === 0);
    return unit === undefined ? String(value) : `${value / unit[0]}${unit[1]}`;
  }
  if (typeof value === 'number' && kind === 'duration') {
    if (value === 0) return '0';
    const unit = TIMES.find(([n]) => value % n === 0);
    return unit === undefined ? `${value}ms` : `${value / unit[0]}${unit[1]}`;
  }
  return String(value);
}

/** Words of `text` in lines of at most WIDTH columns, each line indented by `indent`. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => ' '.repeat(indent) + l).join('\n');
}

const EXIT_CODES = `Exit codes:
  0  done (the server stopped cleanly after SIGINT or SIGTERM)
  1  runtime failure (the server could not start or stop; a statement failed)
  2  usage error (unknown command or option, bad value or configuration)
  3  import: done, but some lines were rejected
`;

export function mainHelp(): string {
  return `Usage: sundial [command] [options]

Sundial, a time-series database server with CnosDB's HTTP interface.

Commands:
  serve     run the server (the command when the first argument is an option)
  sql       run SQL statements against a server (-e, -f or stdin)
  import    load files into a server (line protocol, CSV, NDJSON, Parquet, ...)
  export    write a table or a query's answer as CSV, NDJSON, LP or Parquet
  backup    copy a running server's data into a backup directory
  restore   check a backup, and copy it into a new data directory
  check     verify every checksum of a data directory no server has open
  version   print the version
  help      print the help of a command (sundial help serve)

Options of every command:
  -h, --help     print the help and exit
  -V, --version  print the version and exit

${EXIT_CODES}
Documentation: docs/cli.md, docs/backup.md, docs/configuration.md
`;
}

export function versionHelp(): string {
  return `Usage: sundial version

Prints the version (also: sundial --version, sundial -V).
`;
}

export function sqlHelp(): string {
  return `Usage: sundial sql [options] [-e STATEMENT]... [-f FILE]...

Runs SQL statements against a server, one request each, or with --data-dir on a
data directory in this process. With -e or -f, or statements piped to stdin, it
runs them in the order given and prints each answer; it stops at the first
statement that fails (exit 1). On a terminal without them it is an interactive
shell: statements end with ; and may span lines, Ctrl-C cancels the one running,
\\? lists the backslash commands, \\q or Ctrl-D quits. The password is
SUNDIAL_PASSWORD's; on a terminal without it, it is asked for when the server
refuses the empty one.

Options:
  -e, --execute STATEMENT
    Statements to run (several may be separated by ;).
  -f, --file FILE
    A file of statements separated by ; (- for stdin).
  --url URL
    The server (also SUNDIAL_URL; default http://127.0.0.1:8902).
  --data-dir DIR
    Run the statements in this process on the data directory DIR, as root,
    instead of on a server (not while a server has it).
  -u, --user NAME
    The user (default root).
  -W, --password
    Ask for the password (on a terminal) before connecting.
  -t, --tenant NAME
    The tenant (default cnosdb).
  -d, --database NAME
    The database (default public).
  --format table|csv|tsv|json|ndjson
    How answers are printed (default table).
  --history FILE
    The shell's history (also SUNDIAL_HISTORY; default ~/.sundial_history;
    "" keeps none).
  -h, --help
    Print this help and exit.
  -V, --version
    Print the version and exit.

Exit codes:
  0  every statement succeeded; the shell ended with \\q or Ctrl-D
  1  a statement failed, the server could not be reached or refused the
     password, or the data directory is in use
  2  usage error (unknown option, bad value, unreadable file)
`;
}

export function backupHelp(): string {
  return `Usage: sundial backup [options] DIR

Copies a consistent checkpoint of a running server (its catalog, segment files
and WAL tail, all cut at one instant while it goes on taking writes) into DIR,
over POST /api/v1/admin/backup (an admin's credentials; the password is
SUNDIAL_PASSWORD's, empty if unset). A second run into the same DIR copies only
the segment files DIR does not hold yet. Every file is checked against the
server's SHA-256; an interrupted run leaves the previous backup whole.

Options:
  --url URL
    The server (also SUNDIAL_URL; default http://127.0.0.1:8902).
  -u, --user NAME
    The user, an admin (default root).
  -h, --help
    Print this help and exit.

Exit codes:
  0  the backup is complete
  1  the server refused or broke off the backup, or DIR cannot be written
  2  usage error
`;
}

export function restoreHelp(): string {
  return `Usage: sundial restore DIR --data-dir TARGET
       sundial restore DIR --verify

Checks every file of the backup in DIR against its SHA-256, then copies it into
TARGET, which must be empty or not exist; a server started on TARGET replays the
backup's WAL tail. With --verify alone it only checks. No server is needed.

Options:
  --data-dir TARGET
    The new data directory.
  --verify
    Check the backup (without --data-dir: and nothing else).
  -h, --help
    Print this help and exit.

Exit codes:
  0  restored (or verified)
  1  a file of the backup is missing or damaged (each is named), or TARGET is
     not empty
  2  usage error
`;
}

export function checkHelp(): string {
  return `Usage: sundial check --data-dir DIR [--repair]

Verifies every checksum of the data directory DIR, which no server may have open:
the catalog (it must parse and pass the reader's checks), each database's
manifest, every block, index and trailer of every segment file, every WAL record.
Prints a line per problem, the file named relative to DIR. On a running server
use CHECK DATABASE <name> [REPAIR] instead.

Options:
  --data-dir DIR
    The data directory.
  --repair
    Move damaged segment files to DIR/quarantine/ and unlist them, so that the
    rest serves (their rows are no longer served). Damaged WAL bytes are left to
    the next start, which replays around them; a damaged catalog is not repaired.
  -h, --help
    Print this help and exit.

Exit codes:
  0  no problems
  1  problems found (repaired or not), or DIR is no data directory
  2  usage error
`;
}

export function serveHelp(): string {
  const config =
    'A TOML file of settings (also SUNDIAL_CONFIG). Settings come from the built-in defaults, then this file, ' +
    'then SUNDIAL_* environment variables, then these flags; later sources win.';
  const options = [`  --config FILE\n${wrap(config, INDENT)}`];
  for (const s of SETTINGS) {
    const doc = `${s.doc} [${s.key}; ${envName(s.key)}; default ${shown(s.kind, s.default)}]`;
    options.push(`  --${flagName(s.key)} ${PLACEHOLDER[s.kind]}\n${wrap(doc, INDENT)}`);
  }
  options.push(`  -h, --help\n${wrap('Print this help and exit.', INDENT)}`);
  options.push(`  -V, --version\n${wrap('Print the version and exit.', INDENT)}`);
  return `Usage: sundial serve [options]
       sundial [options]

Runs the server: HTTP on --host and --port, the PostgreSQL protocol on --pg-port
when set. It stops on SIGINT or SIGTERM after the requests in flight. Sizes take
1048576, 64MiB or 500MB; durations 30000 (ms), 30s or 10m.

Options:
${options.join('\n')}

${EXIT_CODES}`;
}
