// OpenTSDB telnet-style text (`[put ]<metric> <timestamp> <value> <tagk>=<tagv> ...`, one point
// per line, as Telegraf's OpenTSDB output and `tcollector` send it) -> write batches: table
// <metric>, one tag per pair, one DOUBLE field `value`. Unlike CnosDB, a body may hold many lines
// (CONTRACT.md "Writes"). Tokens are separated by runs of spaces or tabs, as OpenTSDB's own
// telnet parser splits them; blank lines are skipped; CRLF is fine. Runtime-agnostic.
//
// With the Wasm core at hand, bodies go through its scanner first (opentsdb-scan.ts, about 4 times
// faster); this parser is the reference, and parses whatever the core leaves to it: every error
// (so the messages are this file's), and the rare valid lines the core does not take.

import { UserError } from '../core/errors.js';
import type { RequestUnit, TimeUnit } from '../core/precision.js';
import type { Core } from '../core/wasm.js';
import { ValueType } from '../core/write-batch.js';
import { OpenTsdbScanner } from './opentsdb-scan.js';
import { OpenTsdbTimestamps } from './opentsdb-timestamp.js';
import { clip, locate } from './parse-errors.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';

export interface OpenTsdbOptions {
  /** The request's `precision` parameter; undefined applies OpenTSDB's 10/13-digit rule. */
  precision: RequestUnit | undefined;
  /** The database precision. */
  dbUnit: TimeUnit;
  /** The Wasm core, for the fast path; without it the body is parsed here. */
  core?: Core;
}

const scanners = new WeakMap<Core, OpenTsdbScanner>();

/** An integer or decimal number, optionally with an exponent; no NaN or Infinity. */
export const OPENTSDB_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const SEPARATOR = /[ \t]+/;

type Tags = Array<[string, string]>;

/** Index of the first character at or after `i` that is not a space or tab. */
function skipBlank(text: string, i: number, end: number): number {
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) break;
    i++;
  }
  return i;
}

/** Index of the first space or tab at or after `i`. */
function skipToken(text: string, i: number, end: number): number {
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9) break;
    i++;
  }
  return i;
}

/** The `k=v` pairs of a line's tag text, or what is wrong with them. */
function parseTags(text: string): Tags | string {
  const tags: Tags = [];
  // The interface document: "one or more tag pairs".
  if (text === '') return 'expected at least one tag <tagk>=<tagv> after the value';
  for (const pair of text.split(SEPARATOR)) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) return `invalid tag '${clip(pair)}', expected <tagk>=<tagv>`;
    const k = pair.slice(0, eq);
    const v = pair.slice(eq + 1);
    for (const [k0, v0] of tags)
      if (k0 === k && v0 !== v) return `tag '${clip(k)}' is given twice with different values`;
    tags.push([k, v]);
  }
  return tags;
}

/**
 * Parses a whole body. Throws UserError 'openTsdbText' (400) naming the line on bad input.
 * Lines are scanned by hand and two things are remembered across lines, because Telegraf writes
 * every metric of a host with the same tags and every point of an interval with the same
 * timestamp: the parsed tags by their text (also handed to the batch builder as the series key),
 * and the last timestamp.
 */
export function parseOpenTsdbText(body: Uint8Array, options: OpenTsdbOptions): Uint8Array[] {
  if (options.core !== undefined) {
    let scanner = scanners.get(options.core);
    if (scanner === undefined) scanners.set(options.core, (scanner = new OpenTsdbScanner(options.core)));
    const batches = scanner.scan(body, options);
    if (batches !== undefined) return batches;
  }
  return parseReference(body, options);
}

/** The reference parser (see the header). */
function parseReference(body: Uint8Array, options: OpenTsdbOptions): Uint8Array[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new UserError('openTsdbText', 'the body is not valid UTF-8');
  }
  const timestamps = new OpenTsdbTimestamps(options.precision, options.dbUnit);
  const out = new RowBatcher();
  const tagCache = new Map<string, Tags | string>();
  const field: FieldInput = { name: 'value', type: ValueType.Double, value: 0 };
  const fields = [field];
  let lastTsText = '';
  let lastTs = 0n;
  let lineNo = 0;
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    lineNo++;
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    const lineStart = pos;
    pos = end + 1;
    if (end > lineStart && text.charCodeAt(end - 1) === 13) end--;
    let i = skipBlank(text, lineStart, end);
    if (i === end) continue;
    try {
      const tokens: string[] = [];
      // metric, timestamp, value (after an optional leading `put`), then the tag text as one piece.
      let first = true;
      while (tokens.length < 3 && i < end) {
        const j = skipToken(text, i, end);
        const token = text.slice(i, j);
        i = skipBlank(text, j, end);
        if (first && token === 'put') {
          first = false;
          continue;
        }
        first = false;
        tokens.push(token);
      }
      if (tokens.length < 3)
        throw new UserError(
          'openTsdbText',
          `line ${lineNo}: expected '<metric> <timestamp> <value> <tagk>=<tagv>...', found '${clip(text.slice(lineStart, end).trim())}'`,
        );
      const [metric, tsText, valueText] = tokens as [string, string, string];
      let ts: bigint;
      if (tsText === lastTsText) {
        ts = lastTs;
      } else {
        const converted = timestamps.convert(tsText);
        if (typeof converted === 'string') throw new UserError('openTsdbText', `line ${lineNo}: ${converted}`);
        ts = lastTs = converted;
        lastTsText = tsText;
      }
      if (!OPENTSDB_NUMBER.test(valueText))
        throw new UserError(
          'openTsdbText',
          `line ${lineNo}: invalid value '${clip(valueText)}', expected an integer or decimal number`,
        );
      const value = Number(valueText);
      if (!Number.isFinite(value))
        throw new UserError(
          'openTsdbText',
          `line ${lineNo}: value '${clip(valueText)}' is out of the range of a DOUBLE`,
        );
      let tagEnd = end;
      while (tagEnd > i && (text.charCodeAt(tagEnd - 1) === 32 || text.charCodeAt(tagEnd - 1) === 9)) tagEnd--;
      const tagText = text.slice(i, tagEnd);
      let tags = tagCache.get(tagText);
      if (tags === undefined) tagCache.set(tagText, (tags = parseTags(tagText)));
      if (typeof tags === 'string') throw new UserError('openTsdbText', `line ${lineNo}: ${tags}`);
      field.value = value;
      out.add(metric, tags, ts, fields, tagText);
    } catch (e) {
      throw locate(e, `line ${lineNo}`, 'openTsdbText');
    }
  }
  return out.finish();
}
