// One growable scratch region in raw memory for the codecs' temporaries (compacted values,
// zigzag streams, candidate encodings, hash tables, padded copies of bit streams), so that no
// call allocates per value and repeated calls reuse the same memory. Each export reserves its
// worst case once with scratchReset (which may move the region), then bumps through it.

let base: usize = 0;
let capacity: usize = 0;
let top: usize = 0;

/** Makes at least `need` bytes available and forgets earlier contents. May grow memory. */
export function scratchReset(need: usize): void {
  if (need > capacity) {
    if (base != 0) heap.free(base);
    let cap: usize = 1 << 16;
    while (cap < need) cap <<= 1;
    base = heap.alloc(cap);
    capacity = cap;
  }
  top = base;
}

/** Takes `size` bytes (16-aligned) from the region reserved by the last scratchReset. */
export function scratchTake(size: usize): usize {
  const p = top;
  top += (size + 15) & ~<usize>15;
  // Exceeding the reservation is a bug in the caller's size arithmetic, never a property of input.
  if (top > base + capacity) unreachable();
  return p;
}

/** The current bump position, to give back with scratchRelease when a temporary is done. */
@inline export function scratchMark(): usize {
  return top;
}

@inline export function scratchRelease(mark: usize): void {
  top = mark;
}
