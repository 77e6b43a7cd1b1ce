// NULLs (fields are sparse): a block whose rows are all present is the plain block of its
// type; one with every row NULL is ALL_NULL (one byte); otherwise NULLABLE wraps the validity,
// itself a BOOLEAN block of n rows, and the block of the m present values only (NULL rows store
// nothing). Decoding expands the values back in place to n rows, NULL rows holding 0.
//   NULLABLE: id | validityLength varint | BOOLEAN block (n rows) | inner block (m rows)
// The inner block is never ALL_NULL, NULLABLE or ZSTD: the type decoders accept only their own ids.
import { boolBound, countTrue, decodeBools, encodeBools } from './boolean';
import { ERR_TRAILING, fail } from './errors';
import { ENC_ALL_NULL, ENC_NULLABLE, MODE_AUTO } from './ids';
import { rdErr, rdInit, rdPos, rdTake, rdVarintMax } from './reader';
import { scratchMark, scratchRelease, scratchTake } from './scratch';
import { writeVarint } from './varint';

/** Bytes a NULLABLE header with its validity may take for n rows (5: a u32 varint). */
@inline export function nullableBound(n: u32): usize {
  return 1 + 5 + boolBound(n);
}

/** Writes the NULLABLE id and validity of n rows at dst; returns where the inner block goes. */
export function writeNullableHeader(dst: usize, validity: usize, n: u32): usize {
  const mark = scratchMark();
  const v = scratchTake(boolBound(n) + 16);
  const vLen = encodeBools(validity, n, MODE_AUTO, v) - v;
  store<u8>(dst, ENC_NULLABLE);
  const p = writeVarint(dst + 1, vLen);
  memory.copy(p, v, vLen);
  scratchRelease(mark);
  return p + vLen;
}

/** Copies the `size`-byte values of present rows to dst; returns how many. */
@inline export function compact<T>(src: usize, validity: usize, n: u32, dst: usize): u32 {
  let m: u32 = 0;
  for (let i: u32 = 0; i < n; i++) {
    if (load<u8>(validity + i) != 0) {
      store<T>(dst + (<usize>m * sizeof<T>()), load<T>(src + <usize>i * sizeof<T>()));
      m++;
    }
  }
  return m;
}

/** Spreads m values at the front of `values` to their rows (validity 0/1), NULL rows = `nul`. */
@inline export function expand<T>(values: usize, validity: usize, n: u32, m: u32, nul: T): void {
  let j = m;
  let i = n;
  while (i > 0) {
    i--;
    const at = values + <usize>i * sizeof<T>();
    if (load<u8>(validity + i) != 0) {
      j--;
      store<T>(at, load<T>(values + <usize>j * sizeof<T>()));
    } else {
      store<T>(at, nul);
    }
  }
}

// What openBlock found.
export const OPEN_PLAIN: i32 = 0;
export const OPEN_NULLABLE: i32 = 1;
export const OPEN_ALL_NULL: i32 = 2;
/** The block of the present values and how many there are. */
export let innerAt: usize = 0;
export let innerLen: usize = 0;
export let present: u32 = 0;

/**
 * Looks at the first byte of the block [p, p + len) of n rows: for NULLABLE, decodes the
 * validity to `validity` (n bytes). Returns OPEN_* or an error code.
 */
export function openBlock(p: usize, len: usize, n: u32, validity: usize): i32 {
  innerAt = p;
  innerLen = len;
  present = n;
  if (len == 0) return 0; // the type decoder reports the truncation
  const id = load<u8>(p);
  if (id == ENC_ALL_NULL) {
    if (len != 1) return fail(ERR_TRAILING, p + 1);
    memory.fill(validity, 0, n);
    present = 0;
    return OPEN_ALL_NULL;
  }
  if (id != ENC_NULLABLE) return OPEN_PLAIN;
  rdInit(p + 1, len - 1);
  const vLen = rdVarintMax(<u32>len);
  const vAt = rdTake(vLen);
  if (rdErr() != 0) return rdErr();
  const rc = decodeBools(vAt, vLen, n, validity);
  if (rc != 0) return rc;
  innerAt = vAt + vLen;
  innerLen = p + len - innerAt;
  present = countTrue(validity, n);
  return OPEN_NULLABLE;
}
