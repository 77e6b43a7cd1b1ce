// The export stream of GET /api/v1/export (FORMAT.md §9): a magic and version, then frames of a
// kind byte and a length, the table's schema first, then whole segment files (§5), then an end
// frame whose absence tells a reader the stream was cut. Pure bytes, no Node imports: the browser
// sandbox decodes it with this file and opens the segments with the server's SegmentReader.

import { CorruptionError } from '../../core/errors.js';
import type { ColumnDef } from '../../meta/catalog.js';

export const EXPORT_MAGIC = 'SDXP';
export const EXPORT_VERSION = 1;
/** The media type of the answer. */
export const EXPORT_MEDIA_TYPE = 'application/vnd.sundial.export';

export const FRAME_END = 0;
export const FRAME_SCHEMA = 1;
export const FRAME_SEGMENT = 2;

const PREAMBLE_BYTES = 8;
const FRAME_HEADER_BYTES = 5;

/** The schema frame: the table as the server's catalog holds it (ids are what the segments use). */
export interface ExportSchema {
  version: number;
  database: string;
  table: string;
  /** The database precision ('NS', 'US', 'MS'): the unit of every timestamp of the segments. */
  precision: 'NS' | 'US' | 'MS';
  tableId: number;
  tags: ColumnDef[];
  fields: ColumnDef[];
  timeCodec: string;
  /** The requested range, [start, end) in nanoseconds since the epoch as decimal text; null: open. */
  start: string | null;
  end: string | null;
}

/** The end frame: what was sent, so a reader can check it got everything. */
export interface ExportEnd {
  rows: number;
  segments: number;
}

export function exportPreamble(): Uint8Array {
  const b = new Uint8Array(PREAMBLE_BYTES);
  b.set(new TextEncoder().encode(EXPORT_MAGIC), 0);
  new DataView(b.buffer).setUint32(4, EXPORT_VERSION, true);
  return b;
}

export function frameHeader(kind: number, length: number): Uint8Array {
  const b = new Uint8Array(FRAME_HEADER_BYTES);
  b[0] = kind;
  new DataView(b.buffer).setUint32(1, length, true);
  return b;
}

export function jsonFrame(kind: number, value: unknown): Uint8Array[] {
  const payload = new TextEncoder().encode(JSON.stringify(value));
  return [frameHeader(kind, payload.length), payload];
}

export interface DecodedExport {
  schema: ExportSchema;
  /** Each a whole segment file, a view into the input. */
  segments: Uint8Array[];
  end: ExportEnd;
}

/** Splits an export stream into its frames; a CorruptionError names the offset and the check. */
export function decodeExport(bytes: Uint8Array, source = 'export stream'): DecodedExport {
  const fail = (offset: number, check: string): never => {
    throw new CorruptionError(source, offset, check);
  };
  if (bytes.length < PREAMBLE_BYTES || new TextDecoder().decode(bytes.subarray(0, 4)) !== EXPORT_MAGIC)
    fail(0, `no ${EXPORT_MAGIC} magic: not a Sundial export`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(4, true);
  if (version !== EXPORT_VERSION) fail(4, `export version ${version}, this reader reads ${EXPORT_VERSION}`);
  let schema: ExportSchema | undefined;
  const segments: Uint8Array[] = [];
  let end: ExportEnd | undefined;
  let at = PREAMBLE_BYTES;
  while (at < bytes.length) {
    if (end !== undefined) fail(at, 'bytes after the end frame');
    if (at + FRAME_HEADER_BYTES > bytes.length) fail(at, 'frame header cut short');
    const kind = bytes[at]!;
    const length = dv.getUint32(at + 1, true);
    const from = at + FRAME_HEADER_BYTES;
    if (from + length > bytes.length) fail(at, `frame of ${length} bytes cut short after ${bytes.length - from}`);
    const payload = bytes.subarray(from, from + length);
    if (kind === FRAME_SCHEMA) {
      if (schema !== undefined) fail(at, 'a second schema frame');
      schema = parseJson(payload, at, fail) as ExportSchema;
    } else if (kind === FRAME_SEGMENT) {
      if (schema === undefined) fail(at, 'a segment before the schema');
      segments.push(payload);
    } else if (kind === FRAME_END) {
      end = parseJson(payload, at, fail) as ExportEnd;
    } else {
      fail(at, `unknown frame kind ${kind}`);
    }
    at = from + length;
  }
  if (schema === undefined) fail(at, 'no schema frame');
  if (end === undefined) fail(at, 'no end frame: the export was cut short');
  if (end!.segments !== segments.length)
    fail(at, `the end frame counts ${end!.segments} segments, the stream has ${segments.length}`);
  return { schema: schema!, segments, end: end! };
}

function parseJson(payload: Uint8Array, at: number, fail: (offset: number, check: string) => never): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(payload));
  } catch (e) {
    return fail(at, `frame is not JSON: ${(e as Error).message}`);
  }
}
