// The admission budget behind 429s for in-flight write bytes and concurrent queries.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../host/core/errors.js';
import { Budget } from '../../host/server/limits.js';

describe('Budget', () => {
  it('admits up to its limit and refuses past it with 429 030024 and Retry-After', () => {
    const b = new Budget(10, 'in-flight write bytes', 'write_bytes');
    const r1 = b.acquire(6);
    const r2 = b.acquire(4);
    expect(b.used).toBe(10);
    let err: unknown;
    try {
      b.acquire(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const u = err as UserError;
    expect([u.status, u.code, u.retryAfterS, u.reason, u.message]).toEqual([
      429,
      '030024',
      1,
      'write_bytes',
      'in-flight write bytes limit of 10 reached; retry later',
    ]);
    r1();
    r2();
    expect(b.used).toBe(0);
  });

  it('admits one request larger than the whole budget when nothing else runs', () => {
    const b = new Budget(10, 'bytes', 'write_bytes');
    const r = b.acquire(50);
    expect(() => b.acquire(1)).toThrow(UserError);
    r();
    expect(b.acquire(1)).toBeTypeOf('function');
  });

  it('ignores a second release of the same grant', () => {
    const b = new Budget(10, 'bytes', 'write_bytes');
    const r = b.acquire(5);
    const keep = b.acquire(5);
    r();
    r();
    expect(b.used).toBe(5);
    keep();
  });
});
