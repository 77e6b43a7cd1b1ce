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
function shown(kind: string, value: string | number | boolean | null): string {
  if (value === null) return 'off';
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
  version   print the version
  help      print the help of a command (sundial help serve)

Options of every command:
  -h, --help     print the help and exit
  -V, --version  print the version and exit

${EXIT_CODES}
Documentation: docs/cli.md, docs/configuration.md
`;
}

export function versionHelp(): string {
  return `Usage: sundial version

Prints the version (also: sundial --version, sundial -V).
`;
}

export function sqlHelp(): string {
  return `Usage: sundial sql [options] [-e STATEMENT]... [-f FILE]...

Runs SQL statements against a server, one request each, in the order given, and
prints each answer; stops at the first statement that fails (exit 1). Without -e
or -f it reads the statements from stdin when stdin is not a terminal. The
password is SUNDIAL_PASSWORD's (empty if unset).

Options:
  -e, --execute STATEMENT
    Statements to run (several may be separated by ;).
  -f, --file FILE
    A file of statements separated by ; (- for stdin).
  --url URL
    The server (also SUNDIAL_URL; default http://127.0.0.1:8902).
  -u, --user NAME
    The user (default root).
  -t, --tenant NAME
    The tenant (default cnosdb).
  -d, --database NAME
    The database (default public).
  --format table|csv|tsv|json|ndjson
    How answers are printed (default table).
  -h, --help
    Print this help and exit.
  -V, --version
    Print the version and exit.

Exit codes:
  0  every statement succeeded
  1  a statement failed, or the server could not be reached
  2  usage error (unknown option, bad value, unreadable file)
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
