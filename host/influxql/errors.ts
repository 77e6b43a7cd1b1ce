// InfluxQL's two kinds of failure, as InfluxDB 1.x reports them: a parse error fails the whole
// request (HTTP 400, `{"error":"error parsing query: ... at line L, char C"}`), a statement error
// is that statement's `"error"` in the results (HTTP 200), and the statements after it do not run.

/** The query text does not parse; `line` and `char` are 1-based, as InfluxDB counts them. */
export class InfluxQLParseError extends Error {
  override readonly name = 'InfluxQLParseError';

  constructor(
    readonly detail: string,
    readonly line: number,
    readonly char: number,
  ) {
    super(`${detail} at line ${line}, char ${char}`);
  }
}

/** A statement that parsed but cannot run (InfluxDB's wording where it has one). */
export class InfluxQLStatementError extends Error {
  override readonly name = 'InfluxQLStatementError';
}

export function statementError(message: string): InfluxQLStatementError {
  return new InfluxQLStatementError(message);
}
