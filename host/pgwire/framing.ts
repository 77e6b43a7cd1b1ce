// PostgreSQL wire protocol v3 framing (postgresql.org/docs/current/protocol-message-formats.html):
// the untyped startup packet (int32 length, then the body), then typed messages (a type byte,
// an int32 length that counts itself, the body). The reader never trusts a length: a startup
// packet over 10,000 bytes (PostgreSQL's own MAX_STARTUP_PACKET_LENGTH) or a message over the
// cap is refused from its header, before its body is buffered.

import { UserError } from '../core/errors.js';

/** PostgreSQL's limit on a startup packet (src/include/libpq/pqcomm.h). */
export const MAX_STARTUP_BYTES = 10_000;

const EMPTY = Buffer.alloc(0);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A protocol violation: answered with SQLSTATE 08P01 (or `sqlState`), then the connection closes. */
export function protocolError(message: string): UserError {
  return new UserError('pgProtocol', message);
}

export interface Message {
  /** The type byte ('Q' is 81). */
  type: number;
  body: Buffer;
}

/** Accumulates socket chunks and cuts them into packets. */
export class MessageReader {
  readonly #maxMessageBytes: number;
  #buf: Buffer = EMPTY;
  #pos = 0;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  push(chunk: Buffer): void {
    if (this.#pos >= this.#buf.length) {
      this.#buf = chunk;
      this.#pos = 0;
      return;
    }
    this.#buf = Buffer.concat([this.#buf.subarray(this.#pos), chunk]);
    this.#pos = 0;
  }

  /** Bytes received and not yet cut into a packet. */
  get buffered(): number {
    return this.#buf.length - this.#pos;
  }

  /** The next startup packet's body (after its length), or null until it has fully arrived. */
  startup(): Buffer | null {
    if (this.buffered < 4) return null;
    const length = this.#buf.readInt32BE(this.#pos);
    if (length < 8 || length > MAX_STARTUP_BYTES)
      throw protocolError(`invalid length of startup packet: ${length} bytes (want 8 to ${MAX_STARTUP_BYTES})`);
    if (this.buffered < length) return null;
    const body = this.#buf.subarray(this.#pos + 4, this.#pos + length);
    this.#pos += length;
    return body;
  }

  /** The next typed message, or null until it has fully arrived. */
  message(): Message | null {
    if (this.buffered < 5) return null;
    const type = this.#buf[this.#pos]!;
    const length = this.#buf.readInt32BE(this.#pos + 1);
    if (length < 4) throw protocolError(`invalid message length ${length} for message type ${typeName(type)}`);
    if (length - 4 > this.#maxMessageBytes)
      throw new UserError(
        'bodyTooLarge',
        `message of type ${typeName(type)} is ${length - 4} bytes, over the limit of ${this.#maxMessageBytes} (limits.sql_body_bytes)`,
      );
    if (this.buffered < length + 1) return null;
    const body = this.#buf.subarray(this.#pos + 5, this.#pos + 1 + length);
    this.#pos += length + 1;
    return { type, body };
  }
}

/** A message type byte for messages: `'Q'`, or its number when not printable. */
export function typeName(type: number): string {
  return type >= 0x20 && type < 0x7f ? `'${String.fromCharCode(type)}'` : String(type);
}

/** Reads one message body; every read is bounds-checked (a short body is a protocol violation). */
export class BodyReader {
  readonly #buf: Buffer;
  #pos = 0;
  readonly #what: string;

  constructor(buf: Buffer, what: string) {
    this.#buf = buf;
    this.#what = what;
  }

  #need(n: number): void {
    if (this.#pos + n > this.#buf.length)
      throw protocolError(`${this.#what} message is too short: needs ${this.#pos + n} bytes, has ${this.#buf.length}`);
  }

  int16(): number {
    this.#need(2);
    const v = this.#buf.readInt16BE(this.#pos);
    this.#pos += 2;
    return v;
  }

  int32(): number {
    this.#need(4);
    const v = this.#buf.readInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  byte(): number {
    this.#need(1);
    return this.#buf[this.#pos++]!;
  }

  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.#buf.indexOf(0, this.#pos);
    if (end < 0) throw protocolError(`${this.#what} message has a string without its terminating NUL`);
    let s: string;
    try {
      s = utf8.decode(this.#buf.subarray(this.#pos, end));
    } catch {
      throw protocolError(`${this.#what} message has a string that is not valid UTF-8`);
    }
    this.#pos = end + 1;
    return s;
  }

  bytes(n: number): Buffer {
    if (n < 0) throw protocolError(`${this.#what} message has a negative length ${n}`);
    this.#need(n);
    const b = this.#buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return b;
  }

  get remaining(): number {
    return this.#buf.length - this.#pos;
  }

  /** Rejects trailing bytes (STYLE.md §16). */
  end(): void {
    if (this.#pos !== this.#buf.length)
      throw protocolError(`${this.#what} message has ${this.#buf.length - this.#pos} unexpected trailing bytes`);
  }
}
