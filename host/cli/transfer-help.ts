// The help texts of `sundial import` and `sundial export` (docs/cli.md has the long form).

const CONNECTION = `  --url URL
    The server (also SUNDIAL_URL; default http://127.0.0.1:8902).
  -u, --user NAME
    The user (default root); the password is SUNDIAL_PASSWORD's (empty if
    unset).
  -t, --tenant NAME
    The tenant (default cnosdb).
  -d, --database NAME
    The database (default public).`;

const COMMON = `  -h, --help
    Print this help and exit.
  -V, --version
    Print the version and exit.`;

export function importHelp(): string {
  return `Usage: sundial import [options] FILE... (- for stdin)

Writes files into a server: line protocol, CSV, NDJSON, OpenTSDB text or
Parquet, plain or compressed with gzip or zstd (told by their first bytes). Each
file is streamed in batches, sent --concurrency at a time. Lines the server
refuses are reported with their line number and reason, and the rest is
stored. An interrupted import continues with --resume. A summary goes to stderr,
and a progress line when stderr is a terminal.

Options:
${CONNECTION}
  -F, --format lp|csv|ndjson|opentsdb|parquet
    The format (default: from the file's extension, .lp .csv .ndjson .tsdb
    .parquet, before .gz or .zst; stdin: lp).
  -p, --precision ns|us|ms|s
    The unit of integer timestamps (default ns).
  --table NAME
    CSV, NDJSON, Parquet: the table (default: the file's name without its
    extensions).
  --time-column NAME
    CSV, NDJSON, Parquet: the time column (default time): an integer in
    --precision units or an RFC 3339 date-time (UTC without an offset).
  --tag-columns A,B,...
    CSV, NDJSON, Parquet: the columns that are tags (default none).
  --types COLUMN:TYPE,...
    CSV, NDJSON: column types (double, bigint, unsigned, boolean, string);
    others are inferred from the first 1000 rows.
  --delimiter C
    CSV: the field delimiter (default ,).
  --batch-size N
    Lines per request (default 5000).
  -c, --concurrency N
    Requests in flight at a time (default 2).
  --resume
    Skip the batches an interrupted import of the same file had written.
  --state FILE
    Where the resume state is kept (default FILE.sundial-import beside the
    input; needed for stdin).
  --errors FILE
    Write every rejected line to FILE as NDJSON (file, line, error, text).
${COMMON}

Exit codes:
  0  every line was stored
  1  the import stopped: the server could not be reached or refused the
     import (unknown database, authentication); --resume continues it
  2  usage error (unknown option, bad value, unreadable file)
  3  done, but some lines were rejected (the others were stored)
`;
}

export function exportHelp(): string {
  return `Usage: sundial export [options] TABLE
       sundial export [options] --query STATEMENT

Writes a table, or the answer of a query, to a file or stdout as CSV, NDJSON,
line protocol or Parquet, streamed from the server in constant memory. A summary
goes to stderr, and a progress line when stderr is a terminal.

Options:
${CONNECTION}
  -q, --query STATEMENT
    A SELECT to export instead of a table.
  --start TIME, --end TIME
    With a table: rows with time >= --start and < --end (RFC 3339).
  -F, --format csv|ndjson|lp|parquet
    The format (default: from --output's extension, else csv).
  -o, --output FILE
    Where to write (default stdout). A failed export removes the file.
  --tag-columns A,B,...
    Line protocol: the tag columns (default: the table's tags; none for a
    --query).
  --time-column NAME
    Line protocol: the time column (default time).
  --table NAME
    The table to export; with --query and line protocol, the table name
    each line is written with.
${COMMON}

Exit codes:
  0  done
  1  the export failed (the server refused the query, failed during it, or
     could not be reached); the output file is removed
  2  usage error (unknown option, bad value)
`;
}
