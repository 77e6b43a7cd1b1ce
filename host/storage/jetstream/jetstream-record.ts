// The framing of a WAL record as a JetStream message (FORMAT.md §2, "In NATS JetStream"): a
// 24-byte header, then the payload of the file WAL's record of the same type. A request split by
// vnode is several messages with one (writer, request) pair; replay applies it only when all are there.

export const JS_RECORD_MAGIC = 0x31574a53; // "SJW1"
export const JS_HEADER_BYTES = 24;

export interface JsRecordHeader {
  type: number;
  parts: number;
  index: number;
  /** Random per server process, so that two processes' request numbers never collide. */
  writer: number;
  request: number;
}

export function encodeJsRecord(h: JsRecordHeader, payload: readonly Uint8Array[]): Uint8Array {
  let n = JS_HEADER_BYTES;
  for (const p of payload) n += p.length;
  const out = new Uint8Array(n);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, JS_RECORD_MAGIC, true);
  dv.setUint8(4, h.type);
  dv.setUint16(6, h.parts, true);
  dv.setUint16(8, h.index, true);
  dv.setUint32(12, h.writer, true);
  dv.setFloat64(16, h.request, true);
  let at = JS_HEADER_BYTES;
  for (const p of payload) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The header, or a reason why the message is no Sundial record. */
export function decodeJsRecord(data: Uint8Array): JsRecordHeader | string {
  if (data.length < JS_HEADER_BYTES) return `${data.length} bytes, shorter than the ${JS_HEADER_BYTES}-byte header`;
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (dv.getUint32(0, true) !== JS_RECORD_MAGIC) return 'bad magic';
  const h = {
    type: dv.getUint8(4),
    parts: dv.getUint16(6, true),
    index: dv.getUint16(8, true),
    writer: dv.getUint32(12, true),
    request: dv.getFloat64(16, true),
  };
  if (h.parts === 0 || h.index >= h.parts) return `part ${h.index} of ${h.parts}`;
  return h;
}

/** The payload copied to a buffer of its own, so that it is 8-aligned (write batches need it). */
export function jsRecordPayload(data: Uint8Array): Uint8Array {
  return new Uint8Array(data.subarray(JS_HEADER_BYTES));
}
