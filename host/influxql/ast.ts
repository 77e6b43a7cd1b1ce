// The InfluxQL syntax tree: the statements Grafana's InfluxDB data source, the `influx` CLI,
// Telegraf and the client libraries send, shaped after InfluxDB 1.x's influxql package
// (SelectStatement, Dimensions, Sources, Fill). Expressions keep InfluxQL's own literal kinds
// (durations, regexes) until the translator turns them into Sundial's SQL tree.

export type Expr =
  /** A field or tag; `type` from `name::field` / `name::tag` (other casts are kept as written). */
  | { readonly kind: 'varRef'; readonly name: string; readonly type?: string }
  /** `*`, `*::field`, `*::tag` (in the select list or a call). */
  | { readonly kind: 'wildcard'; readonly type?: 'field' | 'tag' }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[] }
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'paren'; readonly expr: Expr }
  /** A decimal number (`1.5`, `1e3`). */
  | { readonly kind: 'number'; readonly value: number; readonly text: string }
  | { readonly kind: 'integer'; readonly value: bigint }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'duration'; readonly ns: bigint; readonly text: string }
  | { readonly kind: 'regex'; readonly pattern: string };

export type BinaryOp =
  | 'AND'
  | 'OR'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '=~'
  | '!~'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '&'
  | '|'
  | '^';

export interface Field {
  readonly expr: Expr;
  readonly alias?: string;
}

/** `[db.][rp.]name` or `[db.][rp.]/regex/`. */
export interface Measurement {
  readonly database?: string;
  readonly retentionPolicy?: string;
  readonly name?: string;
  readonly regex?: string;
}

export type Dimension =
  | { readonly kind: 'time'; readonly intervalNs: bigint; readonly offsetNs: bigint }
  | { readonly kind: 'tag'; readonly name: string }
  | { readonly kind: 'wildcard' }
  | { readonly kind: 'regex'; readonly pattern: string };

export type Fill =
  | { readonly kind: 'null' }
  | { readonly kind: 'none' }
  | { readonly kind: 'previous' }
  | { readonly kind: 'linear' }
  | { readonly kind: 'value'; readonly value: number | bigint };

export interface SelectStatement {
  readonly kind: 'select';
  readonly fields: readonly Field[];
  readonly sources: readonly Measurement[];
  readonly condition?: Expr;
  readonly dimensions: readonly Dimension[];
  readonly fill: Fill;
  /** Explicit `fill(...)` was written. */
  readonly fillWritten: boolean;
  readonly descending: boolean;
  readonly limit?: number;
  readonly offset?: number;
  readonly slimit?: number;
  readonly soffset?: number;
  /** `INTO` target, refused by the executor (no continuous writes here). */
  readonly into?: Measurement;
  /** `tz('...')`, refused by the executor. */
  readonly tz?: string;
}

export type TagKeyMatch =
  | { readonly op: '=' | '!='; readonly keys: readonly string[] }
  | { readonly op: '=~' | '!~'; readonly regex: string };

export interface ShowMeta {
  readonly database?: string;
  readonly sources: readonly Measurement[];
  readonly condition?: Expr;
  readonly limit?: number;
  readonly offset?: number;
}

export type Statement =
  | SelectStatement
  | { readonly kind: 'showDatabases' }
  | { readonly kind: 'createDatabase'; readonly name: string; readonly durationNs?: bigint }
  | { readonly kind: 'dropDatabase'; readonly name: string }
  | ({
      readonly kind: 'showMeasurements';
      readonly match?: { readonly op: '=' | '!=' | '=~' | '!~'; readonly value: string };
    } & ShowMeta)
  | ({ readonly kind: 'showTagKeys' } & ShowMeta)
  | ({ readonly kind: 'showTagValues'; readonly keys: TagKeyMatch } & ShowMeta)
  | ({ readonly kind: 'showFieldKeys' } & ShowMeta)
  | ({ readonly kind: 'showSeries' } & ShowMeta)
  | { readonly kind: 'showRetentionPolicies'; readonly database?: string }
  | { readonly kind: 'showUsers' }
  | { readonly kind: 'dropMeasurement'; readonly name: string }
  /** A statement InfluxQL has and Sundial does not run (CREATE USER, continuous queries, ...): its words for the error. */
  | { readonly kind: 'unsupported'; readonly what: string };
