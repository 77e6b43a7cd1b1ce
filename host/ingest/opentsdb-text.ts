// OpenTSDB telnet-style text (`[put ]<metric> <timestamp> <value> <tagk>=<tagv> ...`, one point
// per line, as Telegraf's OpenTSDB output and `tcollector` send it) -> write batches: table
// <metric>, one tag per pair, one DOUBLE field `value`. Unlike CnosDB, a body may hold many lines
// (CONTRACT.md "Writes"). Tokens are separated by runs of spaces or tabs, as OpenTSDB's own
// telnet parser splits them; blank lines are skipped; CRLF is fine. Runtime-agnostic.

import { UserError } from '../core/errors.js';
import type { TimeUnit } from '../core/precision.js';
import { ValueType } from '../core/write-batch.js';
import { OpenTsdbTimestamps } from './opentsdb-timestamp.js';
import { clip, locate } from './parse-errors.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';

export interface OpenTsdbOptions {
  /** The request's `precision` parameter; undefined applies OpenTSDB's 10/13-digit rule. */
  precision: TimeUnit | undefined;
  /** The database precision. */
  dbUnit: TimeUnit;
}

/** An integer or decimal number, optionally with an exponent; no NaN or Infinity. */
export const OPENTSDB_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

const utf8 = new TextDecoder('utf-8', { fatal: true });
const SEPARATOR = /[ \t]+/;

/** Parses a whole body. Throws UserError 'openTsdbText' (400) naming the line on bad input. */
export function parseOpenTsdbText(body: Uint8Array, options: OpenTsdbOptions): Uint8Array[] {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new UserError('openTsdbText', 'the body is not valid UTF-8');
  }
  const timestamps = new OpenTsdbTimestamps(options.precision, options.dbUnit);
  const out = new RowBatcher();
  const tags: Array<[string, string]> = [];
  const field: FieldInput = { name: 'value', type: ValueType.Double, value: 0 };
  const fields = [field];
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    let line = text.slice(start, end);
    start = end + 1;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const tokens = line.trim().split(SEPARATOR);
    if (tokens.length === 1 && tokens[0] === '') continue;
    const fail = (message: string): never => {
      throw new UserError('openTsdbText', `line ${lineNo}: ${message}`);
    };
    try {
      let i = tokens[0] === 'put' ? 1 : 0;
      if (tokens.length - i < 3) fail(`expected '<metric> <timestamp> <value> <tagk>=<tagv>...', found '${clip(line.trim())}'`);
      const metric = tokens[i++]!;
      const ts = timestamps.convert(tokens[i++]!);
      if (typeof ts === 'string') fail(ts);
      const valueText = tokens[i++]!;
      if (!OPENTSDB_NUMBER.test(valueText)) fail(`invalid value '${clip(valueText)}', expected an integer or decimal number`);
      const value = Number(valueText);
      if (!Number.isFinite(value)) fail(`value '${clip(valueText)}' is out of the range of a DOUBLE`);
      tags.length = 0;
      for (; i < tokens.length; i++) {
        const pair = tokens[i]!;
        const eq = pair.indexOf('=');
        if (eq <= 0 || eq === pair.length - 1) fail(`invalid tag '${clip(pair)}', expected <tagk>=<tagv>`);
        const k = pair.slice(0, eq);
        const v = pair.slice(eq + 1);
        for (const [k0, v0] of tags) if (k0 === k && v0 !== v) fail(`tag '${clip(k)}' is given twice with different values`);
        tags.push([k, v]);
      }
      field.value = value;
      out.add(metric, tags, ts as bigint, fields);
    } catch (e) {
      throw locate(e, `line ${lineNo}`, 'openTsdbText');
    }
  }
  return out.finish();
}
