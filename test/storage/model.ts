// A reference model of what a table must hold after a sequence of writes and deletes: per series
// and timestamp, the fields merged last-write-wins field by field. Printed exactly as
// support.ts `dump` prints a scan, so a test compares two lists of lines.

import type { FieldInput } from '../../host/core/write-batch-builder.js';
import { seriesKey } from '../../host/core/series-key.js';
import { ValueType } from '../../host/core/write-batch.js';
import { f64, type Row } from './support.js';

export class TableModel {
  readonly #series = new Map<string, { tags: Array<[string, string]>; rows: Map<bigint, Map<string, FieldInput>> }>();

  constructor(readonly table: string) {}

  write(rows: readonly Row[]): void {
    for (const [table, tags, ts, fields] of rows) {
      if (table !== this.table) continue;
      const key = seriesKey(table, tags);
      let s = this.#series.get(key);
      if (s === undefined)
        this.#series.set(key, (s = { tags: [...tags].sort((a, b) => (a[0] < b[0] ? -1 : 1)), rows: new Map() }));
      let r = s.rows.get(ts);
      if (r === undefined) s.rows.set(ts, (r = new Map()));
      const seen = new Set<string>();
      for (const f of fields) {
        if (seen.has(f.name)) continue;
        seen.add(f.name);
        r.set(f.name, f);
      }
    }
  }

  /** Deletes rows of the series whose tags pass `filter` within [minTs, maxTs]. */
  delete(minTs: bigint, maxTs: bigint, filter: (tags: Map<string, string>) => boolean = () => true): void {
    for (const s of this.#series.values()) {
      if (!filter(new Map(s.tags))) continue;
      for (const ts of [...s.rows.keys()]) if (ts >= minTs && ts <= maxTs) s.rows.delete(ts);
    }
  }

  /** Drops a field's values (ALTER TABLE DROP) or renames it. */
  rename(from: string, to: string | undefined): void {
    for (const s of this.#series.values()) {
      for (const r of s.rows.values()) {
        const v = r.get(from);
        r.delete(from);
        if (v !== undefined && to !== undefined) r.set(to, { ...v, name: to });
      }
    }
  }

  /** Per series (sorted by key): for each field, the newest time with a value and the value, printed. */
  last(fields: readonly string[]): string[] {
    const out: string[] = [];
    for (const key of [...this.#series.keys()].sort()) {
      const s = this.#series.get(key)!;
      const cells: string[] = [];
      for (const f of fields) {
        let best: bigint | undefined;
        for (const [ts, r] of s.rows) if (r.has(f) && (best === undefined || ts > best)) best = ts;
        if (best !== undefined) cells.push(`${f}@${best}=${print(s.rows.get(best)!.get(f))}`);
      }
      if (cells.length > 0) out.push(`${s.tags.map(([k, v]) => `${k}=${v}`).join(',')} | ${cells.join(' ')}`);
    }
    return out;
  }

  /** Rows as `dump` prints a scan; of the series whose tags pass `filter` when given. */
  dump(
    fields: readonly string[],
    minTs?: bigint,
    maxTs?: bigint,
    filter?: (tags: ReadonlyMap<string, string>) => boolean,
  ): string[] {
    const out: string[] = [];
    const keys: string[] = [];
    for (const [key, s] of this.#series) if (filter === undefined || filter(new Map(s.tags))) keys.push(key);
    for (const key of keys.sort()) {
      const s = this.#series.get(key)!;
      const tags = s.tags.map(([k, v]) => `${k}=${v}`).join(',');
      for (const ts of [...s.rows.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
        if ((minTs !== undefined && ts < minTs) || (maxTs !== undefined && ts > maxTs)) continue;
        const r = s.rows.get(ts)!;
        out.push(`${tags} | ${ts} | ${fields.map((f) => `${f}=${print(r.get(f))}`).join(' ')}`);
      }
    }
    return out;
  }
}

function print(f: FieldInput | undefined): string {
  if (f === undefined) return 'NULL';
  switch (f.type) {
    case ValueType.Double:
      return f64(f.value as number);
    case ValueType.Boolean:
      return f.value ? 'true' : 'false';
    case ValueType.String:
      return JSON.stringify(f.value);
    case ValueType.Unsigned:
      return String(BigInt.asUintN(64, BigInt(f.value)));
    default:
      return String(BigInt.asIntN(64, BigInt(f.value)));
  }
}
