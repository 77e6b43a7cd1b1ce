// Files dropped on the sandbox page, into encoded write batches: line protocol (scanned by the
// server's Wasm scanner, in sandbox.ts), CSV and NDJSON (rows built here with the server's
// WriteBatchBuilder), any of them gzip-compressed (by its magic bytes, through the runtime's
// DecompressionStream). The table of a CSV or NDJSON file is its name without extensions.
//
// Types, since neither format carries them: a CSV header may say `name:tag`, `name:double`,
// `name:bigint`, `name:unsigned`, `name:boolean`, `name:string`; otherwise a column whose values
// are all numbers is DOUBLE, all true/false is BOOLEAN, and any other text column is a tag (text
// in time-series files names series: host, region). NDJSON: numbers DOUBLE, booleans BOOLEAN,
// strings tags, nested objects flattened with `.`. `time` (RFC 3339 or integer nanoseconds) is
// the time column; rows without it get the load's time.

import { UserError } from '../core/errors.js';
import { ValueType, type FieldType } from '../core/write-batch.js';
import { type FieldInput, WriteBatchBuilder } from '../core/write-batch-builder.js';
import { parseRfc3339Ns } from '../ingest/rfc3339.js';

export type FileFormat = 'lp' | 'csv' | 'ndjson';

/** Rows per write batch (a batch is built whole in memory before it is stored). */
const BATCH_ROWS = 50_000;

export async function gunzipIfNeeded(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (e) {
    throw new UserError('bodyDecode', `the gzip stream is corrupt: ${(e as Error).message}`);
  }
}

/** The format by the name (.lp/.txt/.line, .csv, .ndjson/.jsonl/.json, each maybe .gz). */
export function formatOf(name: string): FileFormat {
  const n = name.toLowerCase().replace(/\.gz$/, '');
  if (n.endsWith('.csv')) return 'csv';
  if (n.endsWith('.ndjson') || n.endsWith('.jsonl') || n.endsWith('.json')) return 'ndjson';
  return 'lp';
}

export function tableOf(name: string): string {
  const base = name
    .replace(/^.*[\\/]/, '')
    .replace(/\.gz$/i, '')
    .replace(/\.[^.]*$/, '');
  return base === '' ? 'data' : base;
}

function timeOf(v: string | number | undefined, where: string, nowNs: bigint): bigint {
  if (v === undefined || v === '') return nowNs;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new UserError('logParse', `${where}: time ${v} is not integer nanoseconds`);
    return BigInt(v);
  }
  if (/^-?\d+$/.test(v)) return BigInt(v);
  const ns = parseRfc3339Ns(v);
  if (typeof ns === 'string') throw new UserError('logParse', `${where}: ${ns}`);
  return ns;
}

type Declared = 'tag' | FieldType;
const DECLARED: Record<string, Declared> = {
  tag: 'tag',
  double: ValueType.Double,
  bigint: ValueType.BigInt,
  unsigned: ValueType.Unsigned,
  boolean: ValueType.Boolean,
  string: ValueType.String,
};

/** Splits CSV text into records (RFC 4180: quotes, doubled quotes, CRLF). */
function* csvRecords(text: string): Generator<string[]> {
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') yield row;
      row = [];
    } else field += c;
    i++;
  }
  if (quoted) throw new UserError('logParse', 'CSV: a quoted field is not closed');
  row.push(field);
  if (row.length > 1 || row[0] !== '') yield row;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const BOOL = /^(true|false)$/i;

