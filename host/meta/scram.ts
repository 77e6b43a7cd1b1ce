// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL uses it: the stored verifier, in PostgreSQL's
// own text form `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, and the server side
// of the exchange. No verifier can be derived from the scrypt hash, so one is stored beside it
// whenever a password is set (catalog version 5). The verifier lets a thief of the catalog test
// guesses at PBKDF2's 4096 iterations instead of scrypt's cost: PostgreSQL's own trade-off.

import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { UserError } from '../core/errors.js';

export const SCRAM_MECHANISM = 'SCRAM-SHA-256';
/** PostgreSQL's default (scram_iterations). */
const ITERATIONS = 4096;
const SALT_BYTES = 16;
const NONCE_BYTES = 18;

export interface ScramVerifier {
  iterations: number;
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

function hmac(key: Buffer, text: string | Buffer): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/**
 * RFC 4013 SASLprep, reduced to what changes real passwords: non-ASCII spaces become spaces,
 * characters "commonly mapped to nothing" go, then NFKC. libpq prepares passwords so; for ASCII
 * passwords every step is the identity.
 */
export function saslPrep(password: string): string {
  return (
    password
      .replace(/[\u00A0\u1680\u2000-\u200B\u202F\u205F\u3000]/g, ' ')
      // biome-ignore lint/suspicious/noMisleadingCharacterClass: RFC 3454 B.1 lists these code points one by one
      .replace(/[\u00AD\u034F\u1806\u180B-\u180D\u200C\u200D\u2060\uFE00-\uFE0F\uFEFF]/g, '')
      .normalize('NFKC')
  );
}

function saltedPassword(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    pbkdf2(saslPrep(password), salt, iterations, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The verifier of `password` with a fresh salt, as stored in the catalog. */
export async function scramVerifier(
  password: string,
  salt = randomBytes(SALT_BYTES),
  iterations = ITERATIONS,
): Promise<string> {
  const salted = await saltedPassword(password, salt, iterations);
  const storedKey = sha256(hmac(salted, 'Client Key'));
  const serverKey = hmac(salted, 'Server Key');
  return `${SCRAM_MECHANISM}$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Parses a stored verifier; undefined when it is not one (then SCRAM is not offered). */
export function parseScramVerifier(text: string | undefined): ScramVerifier | undefined {
  const m =
    text === undefined
      ? null
      : /^SCRAM-SHA-256\$(\d+):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(text);
  if (m === null) return undefined;
  const v = {
    iterations: Number(m[1]),
    salt: Buffer.from(m[2]!, 'base64'),
    storedKey: Buffer.from(m[3]!, 'base64'),
    serverKey: Buffer.from(m[4]!, 'base64'),
  };
  return v.iterations > 0 && v.storedKey.length === 32 && v.serverKey.length === 32 ? v : undefined;
}

/** Whether `verifier` is that of `password` (the empty-password check of a loopback login). */
export async function scramMatches(password: string, v: ScramVerifier): Promise<boolean> {
  const salted = await saltedPassword(password, v.salt, v.iterations);
  return timingSafeEqual(sha256(hmac(salted, 'Client Key')), v.storedKey);
}

/**
 * A verifier that matches no password, with a salt that is the same for the same name on every
 * attempt: an unknown user goes through the whole exchange as a known one would (PostgreSQL's
 * mock authentication), so the answer does not tell which users exist.
 */
export function mockScramVerifier(user: string, secret: Buffer): ScramVerifier {
  return {
    iterations: ITERATIONS,
    salt: hmac(secret, `salt:${user}`).subarray(0, SALT_BYTES),
    storedKey: randomBytes(32),
    serverKey: randomBytes(32),
  };
}

const authFailed = (user: string): UserError =>
  new UserError('auth', `password authentication failed for user "${user}"`);
const malformed = (what: string): UserError => new UserError('pgProtocol', `malformed SCRAM message: ${what}`);

/** One server-side exchange: first() answers the client-first message, final() checks the proof. */
export class ScramExchange {
  readonly #user: string;
  readonly #v: ScramVerifier;
  #clientFirstBare = '';
  #serverFirst = '';
  #nonce = '';
  #gs2 = '';

  constructor(user: string, verifier: ScramVerifier) {
    this.#user = user;
    this.#v = verifier;
  }

  /** The server-first message for the client-first message. */
  first(clientFirst: string): string {
    // gs2-header: "n,," (no channel binding) or "y,," (client could but thinks we cannot).
    const m = /^([ny]),(?:a=[^,]*)?,(.*)$/.exec(clientFirst);
    if (m === null) {
      if (clientFirst.startsWith('p='))
        throw new UserError(
          'pgProtocol',
          'SCRAM channel binding is not supported (no TLS on this port); connect with channel_binding=disable or prefer',
        );
      throw malformed('client-first message without a gs2 header');
    }
    this.#gs2 = clientFirst.slice(0, clientFirst.length - m[2]!.length);
    this.#clientFirstBare = m[2]!;
    const nonce = /(?:^|,)r=([^,]+)/.exec(this.#clientFirstBare);
    if (nonce === null) throw malformed('client-first message without a nonce');
    this.#nonce = nonce[1]! + randomBytes(NONCE_BYTES).toString('base64');
    this.#serverFirst = `r=${this.#nonce},s=${this.#v.salt.toString('base64')},i=${this.#v.iterations}`;
    return this.#serverFirst;
  }

  /** The server-final message (`v=...`) when the proof holds; else UserError auth. */
  final(clientFinal: string): string {
    const m = /^c=([^,]*),r=([^,]*)(?:,.*)?,p=([A-Za-z0-9+/=]+)$/.exec(clientFinal);
    if (m === null) throw malformed('client-final message');
    if (Buffer.from(m[1]!, 'base64').toString('latin1') !== this.#gs2)
      throw malformed('channel binding does not match the gs2 header');
    if (m[2] !== this.#nonce) throw malformed('nonce does not match');
    const withoutProof = clientFinal.slice(0, clientFinal.lastIndexOf(',p='));
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`;
    const proof = Buffer.from(m[3]!, 'base64');
    if (proof.length !== 32) throw authFailed(this.#user);
    const signature = hmac(this.#v.storedKey, authMessage);
    const clientKey = Buffer.alloc(32);
    for (let i = 0; i < 32; i++) clientKey[i] = proof[i]! ^ signature[i]!;
    if (!timingSafeEqual(sha256(clientKey), this.#v.storedKey)) throw authFailed(this.#user);
    return `v=${hmac(this.#v.serverKey, authMessage).toString('base64')}`;
  }
}
