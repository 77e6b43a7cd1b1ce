// CSV for `sundial import`: RFC 4180 records (quoted fields may hold the delimiter, quotes and
// line feeds), a header row naming the columns, converted to line protocol on the client
// (import-convert.ts says why). Column types: `--types`, else inferred from the first 1000 rows
// (all integers: BIGINT; all numbers: DOUBLE; all true/false: BOOLEAN; else STRING), so that
// Sundial's own CSV export (DOUBLE always with a decimal point) reads back with its types.
// The conversion works on the input's bytes: an unquoted cell is checked and copied as it is,
// and a row's tags are looked up whole (csv-bytes.ts), so no string is made per cell; quoted cells,
// rare, take the text path. That made it 4 to 5 times cheaper (bench/RESULTS.md).

import type { Batch } from './import-lines.js';
import { LineBuilder, LpBatcher, type TableShape } from './import-convert.js';
import { CsvScanner, HeadCache, isDecimal, isInteger, isNsTime } from './csv-bytes.js';
import { clip, fieldText, inferType, timeNs, type ColumnType } from './lp-text.js';
import { UsageError } from './usage.js';

/** Rows whose values decide the inferred column types. */
const SAMPLE_ROWS = 1000;

interface Columns {
  time: number;
  tags: number[];
  tagNames: string[];
  fields: Array<{ name: string; at: number; type: ColumnType; first: Buffer; next: Buffer }>;
}

function columnsOf(
  header: string[],
  shape: TableShape,
  sample: string[][],
  builder: LineBuilder,
  source: string,
): Columns {
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
  const c: Columns = { time, tags: [], tagNames: [], fields: [] };
  header.forEach((name, at) => {
    if (at === time) return;
    if (shape.tags.has(name)) {
      c.tags.push(at);
      c.tagNames.push(name);
    } else {
      const values = sample.map((r) => r[at] ?? '').filter((v) => v !== '');
      const key = builder.key(name);
      c.fields.push({
        name,
        at,
        type: shape.types.get(name) ?? inferType(values) ?? 'string',
        first: Buffer.from(`${key}=`),
        next: Buffer.from(`,${key}=`),
      });
    }
  });
  return c;
}

