import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('Basic authentication', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ inProcess: true, env: { SUNDIAL_ROOT_PASSWORD: 'pa:ss:word' } });
  });
  afterAll(async () => {
    await server.stop();
    server.cleanup();
  });

  const rejected: Array<[string, string | undefined]> = [
    ['a missing header', undefined],
    ['an empty header', ''],
    ['another scheme', 'Bearer abc'],
    ['credentials that are not base64', 'Basic %%%'],
    ['base64 without a colon', `Basic ${b64('root')}`],
    ['base64 of invalid UTF-8', `Basic ${Buffer.from([0xff, 0x3a, 0x61]).toString('base64')}`],
    ['an unknown user', `Basic ${b64('nobody:pa:ss:word')}`],
    ['a wrong password', `Basic ${b64('root:pa:ss')}`],
    ['an empty password', `Basic ${b64('root:')}`],
    ['the password with a trailing space', `Basic ${b64('root:pa:ss:word ')}`],
  ];
  for (const [name, header] of rejected) {
    it(`answers 401 with WWW-Authenticate for ${name}`, async () => {
      const r = await http(server.url, '/api/v1/write', {
        method: 'POST',
        body: 'm f=1 1',
        auth: null,
        headers: header === undefined ? {} : { authorization: header },
      });
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toMatch(/^Basic realm="sundial"/);
      expect(r.headers['x-sundial-error-code']).toBe('010016');
      expect(r.body.length).toBe(0);
    });
  }

  it('accepts a password containing colons (split at the first colon)', async () => {
    const r = await http(server.url, '/api/v1/write', {
      body: 'm f=1 1',
      auth: { user: 'root', password: 'pa:ss:word' },
    });
    expect(r.status).toBe(200);
    expect(r.body.length).toBe(0);
  });

  it('accepts the scheme name in any case', async () => {
    const r = await http(server.url, '/api/v1/write', {
      body: 'm f=1 1',
      auth: null,
      headers: { authorization: `basic ${b64('root:pa:ss:word')}` },
    });
    expect(r.status).toBe(200);
  });

  it('answers an unknown user, a wrong password (also for a user without one) and a dropped user alike', async () => {
    const root = { user: 'root', password: 'pa:ss:word' };
    for (const stmt of [
      "CREATE USER known WITH PASSWORD = 'right'",
      'CREATE USER nopass',
      "CREATE USER gone WITH PASSWORD = 'right'",
      'DROP USER gone',
    ]) {
      expect((await http(server.url, '/api/v1/sql', { method: 'POST', body: stmt, auth: root })).status).toBe(200);
    }
    const answers = await Promise.all(
      [
        ['ghost', 'right'],
        ['known', 'wrong'],
        ['nopass', 'right'],
        ['gone', 'right'],
      ].map(async ([user, password]) => {
        const r = await http(server.url, '/api/v1/sql', {
          method: 'POST',
          body: 'SELECT 1',
          auth: { user: user!, password: password! },
        });
        return [
          r.status,
          r.headers['www-authenticate'],
          r.headers['x-sundial-error-code'],
          r.text.replace(`'${user}'`, "'U'"),
        ];
      }),
    );
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual([
      401,
      'Basic realm="sundial", charset="UTF-8"',
      '010016',
      `{"error_code":"010016","error_message":"Access denied for user 'U': username or password invalid"}`,
    ]);
  });

  it('does not ask ping for credentials', async () => {
    expect((await http(server.url, '/api/v1/ping', { auth: null })).status).toBe(200);
  });
});

describe('listening address', () => {
  it('refuses a non-loopback address while the root password is empty', async () => {
    await expect(startServer({ args: ['--host', '0.0.0.0'] })).rejects.toThrow(
      /exited with 2.*set auth\.root_password \(SUNDIAL_ROOT_PASSWORD\) or listen on 127\.0\.0\.1/,
    );
  });

  it('tells the operator of an existing catalog to set the password with ALTER USER, which auth.root_password cannot', async () => {
    const first = await startServer();
    try {
      expect(await first.stop()).toBe(0);
      // The setting is given, but the catalog already exists with root's empty password.
      const refused = startServer({
        dataDir: first.dataDir,
        args: ['--host', '0.0.0.0'],
        env: { SUNDIAL_ROOT_PASSWORD: 'secret' },
      });
      await expect(refused).rejects.toThrow(
        /exited with 2.*already exists, and auth\.root_password \(SUNDIAL_ROOT_PASSWORD\) applies only to a new catalog: start on 127\.0\.0\.1 and run ALTER USER root SET PASSWORD = '\.\.\.', then listen on 0\.0\.0\.0/,
      );
    } finally {
      first.cleanup();
    }
  });
});
