// How a PostgreSQL login proves who it is, against the same users as HTTP Basic (auth.ts):
// - a user whose password is empty logs in without being asked for one, on a loopback listener
//   only (HTTP accepts the empty password there too; elsewhere it is refused, as over HTTP);
// - a user with a SCRAM-SHA-256 verifier (catalog version 5) proves it with SCRAM, and so does a
//   user that does not exist (against a mock verifier, failing at the end as PostgreSQL does), so
//   that the exchange does not tell which users exist;
// - a user saved before version 5 (no verifier) sends the password in clear text, checked with
//   scrypt as a Basic header is: the port has no TLS, so use it on loopback or a trusted network.
// Whether a stored password is the empty one costs a hash; the answer is kept per stored hash,
// which a password change replaces.

import { randomBytes } from 'node:crypto';
import {
  type Authenticator,
  mockScramVerifier,
  parseScramVerifier,
  ScramExchange,
  scramMatches,
  type UserDef,
  verifyPassword,
} from '../meta/index.js';

export type AuthPlan =
  | { kind: 'trust'; user: UserDef }
  | { kind: 'cleartext' }
  | { kind: 'scram'; exchange: ScramExchange };

const CACHE_LIMIT = 10_000;
/** The mock verifiers' salt key: per process, so unknown users' salts differ between servers. */
const MOCK_SECRET = randomBytes(32);

export class PgAuth {
  readonly #authenticator: Authenticator;
  readonly #allowEmptyPassword: boolean;
  /** stored hash or verifier -> whether it is the empty password's */
  readonly #empty = new Map<string, boolean>();

  constructor(authenticator: Authenticator, allowEmptyPassword: boolean) {
    this.#authenticator = authenticator;
    this.#allowEmptyPassword = allowEmptyPassword;
  }

  async #isEmptyPassword(u: UserDef): Promise<boolean> {
    if (u.passwordHash === '') return true;
    const key = u.scramVerifier !== '' ? u.scramVerifier : u.passwordHash;
    const known = this.#empty.get(key);
    if (known !== undefined) return known;
    const v = parseScramVerifier(u.scramVerifier);
    const empty = v !== undefined ? await scramMatches('', v) : await verifyPassword('', u.passwordHash);
    if (this.#empty.size >= CACHE_LIMIT) this.#empty.clear();
    this.#empty.set(key, empty);
    return empty;
  }

  async plan(name: string, user: UserDef | undefined): Promise<AuthPlan> {
    if (user !== undefined && this.#allowEmptyPassword && (await this.#isEmptyPassword(user)))
      return { kind: 'trust', user };
    if (user === undefined)
      return { kind: 'scram', exchange: new ScramExchange(name, mockScramVerifier(name, MOCK_SECRET)) };
    const v = parseScramVerifier(user.scramVerifier);
    if (v !== undefined) {
      // A non-loopback listener refuses the empty password: its verifier must not log in.
      if (!this.#allowEmptyPassword && (await this.#isEmptyPassword(user)))
        return { kind: 'scram', exchange: new ScramExchange(name, mockScramVerifier(name, MOCK_SECRET)) };
      return { kind: 'scram', exchange: new ScramExchange(name, v) };
    }
    return { kind: 'cleartext' };
  }

  /** The user if `password` is theirs (UserError auth otherwise): the cleartext method. */
  verifyCleartext(name: string, password: string): Promise<UserDef> {
    return this.#authenticator.verify(name, password);
  }
}
