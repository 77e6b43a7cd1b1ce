// Bad input on the PostgreSQL port: malformed startup packets, oversized messages, unknown message
// types, protocol violations, and seeded random and mutated byte streams. Each gets an
// ErrorResponse or a closed connection within a bound, never a crash or a hang: the server
// still answers a real client afterwards.

import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../support/rng.js';
import { startServer, type ProcessServer } from '../support/server.js';

/** Sends `bytes`, collects the reply until the server closes or 3 s pass. */
function exchange(port: number, bytes: Buffer): Promise<{ reply: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = connect(port, '127.0.0.1', () => s.write(bytes));
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ reply: Buffer.concat(chunks), closed: false });
    }, 3000);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve({ reply: Buffer.concat(chunks), closed: true });
    });
  });
}

const int32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const message = (type: string, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
function startup(params: Record<string, string>): Buffer {
  const body = Buffer.concat([
    int32(196608),
    ...Object.entries(params).flatMap(([k, v]) => [cstr(k), cstr(v)]),
    Buffer.from([0]),
  ]);
  return Buffer.concat([int32(body.length + 4), body]);
}
const LOGIN = startup({ user: 'root', database: 'public' });

/** The SQLSTATE of the first ErrorResponse in a reply, or undefined. */
function sqlState(reply: Buffer): string | undefined {
  for (let i = 0; i + 5 <= reply.length; ) {
    const type = reply[i]!;
    const len = reply.readInt32BE(i + 1);
    if (type === 0x45) {
      const body = reply.subarray(i + 5, i + 1 + len).toString('utf8');
      return /C([0-9A-Z]{5})\0/.exec(body)?.[1];
    }
    if (len < 4) return undefined;
    i += 1 + len;
  }
  return undefined;
}

describe('PostgreSQL port: bad input', () => {
  let server: ProcessServer;
  beforeAll(async () => {
    server = await startServer({ args: ['--pg-port', '0', '--sql-body-bytes', '65536'] });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server?.cleanup();
  });

  const stillServes = async (): Promise<void> => {
    const c = new pg.Client({ host: '127.0.0.1', port: server.pgPort, user: 'root', database: 'public' });
    await c.connect();
    try {
      expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: '1' }]);
    } finally {
      await c.end();
    }
  };

  const cases: Array<[string, () => Buffer, string | undefined]> = [
    ['a startup packet shorter than its header', () => Buffer.concat([int32(4), int32(196608)]), '08P01'],
    ['a startup packet over 10,000 bytes', () => Buffer.concat([int32(1_000_000), int32(196608)]), '08P01'],
    ['protocol version 2', () => Buffer.concat([int32(8), int32(2 << 16)]), '08P01'],
    ['a startup packet without the user', () => startup({ database: 'public' }), '08P01'],
    [
      'a startup packet missing its terminator',
      () => Buffer.concat([int32(17), int32(196608), Buffer.from('user\0root')]),
      '08P01',
    ],
    ['a message with a negative length', () => Buffer.concat([LOGIN, Buffer.from('Q'), int32(-5)]), '08P01'],
    ['a message over limits.sql_body_bytes', () => Buffer.concat([LOGIN, Buffer.from('Q'), int32(1 << 30)]), '54000'],
    ['an unknown message type', () => Buffer.concat([LOGIN, message('!', Buffer.alloc(0))]), '08P01'],
    ['a Query without its NUL', () => Buffer.concat([LOGIN, message('Q', Buffer.from('SELECT 1'))]), '08P01'],
    [
      'a Bind of a statement that does not exist',
      () =>
        Buffer.concat([
          LOGIN,
          message(
            'B',
            Buffer.concat([cstr(''), cstr('nope'), int32(0).subarray(2), int32(0).subarray(2), int32(0).subarray(2)]),
          ),
          message('S', Buffer.alloc(0)),
        ]),
      '22023',
    ],
    [
      'a Bind with too few parameters',
      () =>
        Buffer.concat([
          LOGIN,
          message('P', Buffer.concat([cstr(''), cstr('SELECT $1'), Buffer.from([0, 0])])),
          message('B', Buffer.concat([cstr(''), cstr(''), Buffer.from([0, 0, 0, 0, 0, 0])])),
        ]),
      '08P01',
    ],
    [
      'a Describe of an unknown kind',
      () => Buffer.concat([LOGIN, message('D', Buffer.concat([Buffer.from('Z'), cstr('')]))]),
      '08P01',
    ],
    ['COPY data outside COPY', () => Buffer.concat([LOGIN, message('d', Buffer.from('x'))]), '08P01'],
  ];
  for (const [name, bytes, state] of cases) {
    it(`answers ${name} with ${state} and closes the connection`, async () => {
      const { reply, closed } = await exchange(server.pgPort!, bytes());
      expect(sqlState(reply)).toBe(state);
      if (state !== '22023') expect(closed).toBe(true);
      await stillServes();
    });
  }

  it('survives seeded random and mutated byte streams, with or without a login first', async () => {
    const rnd = mulberry32(20261129);
    const valid = Buffer.concat([
      LOGIN,
      message('P', Buffer.concat([cstr('s1'), cstr('SELECT $1'), Buffer.from([0, 1]), int32(25)])),
      message(
        'B',
        Buffer.concat([
          cstr(''),
          cstr('s1'),
          Buffer.from([0, 0, 0, 1]),
          int32(2),
          Buffer.from('hi'),
          Buffer.from([0, 0]),
        ]),
      ),
      message('D', Buffer.concat([Buffer.from('P'), cstr('')])),
      message('E', Buffer.concat([cstr(''), int32(0)])),
      message('S', Buffer.alloc(0)),
      message('Q', cstr('SELECT 1; SHOW server_version')),
    ]);
    const inputs: Buffer[] = [];
    for (let i = 0; i < 60; i++) {
      const mutated = Buffer.from(valid);
      const flips = 1 + Math.floor(rnd() * 6);
      for (let f = 0; f < flips; f++) mutated[Math.floor(rnd() * mutated.length)] = Math.floor(rnd() * 256);
      inputs.push(mutated);
      const random = Buffer.alloc(1 + Math.floor(rnd() * 200));
      for (let k = 0; k < random.length; k++) random[k] = Math.floor(rnd() * 256);
      inputs.push(i % 2 === 0 ? Buffer.concat([LOGIN, random]) : random);
    }
    for (let i = 0; i < inputs.length; i += 10)
      await Promise.all(inputs.slice(i, i + 10).map((b) => exchange(server.pgPort!, b)));
    expect(server.child.exitCode).toBe(null);
    await stillServes();
  }, 120_000);
});
