// Loki push bodies (`/loki/api/v1/push`, `/api/v1/es/_bulk?log_type=loki`) -> rows: one row per
// entry, time = the entry's timestamp (ns), the line in column `msg`, every stream label (and Loki
// 3 structured metadata) a column of its own, tag or field by `tag_columns` like any log column
// (CONTRACT.md "Writes"; CnosDB instead flattens the JSON document whole). Two encodings, as
// Promtail and Grafana Agent send them: JSON `{"streams":[{"stream":{...},"values":[["<ns>",
// "<line>"],...]}]}` and protobuf `logproto.PushRequest` (the snappy framing is undone by the
// route). Runtime-agnostic.

import protobuf from 'protobufjs';
import { UserError } from '../core/errors.js';
import { LogRowWriter, type LogOptions } from './log-documents.js';
import { EntryTimes, type SeriesRange, type Slot } from './loki-entry-times.js';
import { clip, describe } from './parse-errors.js';
import { parseLabelSet } from './prometheus-labels.js';
import { decodeMessage, int64ToBigInt, type Int64 } from './protobuf-values.js';

/**
 * The messages of grafana/loki pkg/push/push.proto that clients send, without the gogoproto
 * options; google.protobuf.Timestamp is declared locally with its wire layout.
 */
const PUSH_PROTO = `
syntax = "proto3";
package logproto;
message PushRequest { repeated StreamAdapter streams = 1; string format = 2; }
message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
message LabelPairAdapter { string name = 1; string value = 2; }
message EntryAdapter { Timestamp timestamp = 1; string line = 2; repeated LabelPairAdapter structuredMetadata = 3; }
message Timestamp { int64 seconds = 1; int32 nanos = 2; }
`;

export const LOKI_PUSH_REQUEST = protobuf.parse(PUSH_PROTO, { keepCase: true }).root.lookupType('logproto.PushRequest');

interface PushMessage {
  streams: Array<{
    labels: string;
    entries: Array<{
      timestamp: { seconds: Int64; nanos: number } | null;
      line: string;
      structuredMetadata: Array<{ name: string; value: string }>;
    }>;
  }>;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const NS_DIGITS = /^-?\d{1,19}$/;

/** The rows of a push body, and the series and times they took (loki-entry-times.ts). */
export interface LokiRows {
  batches: Uint8Array[];
  ranges: SeriesRange[];
}

/**
 * Parses a Loki JSON push body; `seed` are occupied slots its entries must go beside. Throws
 * UserError 'logParse' naming the stream and entry.
 */
export function parseLokiJson(body: Uint8Array, options: LogOptions, seed: readonly Slot[] = []): LokiRows {
  let doc: unknown;
  try {
    doc = JSON.parse(utf8.decode(body));
  } catch (e) {
    throw new UserError('logParse', `the body is not valid JSON: ${(e as Error).message}`);
  }
  const streams = (doc as { streams?: unknown } | null)?.streams;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || !Array.isArray(streams)) {
    throw new UserError('logParse', `a Loki push body is an object with a 'streams' array, found ${describe(doc)}`);
  }
  const times = new EntryTimes(seed);
  const writer = new LogRowWriter(options, times);
  const columns: Array<[string, unknown]> = [];
  streams.forEach((stream: unknown, s) => {
    const where = `streams[${s}]`;
    const labels = (stream as { stream?: unknown } | null)?.stream ?? {};
    const values = (stream as { values?: unknown } | null)?.values;
    if (typeof labels !== 'object' || labels === null || Array.isArray(labels))
      throw new UserError('logParse', `${where}.stream: expected an object of labels, found ${describe(labels)}`);
    if (!Array.isArray(values))
      throw new UserError(
        'logParse',
        `${where}.values: expected an array of [timestamp, line] pairs, found ${describe(values)}`,
      );
    const labelColumns = Object.entries(labels as Record<string, unknown>);
    for (const [k, v] of labelColumns)
      if (typeof v !== 'string')
        throw new UserError('logParse', `${where}.stream: label '${clip(k)}' must be a string, found ${describe(v)}`);
    values.forEach((entry: unknown, e) => {
      const at = `${where}.values[${e}]`;
      if (!Array.isArray(entry) || entry.length < 2 || entry.length > 3)
        throw new UserError(
          'logParse',
          `${at}: expected [timestamp, line] or [timestamp, line, metadata], found ${describe(entry)}`,
        );
      const [ts, line, meta] = entry as [unknown, unknown, unknown];
      const tsText = typeof ts === 'number' && Number.isSafeInteger(ts) ? String(ts) : ts;
      if (typeof tsText !== 'string' || !NS_DIGITS.test(tsText))
        throw new UserError('logParse', `${at}: the timestamp must be a string of nanoseconds, found ${describe(ts)}`);
      if (typeof line !== 'string')
        throw new UserError('logParse', `${at}: the log line must be a string, found ${describe(line)}`);
      columns.length = 0;
      columns.push(['msg', line], ...labelColumns);
      if (meta !== undefined) {
        if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
          throw new UserError('logParse', `${at}: structured metadata must be an object, found ${describe(meta)}`);
        for (const [k, v] of Object.entries(meta as Record<string, unknown>)) {
          if (typeof v !== 'string')
            throw new UserError(
              'logParse',
              `${at}: structured metadata '${clip(k)}' must be a string, found ${describe(v)}`,
            );
          columns.push([k, v]);
        }
      }
      writer.addColumns(columns, BigInt(tsText), at);
    });
  });
  return { batches: writer.finish(), ranges: times.ranges() };
}

/** Parses a (snappy-decoded) Loki protobuf PushRequest, as parseLokiJson. Throws 'protobuf' or 'logParse'. */
export function parseLokiProtobuf(message: Uint8Array, options: LogOptions, seed: readonly Slot[] = []): LokiRows {
  const req = decodeMessage<PushMessage>(LOKI_PUSH_REQUEST, message, 'Loki PushRequest');
  const times = new EntryTimes(seed);
  const writer = new LogRowWriter(options, times);
  const columns: Array<[string, unknown]> = [];
  req.streams.forEach((stream, s) => {
    const labels = parseLabelSet(stream.labels);
    if (typeof labels === 'string') throw new UserError('logParse', `streams[${s}].labels: ${labels}`);
    stream.entries.forEach((entry, e) => {
      const ts =
        entry.timestamp === null
          ? 0n
          : int64ToBigInt(entry.timestamp.seconds) * 1_000_000_000n + BigInt(entry.timestamp.nanos);
      columns.length = 0;
      columns.push(['msg', entry.line], ...labels);
      for (const { name, value } of entry.structuredMetadata) columns.push([name, value]);
      writer.addColumns(columns, ts, `streams[${s}].entries[${e}]`);
    });
  });
  return { batches: writer.finish(), ranges: times.ranges() };
}