/** CSV converted to line-protocol batches. */
export async function* csvBatches(
  chunks: AsyncIterable<Buffer>,
  shape: TableShape,
  o: { delimiter: string; batchLines: number; maxBytes: number; source: string },
): AsyncGenerator<Batch> {
  const batcher = new LpBatcher(o.batchLines, o.maxBytes);
  const builder = new LineBuilder(shape);
  const scan = new CsvScanner(o.delimiter.charCodeAt(0));
  const heads = new HeadCache();
  const it = chunks[Symbol.asyncIterator]();
  let final = false;
  /** Reads the next chunk into the scanner; false at the end of the input. */
  const more = async (): Promise<boolean> => {
    const r = await it.next();
    if (r.done === true) {
      final = true;
      return false;
    }
    scan.append(r.value);
    return true;
  };

  // The header: the first record.
  let header: string[] | undefined;
  while (header === undefined) {
    const end = scan.record(final);
    if (end >= 0) {
      if (scan.blank) {
        scan.consume(end);
        continue;
      }
      header = scan.strings();
      scan.consume(end);
    } else if (!(await more()) && scan.pending() === 0) return;
  }

  // The sample, read ahead without consuming (read again from the start when more input is needed).
  let sample: string[][] = [];
  for (;;) {
    sample = [];
    const cursor = scan.mark();
    let needMore = false;
    while (sample.length < SAMPLE_ROWS) {
      const end = scan.record(final);
      if (end < 0) {
        needMore = !final;
        break;
      }
      if (!scan.blank) sample.push(scan.strings());
      scan.consume(end);
    }
    scan.reset(cursor);
    if (!needMore) break;
    await more();
  }
  const c = columnsOf(header, shape, sample, builder, o.source);
  const width = header.length;

  /** The head (table and tags) of the current record through the string path; an Error for a bad tag. */
  const slowHead = (): string | Error => {
    let head = builder.prefix;
    for (let k = 0; k < c.tags.length; k++) {
      const s = builder.tag(c.tagNames[k]!, scan.cell(c.tags[k]!));
      if (s instanceof Error) return s;
      head += s;
    }
    return head;
  };

  const convert = (line: number): Batch | undefined => {
    const buf = scan.buf;
    if (scan.count !== width) {
      batcher.reject(line, `${scan.count} fields, the header has ${width}`, scan.text());
      return undefined;
    }
    // Time first (its error is the one reported): integer nanoseconds are the text itself, no
    // BigInt round trip.
    const ts = scan.start(c.time);
    const te = scan.end(c.time);
    let timeText: string | undefined;
    if (!(shape.timeFactor === 1n && !scan.isQuoted(c.time) && isNsTime(buf, ts, te))) {
      const time = timeNs(scan.cell(c.time), shape.timeFactor);
      if (time instanceof Error) {
        batcher.reject(line, `column '${shape.timeColumn}': ${time.message}`, scan.text());
        return undefined;
      }
      timeText = time.toString();
    }
    batcher.begin();
    // Head.
    let quotedTag = false;
    for (const k of c.tags) if (scan.isQuoted(k)) quotedTag = true;
    const head = quotedTag ? undefined : heads.find(buf, scan, c.tags);
    if (head !== undefined) batcher.bytes(head, 0, head.length);
    else {
      const h = slowHead();
      if (h instanceof Error) {
        batcher.cancel();
        batcher.reject(line, h.message, scan.text());
        return undefined;
      }
      const bytes = Buffer.from(h);
      if (!quotedTag) heads.add(buf, scan, c.tags, bytes);
      batcher.bytes(bytes, 0, bytes.length);
    }
    batcher.byte(32);
    // Fields.
    let any = false;
    let newlines = 0;
    for (const f of c.fields) {
      const k = f.at;
      const start = scan.start(k);
      const end = scan.end(k);
      if (scan.isQuoted(k) ? scan.cell(k) === '' : start === end) continue;
      const sep = any ? f.next : f.first;
      batcher.bytes(sep, 0, sep.length);
      any = true;
      if (!scan.isQuoted(k)) {
        // The common cells are copied as they are once checked; the others take fieldText's path.
        if (f.type === 'string') {
          batcher.quoted(buf, start, end);
          continue;
        }
        if (f.type === 'bigint' && isInteger(buf, start, end, false, 19)) {
          batcher.bytes(buf, start, end);
          batcher.byte(105); // i
          continue;
        }
        if (f.type === 'unsigned' && isInteger(buf, start, end, true, 20)) {
          batcher.bytes(buf, start, end);
          batcher.byte(117); // u
          continue;
        }
        if (f.type === 'double' && isDecimal(buf, start, end)) {
          batcher.bytes(buf, start, end);
          continue;
        }
      }
      const v = scan.cell(k);
      const text = fieldText(f.type, v);
      if (text instanceof Error) {
        batcher.cancel();
        batcher.reject(line, `column '${f.name}': ${text.message}`, scan.text());
        return undefined;
      }
      for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) newlines++;
      batcher.text(text);
    }
    if (!any) {
      batcher.cancel();
      batcher.reject(line, 'no field values (every field column is empty)', scan.text());
      return undefined;
    }
    batcher.byte(32);
    if (timeText === undefined) batcher.bytes(buf, ts, te);
    else batcher.text(timeText);
    return batcher.end(line, newlines);
  };

  for (;;) {
    const end = scan.record(final);
    if (end < 0) {
      if (await more()) continue;
      if (scan.pending() === 0) break;
      continue; // final now: the last record ends at the end of the input
    }
    const line = scan.line;
    if (!scan.blank) {
      const b = convert(line);
      if (b !== undefined) yield b;
    }
    scan.consume(end);
  }
  const last = batcher.flush();
  if (last !== undefined) yield last;
}
