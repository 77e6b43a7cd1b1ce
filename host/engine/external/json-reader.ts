// Newline-delimited JSON as COPY INTO reads it (CnosDB's JSON file type is arrow-json's
// line-delimited format): one object per line, blank lines skipped; values matched to the schema
// by key, a missing key NULL. Integers keep every digit, also past 2^53.

import { executionError } from '../errors.js';
import type { Field, RecordBatch } from '../types/index.js';
import { inferTextType, typedBatch } from './text-columns.js';

/**
 * The line with every integer literal of more than 15 digits put in quotes, so that JSON.parse
 * keeps its digits (the cells are text until cast to the column's type anyway).
 */
function quoteBigIntegers(line: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < line.length && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
      const next = line.charCodeAt(j);
      const integer = next !== 46 && next !== 101 && next !== 69;
      if (integer && j - i > 15) {
        out += `${line.slice(from, i)}"${line.slice(i, j)}"`;
        from = j;
      }
      i = j - 1;
    }
  }
  return from === 0 ? line : out + line.slice(from);
}

function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The rows of an NDJSON file: `schema`'s columns by key, else every key (sorted, as arrow-json's inference orders them) with inferred types. */
export function readJson(bytes: Uint8Array, schema: readonly Field[] | undefined): RecordBatch {
  const lines = new TextDecoder().decode(bytes).split('\n');
  const objects: Record<string, unknown>[] = [];
  const lineNumbers: number[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(quoteBigIntegers(line));
    } catch (e) {
      throw executionError(`Arrow: Json error: line ${i + 1}: ${(e as Error).message}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw executionError(
        `Arrow: Json error: line ${i + 1}: expected a JSON object, got ${line.length > 40 ? `${line.slice(0, 40)}...` : line}`,
      );
    objects.push(v as Record<string, unknown>);
    lineNumbers.push(i);
  });
  let fields: Field[];
  if (schema === undefined) {
    const keys = new Set<string>();
    for (const o of objects) for (const k of Object.keys(o)) keys.add(k);
    fields = [...keys]
      .sort()
      .map((name) => ({ name, type: inferTextType(objects.map((o) => cellText(o[name]))), nullable: true }));
  } else fields = [...schema];
  const cells = fields.map((f) => objects.map((o) => cellText(o[f.name])));
  return typedBatch(
    fields,
    cells,
    objects.length,
    (i) => lineNumbers[i]!,
    (k) => k,
  );
}
