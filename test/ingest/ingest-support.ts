// Helpers for the tests of the TypeScript ingest formats: encoded batches read back into plain
// rows and column types, a seeded PRNG, and parser runners that capture the thrown UserError.

import { UserError } from '../../host/core/errors.js';
import { batchString, ColumnKind, readWriteBatch, ValueType, VALUE_TYPE_NAMES } from '../../host/core/write-batch.js';
import { mulberry32 } from '../support/rng.js';

/** A seeded PRNG (mulberry32, test/support/rng.ts). */
export const rng = mulberry32;

export type Row = Record<string, unknown> & { table: string; time: bigint };

/** Every row of `batches`: table, time, tags and non-NULL fields; sorted by table, then time, then series key. */
export function rowsOf(batches: readonly Uint8Array[]): Row[] {
  const out: Array<{ key: string; row: Row }> = [];
  for (const b of batches) {
    const wb = readWriteBatch(b);
    for (const t of wb.tables) {
      for (const s of t.series) {
        for (let r = s.rowStart; r < s.rowStart + s.rowCount; r++) {
          const row: Row = { table: t.name, time: t.timestamps[r]! };
          for (const [ci, v] of s.tags) row[t.columns[ci]!.name] = v;
          for (const c of t.columns) {
            if (c.kind !== ColumnKind.Field || (c.validity && c.validity[r] === 0)) continue;
            switch (c.type) {
              case ValueType.Double:
                row[c.name] = (c.values as Float64Array)[r];
                break;
              case ValueType.Boolean:
                row[c.name] = (c.values as Uint8Array)[r] === 1;
                break;
              case ValueType.String:
                row[c.name] = batchString(c.strings!, r);
                break;
              default:
                row[c.name] = (c.values as BigInt64Array)[r];
            }
          }
          out.push({ key: s.key, row });
        }
      }
    }
  }
  out.sort((a, b) =>
    a.row.table < b.row.table
      ? -1
      : a.row.table > b.row.table
        ? 1
        : a.row.time < b.row.time
          ? -1
          : a.row.time > b.row.time
            ? 1
            : a.key < b.key
              ? -1
              : a.key > b.key
                ? 1
                : 0,
  );
  return out.map((o) => o.row);
}

/** Column types per table as `name: TYPE` (tags are TAG), in batch order. */
export function columnsOf(batches: readonly Uint8Array[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const b of batches) {
    for (const t of readWriteBatch(b).tables) {
      const cols = (out[t.name] ??= {});
      for (const c of t.columns) cols[c.name] = VALUE_TYPE_NAMES[c.type];
    }
  }
  return out;
}

/** Runs `f` and returns its UserError as [code, message]; fails if it throws anything else or nothing. */
export function rejection(f: () => unknown): [string, string] {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return [e.code, e.message];
    throw e;
  }
  throw new Error('expected a UserError, got none');
}

/** Random mutations of `base` (flip, insert, delete, duplicate, truncate), `count` of them. */
export function mutate(base: Uint8Array, random: () => number, alphabet: string): Uint8Array {
  const b = [...base];
  const count = 1 + Math.floor(random() * 4);
  for (let m = 0; m < count; m++) {
    const at = Math.floor(random() * (b.length + 1));
    const op = Math.floor(random() * 5);
    if (op === 0 && at < b.length) b[at] = Math.floor(random() * 256);
    else if (op === 1) b.splice(at, 0, alphabet.charCodeAt(Math.floor(random() * alphabet.length)) & 0xff);
    else if (op === 2) b.splice(at, 1);
    else if (op === 3) b.splice(at, 0, ...b.slice(at, at + 10));
    else b.length = at;
  }
  return Uint8Array.from(b);
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
