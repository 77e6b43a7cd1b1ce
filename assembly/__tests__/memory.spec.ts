import { alloc, free } from '../memory';

describe('alloc', () => {
  it('returns 16-byte aligned, distinct, writable blocks', () => {
    const a = alloc(10);
    const b = alloc(100);
    expect<usize>(a & 15).toBe(0);
    expect<usize>(b & 15).toBe(0);
    expect<bool>(a != b).toBe(true);
    store<u64>(b, 0x0102030405060708);
    expect<u64>(load<u64>(b)).toBe(0x0102030405060708);
    free(a);
    free(b);
  });
});
