// Backend messages of protocol v3, written into one growable buffer that the connection sends
// (and empties) at each flush point: many small messages (ParseComplete, BindComplete, a
// RowDescription, rows, CommandComplete, ReadyForQuery) leave in one socket write.

import { ByteSink, utf8Bytes } from '../engine/types/index.js';

/** A column of a RowDescription. */
export interface FieldDescription {
  name: string;
  typeOid: number;
  /** pg_type.typlen: bytes of a fixed-size type, -1 for variable size. */
  typeSize: number;
  /** 0 text, 1 binary. */
  format: number;
}

/** ErrorResponse / NoticeResponse fields (protocol-error-fields.html). */
export interface NoticeFields {
  severity: 'ERROR' | 'FATAL' | 'WARNING' | 'NOTICE';
  code: string;
  message: string;
  detail?: string;
  hint?: string;
}

export class MessageWriter {
  readonly sink = new ByteSink(1 << 14);
  #start = -1;

  /** Starts a message: the type byte and room for its length. */
  begin(type: number): void {
    if (this.#start >= 0) throw new Error('BUG: a message begun inside another');
    const s = this.sink;
    s.reserve(5);
    s.buf[s.pos] = type;
    this.#start = s.pos + 1;
    s.pos += 5;
  }

  /** Ends the message begun last, writing its length. */
  end(): void {
    const s = this.sink;
    const len = s.pos - this.#start;
    const b = s.buf;
    const at = this.#start;
    b[at] = len >>> 24;
    b[at + 1] = (len >>> 16) & 0xff;
    b[at + 2] = (len >>> 8) & 0xff;
    b[at + 3] = len & 0xff;
    this.#start = -1;
  }

  int16(v: number): void {
    const s = this.sink;
    s.reserve(2);
    s.buf[s.pos++] = (v >>> 8) & 0xff;
    s.buf[s.pos++] = v & 0xff;
  }

  int32(v: number): void {
    const s = this.sink;
    s.reserve(4);
    const b = s.buf;
    b[s.pos++] = (v >>> 24) & 0xff;
    b[s.pos++] = (v >>> 16) & 0xff;
    b[s.pos++] = (v >>> 8) & 0xff;
    b[s.pos++] = v & 0xff;
  }

  /** A string and its NUL; a NUL inside it is dropped (no field may hold one). */
  cstring(v: string): void {
    this.sink.utf8(v.includes('\0') ? v.replaceAll('\0', '') : v);
    this.sink.byte(0);
  }

  bytes(b: Uint8Array): void {
    this.sink.bytes(b);
  }

  /** Bytes written since the last take, and empties the buffer. */
  take(): Uint8Array {
    if (this.#start >= 0) throw new Error('BUG: take() inside a message');
    return this.sink.take();
  }

  get size(): number {
    return this.sink.pos;
  }

  // ---- whole messages

  authentication(code: number, data?: Uint8Array): void {
    this.begin(0x52); // 'R'
    this.int32(code);
    if (data !== undefined) this.bytes(data);
    this.end();
  }

  /** AuthenticationSASL: the mechanisms offered. */
  authenticationSasl(mechanisms: readonly string[]): void {
    this.begin(0x52);
    this.int32(10);
    for (const m of mechanisms) this.cstring(m);
    this.sink.byte(0);
    this.end();
  }

  parameterStatus(name: string, value: string): void {
    this.begin(0x53); // 'S'
    this.cstring(name);
    this.cstring(value);
    this.end();
  }

  backendKeyData(pid: number, secret: number): void {
    this.begin(0x4b); // 'K'
    this.int32(pid);
    this.int32(secret);
    this.end();
  }

  /** 'I' idle, 'T' in a transaction block, 'E' in a failed one. */
  readyForQuery(status: 'I' | 'T' | 'E'): void {
    this.begin(0x5a); // 'Z'
    this.sink.byte(status.charCodeAt(0));
    this.end();
  }

  rowDescription(fields: readonly FieldDescription[]): void {
    this.begin(0x54); // 'T'
    this.int16(fields.length);
    for (const f of fields) {
      this.cstring(f.name);
      this.int32(0); // table oid
      this.int16(0); // column number
      this.int32(f.typeOid);
      this.int16(f.typeSize);
      this.int32(-1); // type modifier
      this.int16(f.format);
    }
    this.end();
  }

  parameterDescription(oids: readonly number[]): void {
    this.begin(0x74); // 't'
    this.int16(oids.length);
    for (const o of oids) this.int32(o);
    this.end();
  }

  commandComplete(tag: string): void {
    this.begin(0x43); // 'C'
    this.cstring(tag);
    this.end();
  }

  /** A message without a body: ParseComplete '1', BindComplete '2', CloseComplete '3', NoData 'n', PortalSuspended 's', EmptyQueryResponse 'I'. */
  empty(type: number): void {
    this.begin(type);
    this.end();
  }

  notice(type: 0x45 | 0x4e, f: NoticeFields): void {
    this.begin(type); // 'E' ErrorResponse, 'N' NoticeResponse
    const field = (code: string, value: string | undefined): void => {
      if (value === undefined) return;
      this.sink.byte(code.charCodeAt(0));
      this.cstring(value);
    };
    field('S', f.severity);
    field('V', f.severity);
    field('C', f.code);
    field('M', f.message);
    field('D', f.detail);
    field('H', f.hint);
    this.sink.byte(0);
    this.end();
  }

  /** NegotiateProtocolVersion: the newest minor version served and the options not recognised. */
  negotiateProtocolVersion(minor: number, unrecognized: readonly string[]): void {
    this.begin(0x76); // 'v'
    this.int32(minor);
    this.int32(unrecognized.length);
    for (const o of unrecognized) this.cstring(o);
    this.end();
  }
}

export const SINGLE_N = utf8Bytes('N');
