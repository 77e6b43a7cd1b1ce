// CSV for `sundial import`: RFC 4180 records (quoted fields may hold the delimiter, quotes and
// line feeds), a header row naming the columns, converted to line protocol on the client
// (import-convert.ts says why). Column types: `--types`, else inferred from the first 1000 rows
// (all integers: BIGINT; all numbers: DOUBLE; all true/false: BOOLEAN; else STRING), so that
// Sundial's own CSV export (DOUBLE always with a decimal point) reads back with its types.

import type { Batch } from './import-lines.js';
import { LineBuilder, LpBatcher, type TableShape } from './import-convert.js';
import { clip, fieldText, inferType, timeNs, type ColumnType } from './lp-text.js';
import { UsageError } from './usage.js';

/** An integer without leading zeros, of at most 19 digits (int64's): taken as it is when in range. */
const NS_TEXT = /^-?[1-9]\d{0,18}$/;
const I64_MAX_TEXT = '9223372036854775807';

function nsText(t: string): boolean {
  if (!NS_TEXT.test(t)) return false;
  const digits = t[0] === '-' ? t.slice(1) : t;
  return digits.length < 19 || digits <= I64_MAX_TEXT; // the same length: text order is number order
}

/** Rows whose values decide the inferred column types. */
const SAMPLE_ROWS = 1000;

interface CsvRecord {
  line: number;
  fields: string[];
  text: string;
}

/** Parses a quoted record starting at `at`; undefined when it does not end within `buf` (and more may come). */
function parseRecord(
  buf: string,
  at: number,
  delim: string,
  final: boolean,
): { fields: string[]; end: number; newlines: number } | undefined {
  const fields: string[] = [];
  let i = at;
  let newlines = 0;
  for (;;) {
    let value: string;
    if (buf[i] === '"') {
      value = '';
      let j = i + 1;
      for (;;) {
        const k = buf.indexOf('"', j);
        if (k < 0) {
          if (!final) return undefined;
          value += buf.slice(j); // an unterminated quote takes the rest, as most readers do
          i = buf.length;
          break;
        }
        if (k + 1 >= buf.length && !final) return undefined;
        for (let n = buf.indexOf('\n', j); n >= 0 && n < k; n = buf.indexOf('\n', n + 1)) newlines++;
        if (buf[k + 1] === '"') {
          value += buf.slice(j, k + 1);
          j = k + 2;
          continue;
        }
        value += buf.slice(j, k);
        i = k + 1;
        break;
      }
      // Text after the closing quote up to the delimiter is kept (lenient, like Python's csv).
      let stop = i;
      while (stop < buf.length && buf[stop] !== delim && buf[stop] !== '\n' && buf[stop] !== '\r') stop++;
      value += buf.slice(i, stop);
      i = stop;
    } else {
      let stop = i;
      while (stop < buf.length && buf[stop] !== delim && buf[stop] !== '\n') stop++;
      if (stop >= buf.length && !final) return undefined;
      value = buf.slice(i, stop);
      if (value.endsWith('\r') && buf[stop] !== delim) value = value.slice(0, -1);
      i = stop;
    }
    fields.push(value);
    if (buf[i] === '\r' && buf[i + 1] === '\n') i++;
    if (i >= buf.length) {
      if (!final) return undefined;
      return { fields, end: buf.length, newlines };
    }
    if (buf[i] === '\n') return { fields, end: i, newlines };
    i++; // the delimiter
  }
}

/** The records of a CSV text stream, a chunk's worth at a time; blank lines are skipped. */
export async function* csvRecords(chunks: AsyncIterable<Buffer>, delim: string): AsyncGenerator<CsvRecord[]> {
  const decoder = new TextDecoder('utf-8');
  let buf = '';
  let line = 1;
  const parse = (final: boolean): CsvRecord[] => {
    const out: CsvRecord[] = [];
    let at = 0;
    // The next quote, searched again only once passed: searching from each line scanned the rest
    // of the chunk per line (quadratic; 2.3 of 3.9 s converting 100,000 rows of the bench's CSV).
    let quote = -1;
    while (at < buf.length) {
      let nl = buf.indexOf('\n', at);
      if (nl < 0) {
        if (!final) break;
        nl = buf.length;
      }
      if (quote !== Infinity && quote < at) {
        quote = buf.indexOf('"', at);
        if (quote < 0) quote = Infinity;
      }
      if (quote > nl) {
        let raw = buf.slice(at, nl);
        if (raw.endsWith('\r')) raw = raw.slice(0, -1);
        if (raw !== '') out.push({ line, fields: raw.split(delim), text: raw });
        line++;
        at = nl + 1;
        continue;
      }
      const r = parseRecord(buf, at, delim, final);
      if (r === undefined) break;
      out.push({ line, fields: r.fields, text: buf.slice(at, r.end) });
      line += r.newlines + 1;
      at = r.end + 1;
    }
    buf = buf.slice(at);
    return out;
  };
  for await (const chunk of chunks) {
    buf += decoder.decode(chunk, { stream: true });
    const records = parse(false);
    if (records.length > 0) yield records;
  }
  buf += decoder.decode();
  const records = parse(true);
  if (records.length > 0) yield records;
}

