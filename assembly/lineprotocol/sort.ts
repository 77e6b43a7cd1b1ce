// Stable sort of name entries by byte order, for the tags of a new series and the new field
// columns of a row. Entries are 16 bytes: name pointer u32, name length u32, two payload u32s.
// Insertion sort for the usual handful; merge sort above that, so a line with 100k tags costs
// n log n and not n^2.

import { compareBytes } from './hash';

export const ENTRY_SIZE: usize = 16;
const INSERTION_MAX: u32 = 16;

@inline
function cmp(a: usize, b: usize): i32 {
  return compareBytes(load<u32>(a), load<u32>(a, 4), load<u32>(b), load<u32>(b, 4));
}

/** Sorts `n` entries at `p` in place; `tmp` has room for `n` entries. Equal names keep their order. */
export function sortEntries(p: usize, n: u32, tmp: usize): void {
  if (n <= INSERTION_MAX) {
    insertionSort(p, n);
    return;
  }
  // Bottom-up merge sort, ping-ponging between p and tmp.
  let src = p;
  let dst = tmp;
  for (let start: u32 = 0; start < n; start += INSERTION_MAX) {
    insertionSort(p + <usize>start * ENTRY_SIZE, min(INSERTION_MAX, n - start));
  }
  for (let width: u32 = INSERTION_MAX; width < n; width <<= 1) {
    for (let lo: u32 = 0; lo < n; lo += width << 1) {
      const mid = min(lo + width, n);
      const hi = min(lo + (width << 1), n);
      merge(src, dst, lo, mid, hi);
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src != p) memory.copy(p, src, <usize>n * ENTRY_SIZE);
}

function merge(src: usize, dst: usize, lo: u32, mid: u32, hi: u32): void {
  let i = lo;
  let j = mid;
  let k = lo;
  while (i < mid && j < hi) {
    const a = src + <usize>i * ENTRY_SIZE;
    const b = src + <usize>j * ENTRY_SIZE;
    if (cmp(b, a) < 0) {
      v128.store(dst + <usize>k * ENTRY_SIZE, v128.load(b));
      j++;
    } else {
      v128.store(dst + <usize>k * ENTRY_SIZE, v128.load(a));
      i++;
    }
    k++;
  }
  if (i < mid) memory.copy(dst + <usize>k * ENTRY_SIZE, src + <usize>i * ENTRY_SIZE, <usize>(mid - i) * ENTRY_SIZE);
  else if (j < hi) memory.copy(dst + <usize>k * ENTRY_SIZE, src + <usize>j * ENTRY_SIZE, <usize>(hi - j) * ENTRY_SIZE);
}

function insertionSort(p: usize, n: u32): void {
  for (let i: u32 = 1; i < n; i++) {
    const x = v128.load(p + <usize>i * ENTRY_SIZE);
    let j = i;
    // Shift the entries that sort after x one place right (not equal ones: stability).
    while (j > 0) {
      const prev = p + <usize>(j - 1) * ENTRY_SIZE;
      if (cmpSaved(x, prev) >= 0) break;
      v128.store(p + <usize>j * ENTRY_SIZE, v128.load(prev));
      j--;
    }
    v128.store(p + <usize>j * ENTRY_SIZE, x);
  }
}

@inline
function cmpSaved(x: v128, b: usize): i32 {
  return compareBytes(
    <usize>i32x4.extract_lane(x, 0),
    <usize>i32x4.extract_lane(x, 1),
    load<u32>(b),
    load<u32>(b, 4),
  );
}
