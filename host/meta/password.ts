// Password hashing with scrypt and a per-user salt, compared in constant time. The stored form
// is "scrypt$N$r$p$salt$hash" (base64), so parameters can be raised later without a migration.

import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// N = 2^14, r = 8, p = 1: OWASP's minimum for scrypt; ~30 ms per hash on this machine class.
const N = 16384;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_BYTES, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `stored` is a hash this module wrote (a user created without a password has none: ''). */
export function isPasswordHash(stored: string): boolean {
  const parts = stored.split('$');
  return parts.length === 6 && parts[0] === 'scrypt' && parts[5] !== '';
}

/** True when `password` matches `stored`. A malformed `stored` never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, 'base64');
  const want = Buffer.from(parts[5]!, 'base64');
  if (want.length === 0) return false;
  const got = await scrypt(password, salt, want.length, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 });
  return timingSafeEqual(got, want);
}

/** The hash a user without a stored password is checked against: that of the empty password. */
export const EMPTY_HASH_PROMISE: Promise<string> = hashPassword('');
/** A hash of a random password, checked against for unknown users so they cost the same time. */
export const DUMMY_HASH_PROMISE: Promise<string> = hashPassword(randomBytes(16).toString('hex'));
