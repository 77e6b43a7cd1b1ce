// NDJSON for `sundial import`: one JSON object per line, nested objects flattened with `.` and
// arrays by index (as the server's NDJSON route does), converted to line protocol on the client.
// Column types: `--types`, else from the first 1000 lines: numbers are BIGINT when every one is
// written without a fraction or exponent (JSON.parse cannot tell 1 from 1.0, so the text is
// looked at), else DOUBLE; a column first seen later takes DOUBLE for numbers. JSON numbers are
// doubles; integers of 16 digits or more are read exactly (markLongIntegers).

import type { Batch } from './import-lines.js';
import { fieldOfValue, LineBuilder, LpBatcher, type TableShape } from './import-convert.js';
import { timeNs, type ColumnType } from './lp-text.js';

const SAMPLE_LINES = 1000;

/** Marks an integer too long for a double: JSON.parse reads it as this string, flatten as a BigInt. */
const BIG = '\u0000';
const LONG_DIGITS = /\d{16}/;

/**
 * `text` with each integer of 16 or more digits outside strings quoted and marked, so that
 * JSON.parse keeps its digits (Sundial's own export writes BIGINT values exactly).
 */
function markLongIntegers(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x39) j++;
      const next = text[j];
      if (j - i >= 16 && next !== '.' && next !== 'e' && next !== 'E') {
        out += text.slice(from, i) + '"\\u0000' + text.slice(i, j) + '"'; // JSON.parse makes the escape BIG
        from = j;
      }
      i = j - 1;
    }
  }
  return out + text.slice(from);
}

function flatten(o: Record<string, unknown>, prefix: string, out: Map<string, unknown>): void {
  for (const [k, v] of Object.entries(o)) {
    const name = prefix === '' ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === 'object') flatten(v as Record<string, unknown>, name, out);
    else if (typeof v === 'string' && v.startsWith(BIG)) out.set(name, BigInt(v.slice(1)));
    else out.set(name, v);
  }
}

interface Parsed {
  line: number;
  text: string;
  values: Map<string, unknown> | Error;
}

function parse(line: number, text: string): Parsed {
  try {
    const o = JSON.parse(LONG_DIGITS.test(text) ? markLongIntegers(text) : text) as unknown;
    if (o === null || typeof o !== 'object' || Array.isArray(o))
      return { line, text, values: new Error('not a JSON object') };
    const values = new Map<string, unknown>();
    flatten(o as Record<string, unknown>, '', values);
    return { line, text, values };
  } catch (e) {
    return { line, text, values: new Error(`invalid JSON: ${(e as Error).message}`) };
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Column types from a sample of lines. */
function inferTypes(sample: Parsed[], shape: TableShape): Map<string, ColumnType> {
  const kinds = new Map<string, Set<string>>();
  for (const p of sample) {
    if (p.values instanceof Error) continue;
    for (const [k, v] of p.values) {
      if (v === null || k === shape.timeColumn || shape.tags.has(k)) continue;
      let s = kinds.get(k);
      if (s === undefined) kinds.set(k, (s = new Set()));
      s.add(
        typeof v === 'number'
          ? Number.isInteger(v)
            ? 'integer'
            : 'number'
          : typeof v === 'bigint'
            ? 'integer'
            : typeof v,
      );
    }
  }
  const types = new Map<string, ColumnType>(shape.types);
  for (const [k, s] of kinds) {
    if (types.has(k)) continue;
    if (s.size === 1 && s.has('boolean')) types.set(k, 'boolean');
    else if ([...s].every((x) => x === 'integer')) {
      const decimal = new RegExp(`"${escapeRegExp(k)}"\\s*:\\s*-?\\d+[.eE]`);
      const written = sample.some((p) => decimal.test(p.text));
      types.set(k, written || k.includes('.') ? 'double' : 'bigint');
    } else if ([...s].every((x) => x === 'integer' || x === 'number')) types.set(k, 'double');
    else types.set(k, 'string');
  }
  return types;
}

export async function* ndjsonBatches(
  chunks: AsyncIterable<Buffer>,
  shape: TableShape,
  o: { batchLines: number; maxBytes: number },
): AsyncGenerator<Batch> {
  const batcher = new LpBatcher(o.batchLines, o.maxBytes);
  const builder = new LineBuilder(shape);
  let types: Map<string, ColumnType> | undefined;
  let sample: Parsed[] = [];

  const convert = (p: Parsed): Batch | undefined => {
    if (p.values instanceof Error) {
      batcher.reject(p.line, p.values.message, p.text);
      return undefined;
    }
    const t = p.values.get(shape.timeColumn);
    const time =
      typeof t === 'string'
        ? timeNs(t, shape.timeFactor)
        : typeof t === 'bigint'
          ? t * shape.timeFactor
          : typeof t === 'number' && Number.isSafeInteger(t)
            ? BigInt(t) * shape.timeFactor
            : new Error(`no time value '${shape.timeColumn}' (a date-time string or an integer)`);
    if (time instanceof Error) {
      batcher.reject(p.line, time.message, p.text);
      return undefined;
    }
    const tags: Array<[string, string]> = [];
    const fields: Array<[string, string]> = [];
    for (const [k, v] of p.values) {
      if (k === shape.timeColumn || v === null) continue;
      if (shape.tags.has(k)) {
        if (typeof v === 'object') continue;
        tags.push([k, String(v)]);
        continue;
      }
      let type = types!.get(k);
      if (type === undefined)
        types!.set(
          k,
          (type =
            typeof v === 'number'
              ? 'double'
              : typeof v === 'bigint'
                ? 'bigint'
                : typeof v === 'boolean'
                  ? 'boolean'
                  : 'string'),
        );
      const text = fieldOfValue(type, v);
      if (text instanceof Error) {
        batcher.reject(p.line, `column '${k}': ${text.message}`, p.text);
        return undefined;
      }
      fields.push([k, text]);
    }
    tags.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const lp = builder.line(tags, fields, time);
    if (lp instanceof Error) {
      batcher.reject(p.line, lp.message, p.text);
      return undefined;
    }
    return batcher.add(p.line, lp);
  };

  const decoder = new TextDecoder('utf-8');
  let buf = '';
  let line = 1;
  const lines = function* (final: boolean): Generator<Parsed> {
    let at = 0;
    for (;;) {
      let nl = buf.indexOf('\n', at);
      if (nl < 0) {
        if (!final || at >= buf.length) break;
        nl = buf.length;
      }
      const text = buf.slice(at, nl).trim();
      if (text !== '') yield parse(line, text);
      line++;
      at = nl + 1;
    }
    buf = buf.slice(at);
  };
  const take = function* (final: boolean): Generator<Batch> {
    for (const p of lines(final)) {
      if (types === undefined) {
        sample.push(p);
        if (sample.length < SAMPLE_LINES) continue;
        types = inferTypes(sample, shape);
        for (const s of sample) {
          const b = convert(s);
          if (b !== undefined) yield b;
        }
        sample = [];
        continue;
      }
      const b = convert(p);
      if (b !== undefined) yield b;
    }
  };
  for await (const chunk of chunks) {
    buf += decoder.decode(chunk, { stream: true });
    yield* take(false);
  }
  buf += decoder.decode();
  yield* take(true);
  if (types === undefined) {
    types = inferTypes(sample, shape);
    for (const s of sample) {
      const b = convert(s);
      if (b !== undefined) yield b;
    }
  }
  const last = batcher.flush();
  if (last !== undefined) yield last;
}
