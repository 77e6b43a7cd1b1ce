// InfluxDB 1.x's JSON answer to /query: `{"results":[{"statement_id":0,"series":[{"name",
// "tags","columns","values"}]}]}`, key order as InfluxDB writes it, integers exact (64-bit values
// are bigints here, never doubles), times as RFC3339Nano text or integers in the `epoch` unit,
// and `pretty=true` indented by four spaces as Go's json.MarshalIndent does.

import type { StatementResult } from './executor.js';
import { EPOCH_UNITS, rfc3339Nano } from './time.js';

export interface JsonOptions {
  /** `epoch` unit (a key of EPOCH_UNITS); undefined: RFC3339Nano text. */
  readonly epoch?: string;
  readonly pretty: boolean;
}

type Json = string | number | boolean | null | bigint | Json[] | { [key: string]: Json | undefined };

function write(v: Json, indent: string | undefined, depth: number, out: string[]): void {
  if (v === null) out.push('null');
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (typeof v === 'number') out.push(Number.isFinite(v) ? JSON.stringify(v) : 'null');
  else if (typeof v === 'string' || typeof v === 'boolean') out.push(JSON.stringify(v));
  else {
    const isArray = Array.isArray(v);
    const entries: Array<[string | undefined, Json]> = isArray
      ? v.map((x) => [undefined, x])
      : Object.entries(v).filter((e): e is [string, Json] => e[1] !== undefined);
    if (entries.length === 0) {
      out.push(isArray ? '[]' : '{}');
      return;
    }
    out.push(isArray ? '[' : '{');
    const pad = indent === undefined ? '' : `\n${indent.repeat(depth + 1)}`;
    entries.forEach(([k, x], i) => {
      if (i > 0) out.push(',');
      out.push(pad);
      if (k !== undefined) out.push(JSON.stringify(k), indent === undefined ? ':' : ': ');
      write(x, indent, depth + 1, out);
    });
    out.push(indent === undefined ? '' : `\n${indent.repeat(depth)}`, isArray ? ']' : '}');
  }
}

export function toJson(v: Json, pretty: boolean): string {
  const out: string[] = [];
  write(v, pretty ? '    ' : undefined, 0, out);
  return out.join('');
}

function resultJson(r: StatementResult, options: JsonOptions): Json {
  const unit = options.epoch === undefined ? undefined : EPOCH_UNITS[options.epoch];
  const series = r.series.map((s) => ({
    name: s.name,
    tags: s.tags as Json,
    columns: s.columns as Json,
    values: s.timeColumn
      ? s.values.map((row) => [
          unit === undefined ? rfc3339Nano(row[0] as bigint) : (row[0] as bigint) / unit,
          ...row.slice(1),
        ])
      : s.values,
    partial: s.partial === true ? true : undefined,
  }));
  return {
    statement_id: r.statementId,
    series: series.length > 0 ? series : undefined,
    error: r.error,
    partial: r.partial === true ? true : undefined,
  };
}

/** The whole answer (one JSON document; chunked answers send one per result, each on its own line). */
export function resultsJson(results: readonly StatementResult[], options: JsonOptions): string {
  return toJson({ results: results.map((r) => resultJson(r, options)) }, options.pretty);
}
