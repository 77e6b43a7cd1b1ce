// OpenTSDB's HTTP `/api/put` JSON (one data point object, or an array of them:
// `{"metric","timestamp","value","tags"}`) -> write batches, mapped like the text form: table
// <metric>, tags from `tags` (at least one), one DOUBLE field `value`, the same timestamp rule. As OpenTSDB
// does, `value` may also be a numeric string and `timestamp` an integer string; other keys are
// ignored. Runtime-agnostic.

import { UserError } from '../core/errors.js';
import { ValueType } from '../core/write-batch.js';
import { OpenTsdbTimestamps } from './opentsdb-timestamp.js';
import { OPENTSDB_NUMBER, type OpenTsdbOptions } from './opentsdb-text.js';
import { clip, describe, locate } from './parse-errors.js';
import { RowBatcher, type FieldInput } from './row-batcher.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface OpenTsdbJsonResult {
  batches: Uint8Array[];
  /** Data points in the body. */
  points: number;
}

/** Parses a whole body. Throws UserError 'openTsdbJson' (400) naming the data point. */
export function parseOpenTsdbJson(body: Uint8Array, options: OpenTsdbOptions): OpenTsdbJsonResult {
  let doc: unknown;
  try {
    doc = JSON.parse(utf8.decode(body));
  } catch (e) {
    throw new UserError('openTsdbJson', `the body is not valid JSON: ${(e as Error).message}`);
  }
  const points = Array.isArray(doc) ? doc : [doc];
  const timestamps = new OpenTsdbTimestamps(options.precision, options.dbUnit);
  const out = new RowBatcher();
  const field: FieldInput = { name: 'value', type: ValueType.Double, value: 0 };
  const fields = [field];
  const tags: Array<[string, string]> = [];
  for (let n = 0; n < points.length; n++) {
    const where = Array.isArray(doc) ? `data point ${n}` : 'data point';
    const fail = (message: string): never => {
      throw new UserError('openTsdbJson', `${where}: ${message}`);
    };
    try {
      const p = points[n] as Record<string, unknown>;
      if (typeof p !== 'object' || p === null || Array.isArray(p)) fail(`expected an object, found ${describe(p)}`);
      const { metric, timestamp, value, tags: tagObject } = p;
      if (typeof metric !== 'string' || metric === '')
        fail(`'metric' must be a non-empty string, found ${describe(metric)}`);
      let ts: bigint | string;
      if (typeof timestamp === 'number') {
        if (!Number.isSafeInteger(timestamp)) fail(`'timestamp' must be an integer, found ${describe(timestamp)}`);
        ts = timestamps.convert(String(timestamp));
      } else if (typeof timestamp === 'string') {
        ts = timestamps.convert(timestamp);
      } else {
        ts = fail(`'timestamp' must be an integer, found ${describe(timestamp)}`);
      }
      if (typeof ts === 'string') fail(ts);
      let v: number;
      if (typeof value === 'number') v = value;
      else if (typeof value === 'string' && OPENTSDB_NUMBER.test(value)) v = Number(value);
      else v = fail(`'value' must be a number, found ${describe(value)}`);
      if (!Number.isFinite(v)) fail(`'value' ${clip(String(value))} is out of the range of a DOUBLE`);
      tags.length = 0;
      if (typeof tagObject !== 'object' || tagObject === null || Array.isArray(tagObject))
        fail(`'tags' must be an object, found ${describe(tagObject)}`);
      for (const [k, tv] of Object.entries(tagObject as Record<string, unknown>)) {
        if (typeof tv !== 'string' || tv === '')
          fail(`tag '${clip(k)}' must have a non-empty string value, found ${describe(tv)}`);
        tags.push([k, tv as string]);
      }
      // The interface document: a point has "one or more tag pairs".
      if (tags.length === 0) fail("'tags' must hold at least one tag");
      field.value = v;
      out.add(metric as string, tags, ts as bigint, fields);
    } catch (e) {
      throw locate(e, where, 'openTsdbJson');
    }
  }
  return { batches: out.finish(), points: points.length };
}
