// The Authenticator on its own: which credentials log in, for a user with a password and one
// created without (the empty password), on a loopback server and on one listening beyond it.

import { describe, expect, it } from 'vitest';
import { authenticate } from '../../host/server/auth.js';
import { Authenticator } from '../../host/meta/authenticator.js';
import { hashPassword } from '../../host/meta/password.js';
import { Catalog } from '../../host/meta/catalog.js';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function catalog(): Promise<Catalog> {
  const c = new Catalog();
  c.addUser({
    id: 101,
    name: 'pw',
    passwordHash: await hashPassword('secret'),
    admin: false,
    scramVerifier: '',
    mustChangePassword: false,
    comment: '',
  });
  c.addUser({
    id: 102,
    name: 'nopw',
    passwordHash: '',
    admin: false,
    scramVerifier: '',
    mustChangePassword: false,
    comment: '',
  });
  return c;
}

async function outcome(auth: Authenticator, user: string, password: string): Promise<string> {
  try {
    return `ok ${(await authenticate(auth, basic(user, password))).name}`;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('Authenticator', () => {
  it('on loopback: a user without a password logs in with the empty one, and only with it', async () => {
    const auth = new Authenticator(await catalog(), { allowEmptyPassword: true });
    expect(await outcome(auth, 'nopw', '')).toBe('ok nopw');
    expect(await outcome(auth, 'nopw', 'x')).toBe("Access denied for user 'nopw': username or password invalid");
    expect(await outcome(auth, 'pw', 'secret')).toBe('ok pw');
    expect(await outcome(auth, 'pw', '')).toBe("Access denied for user 'pw': username or password invalid");
    expect(await outcome(auth, 'ghost', '')).toBe("Access denied for user 'ghost': username or password invalid");
  });

  it('beyond loopback: no empty password logs in, not even from the login cache', async () => {
    const c = await catalog();
    const open = new Authenticator(c, { allowEmptyPassword: true });
    expect(await outcome(open, 'nopw', '')).toBe('ok nopw');
    const strict = new Authenticator(c, { allowEmptyPassword: false });
    expect(await outcome(strict, 'nopw', '')).toBe("Access denied for user 'nopw': username or password invalid");
    expect(await outcome(strict, 'nopw', '')).toBe("Access denied for user 'nopw': username or password invalid");
    expect(await outcome(strict, 'pw', 'secret')).toBe('ok pw');
  });
});