interface Columns {
  time: number;
  tags: Array<{ name: string; at: number }>;
  fields: Array<{ name: string; at: number; type: ColumnType }>;
}

function columnsOf(header: string[], shape: TableShape, sample: CsvRecord[], source: string): Columns {
  const time = header.indexOf(shape.timeColumn);
  if (time < 0)
    throw new UsageError(
      `${source} has no column '${shape.timeColumn}' (its header: ${clip(header.join(','))}); name the time column with --time-column`,
    );
  for (const t of shape.tags)
    if (!header.includes(t))
      throw new UsageError(`${source} has no tag column '${t}' (its header: ${clip(header.join(','))})`);
  for (const t of shape.types.keys())
    if (!header.includes(t)) throw new UsageError(`${source} has no column '${t}' named in --types`);
  const tags: Columns['tags'] = [];
  const fields: Columns['fields'] = [];
  header.forEach((name, at) => {
    if (at === time) return;
    if (shape.tags.has(name)) tags.push({ name, at });
    else {
      const values = sample.map((r) => r.fields[at] ?? '').filter((v) => v !== '');
      fields.push({ name, at, type: shape.types.get(name) ?? inferType(values) ?? 'string' });
    }
  });
  return { time, tags, fields };
}

/** CSV converted to line-protocol batches. */
export async function* csvBatches(
  chunks: AsyncIterable<Buffer>,
  shape: TableShape,
  o: { delimiter: string; batchLines: number; maxBytes: number; source: string },
): AsyncGenerator<Batch> {
  const batcher = new LpBatcher(o.batchLines, o.maxBytes);
  const builder = new LineBuilder(shape);
  let header: string[] | undefined;
  let columns: Columns | undefined;
  let sample: CsvRecord[] = [];

  const convert = (r: CsvRecord): Batch | undefined => {
    const c = columns!;
    if (r.fields.length !== header!.length) {
      batcher.reject(r.line, `${r.fields.length} fields, the header has ${header!.length}`, r.text);
      return undefined;
    }
    const t = r.fields[c.time]!;
    // The common case, integer nanoseconds, is the text itself: no BigInt round trip.
    const time = shape.timeFactor === 1n && nsText(t) ? t : timeNs(t, shape.timeFactor);
    if (time instanceof Error) {
      batcher.reject(r.line, `column '${shape.timeColumn}': ${time.message}`, r.text);
      return undefined;
    }
    let head = builder.prefix;
    for (const tag of c.tags) {
      const s = builder.tag(tag.name, r.fields[tag.at]!);
      if (s instanceof Error) {
        batcher.reject(r.line, s.message, r.text);
        return undefined;
      }
      head += s;
    }
    let fields = '';
    for (const f of c.fields) {
      const v = r.fields[f.at]!;
      if (v === '') continue;
      const text = fieldText(f.type, v);
      if (text instanceof Error) {
        batcher.reject(r.line, `column '${f.name}': ${text.message}`, r.text);
        return undefined;
      }
      fields += builder.field(fields, f.name, text);
    }
    const lp = builder.finish(head, fields, typeof time === 'string' ? time : time.toString());
    if (lp instanceof Error) {
      batcher.reject(r.line, lp.message, r.text);
      return undefined;
    }
    return batcher.add(r.line, lp);
  };

  for await (const records of csvRecords(chunks, o.delimiter)) {
    let from = 0;
    if (header === undefined) {
      header = records[0]!.fields;
      from = 1;
    }
    if (columns === undefined) {
      for (let i = from; i < records.length; i++) sample.push(records[i]!);
      if (sample.length < SAMPLE_ROWS) continue;
      columns = columnsOf(header, shape, sample, o.source);
      for (const r of sample) {
        const b = convert(r);
        if (b !== undefined) yield b;
      }
      sample = [];
      continue;
    }
    for (let i = from; i < records.length; i++) {
      const b = convert(records[i]!);
      if (b !== undefined) yield b;
    }
  }
  if (header === undefined) return;
  if (columns === undefined) {
    columns = columnsOf(header, shape, sample, o.source);
    for (const r of sample) {
      const b = convert(r);
      if (b !== undefined) yield b;
    }
  }
  const last = batcher.flush();
  if (last !== undefined) yield last;
}
