// Checks a user's password against the catalog, for HTTP Basic and PostgreSQL logins alike. An
// unknown user costs the same scrypt time as a wrong password (measured in bench/auth.ts). A user
// created without a password has the empty password, as `root` has on a fresh server and as
// CnosDB's users do; a server that listens beyond loopback refuses every empty password
// (`allowEmptyPassword: false`), the rule that already keeps it from starting there while root's
// password is empty. A cache keyed by a SHA-256 of the credentials spares the hot write path one
// scrypt per request; an entry holds the stored hash it was verified against and counts only
// while the user still has that hash, so a password change (new salt, new hash), a dropped user
// or a renamed one never authenticates from the cache; `forget` also drops such entries at once.

import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { UserError } from '../core/errors.js';
import type { Catalog, UserDef } from './catalog.js';
import { DUMMY_HASH_PROMISE, EMPTY_HASH_PROMISE, isPasswordHash, verifyPassword } from './password.js';

const CACHE_LIMIT = 10_000;
/**
 * scrypt hashes computed at once: all cores but the event loop's, so that a flood of guesses
 * cannot take the CPU that cached logins and queries need. Measured with bench/auth.ts on 2
 * cores and 4 guessing clients: valid cached logins served in 3 s fell from 2474 alone to 1363
 * under the flood without a cap, to 1956 (of 2396) with one hash at a time; guesses also slow
 * down (31 instead of ~100 in those 3 s).
 */
const MAX_HASHING = Math.max(1, availableParallelism() - 1);

export interface AuthenticatorOptions {
  /** Whether an empty password may log in (only while listening on loopback). */
  allowEmptyPassword: boolean;
}

export class Authenticator {
  readonly #catalog: Catalog;
  readonly #allowEmptyPassword: boolean;
  /** credential digest -> the stored hash it was verified against */
  readonly #cache = new Map<string, { user: string; passwordHash: string }>();

  /** scrypt computations running, and logins waiting for one (MAX_HASHING). */
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(catalog: Catalog, options: AuthenticatorOptions) {
    this.#catalog = catalog;
    this.#allowEmptyPassword = options.allowEmptyPassword;
  }

  async #slot(): Promise<void> {
    if (this.#running < MAX_HASHING) {
      this.#running++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else this.#running--;
  }

  /** The user if `password` is theirs (a Basic header's pair, a PostgreSQL cleartext password); else UserError('auth'). */
  async verify(user: string, password: string): Promise<UserDef> {
    const digest = createHash('sha256').update(user).update('\0').update(password).digest('base64');
    const found = this.#catalog.users.get(user);
    const cached = this.#cache.get(digest);
    if (
      found !== undefined &&
      cached !== undefined &&
      cached.user === user &&
      cached.passwordHash === found.passwordHash
    )
      return found;

    // No stored password is the empty one; it is still checked by scrypt, so that every login
    // costs the same whether the user has a password or not.
    const stored =
      found === undefined ? undefined : found.passwordHash === '' ? await EMPTY_HASH_PROMISE : found.passwordHash;
    const usable = stored !== undefined && isPasswordHash(stored) && (password !== '' || this.#allowEmptyPassword);
    await this.#slot();
    let ok: boolean;
    try {
      ok = await verifyPassword(password, usable ? stored : await DUMMY_HASH_PROMISE);
    } finally {
      this.#release();
    }
    if (!ok || !usable || found === undefined) {
      throw new UserError('auth', `Access denied for user '${user}': username or password invalid`);
    }
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(digest, { user, passwordHash: found.passwordHash });
    return found;
  }

  /** Drops the cached logins of a user (its password changed, or it was dropped or renamed). */
  forget(user: string): void {
    for (const [digest, entry] of this.#cache) if (entry.user === user) this.#cache.delete(digest);
  }

  /** Cached logins (tests). */
  get cacheSize(): number {
    return this.#cache.size;
  }
}