export function csvBatches(text: string, table: string, nowNs: bigint): Uint8Array[] {
  const records = [...csvRecords(text)];
  if (records.length === 0) return [];
  const header = records[0]!.map((h) => h.trim());
  const names = header.map((h) => h.replace(/:[a-z]+$/i, ''));
  const timeAt = names.indexOf('time');
  const kinds: Array<Declared | 'time'> = header.map((h, c) => {
    if (c === timeAt) return 'time';
    const m = /:([a-z]+)$/i.exec(h);
    if (m !== null) {
      const d = DECLARED[m[1]!.toLowerCase()];
      if (d === undefined)
        throw new UserError(
          'logParse',
          `CSV: column ${h}: unknown type '${m[1]}' (want tag, double, bigint, unsigned, boolean or string)`,
        );
      return d;
    }
    let numbers = true;
    let bools = true;
    for (let r = 1; r < records.length; r++) {
      const v = records[r]![c] ?? '';
      if (v === '') continue;
      if (!NUMBER.test(v)) numbers = false;
      if (!BOOL.test(v)) bools = false;
      if (!numbers && !bools) break;
    }
    return numbers ? ValueType.Double : bools ? ValueType.Boolean : 'tag';
  });
  const out: Uint8Array[] = [];
  let b = new WriteBatchBuilder();
  for (let r = 1; r < records.length; r++) {
    const rec = records[r]!;
    const where = `CSV line ${r + 1}`;
    const tags: Array<[string, string]> = [];
    const fields: FieldInput[] = [];
    for (let c = 0; c < names.length; c++) {
      const v = rec[c] ?? '';
      const k = kinds[c]!;
      if (k === 'time' || v === '') continue;
      if (k === 'tag') tags.push([names[c]!, v]);
      else fields.push({ name: names[c]!, type: k, value: fieldValue(k, v, `${where}, column ${names[c]}`) });
    }
    b.addRow(table, tags, timeOf(timeAt < 0 ? undefined : rec[timeAt], where, nowNs), fields);
    if (b.rowCount >= BATCH_ROWS) {
      out.push(b.finish());
      b = new WriteBatchBuilder();
    }
  }
  if (b.rowCount > 0) out.push(b.finish());
  return out;
}

function fieldValue(type: FieldType, v: string, where: string): FieldInput['value'] {
  switch (type) {
    case ValueType.Double:
      if (!NUMBER.test(v)) throw new UserError('logParse', `${where}: '${v}' is not a number`);
      return Number(v);
    case ValueType.BigInt:
    case ValueType.Unsigned:
      if (!/^[-+]?\d+$/.test(v)) throw new UserError('logParse', `${where}: '${v}' is not an integer`);
      return BigInt(v);
    case ValueType.Boolean:
      if (!BOOL.test(v)) throw new UserError('logParse', `${where}: '${v}' is not true or false`);
      return v.toLowerCase() === 'true';
    default:
      return v;
  }
}

function flatten(o: Record<string, unknown>, prefix: string, out: Array<[string, unknown]>): void {
  for (const [k, v] of Object.entries(o)) {
    const name = prefix === '' ? k : `${prefix}.${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, name, out);
    else out.push([name, v]);
  }
}

export function ndjsonBatches(text: string, table: string, nowNs: bigint): Uint8Array[] {
  const out: Uint8Array[] = [];
  let b = new WriteBatchBuilder();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const where = `NDJSON line ${i + 1}`;
    let doc: unknown;
    try {
      doc = JSON.parse(line);
    } catch (e) {
      throw new UserError('logParse', `${where}: ${(e as Error).message}`);
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      throw new UserError('logParse', `${where}: not a JSON object`);
    const pairs: Array<[string, unknown]> = [];
    flatten(doc as Record<string, unknown>, '', pairs);
    const tags: Array<[string, string]> = [];
    const fields: FieldInput[] = [];
    let time: string | number | undefined;
    for (const [k, v] of pairs) {
      if (k === 'time') time = v as string | number;
      else if (typeof v === 'number') fields.push({ name: k, type: ValueType.Double, value: v });
      else if (typeof v === 'boolean') fields.push({ name: k, type: ValueType.Boolean, value: v });
      else if (typeof v === 'string') tags.push([k, v]);
      else if (Array.isArray(v)) fields.push({ name: k, type: ValueType.String, value: JSON.stringify(v) });
    }
    b.addRow(table, tags, timeOf(time, where, nowNs), fields);
    if (b.rowCount >= BATCH_ROWS) {
      out.push(b.finish());
      b = new WriteBatchBuilder();
    }
  }
  if (b.rowCount > 0) out.push(b.finish());
  return out;
}
