// Growable core-owned output buffers of the codec exports (encoded blocks, decoded values,
// validity, string indexes). Each keeps its memory from call to call, so steady encoding and
// decoding allocate nothing; growing forgets the contents (outputs are sized before writing).

/** Bytes every buffer keeps beyond what is asked, so that 16-byte SIMD stores and 8-byte
 * read-modify-write bit packing may run past the last element. */
export const SLACK: usize = 32;

@unmanaged
export class Buffer {
  base: usize;
  cap: usize;
}

export function newBuffer(cap: usize): Buffer {
  const b = changetype<Buffer>(heap.alloc(offsetof<Buffer>()));
  b.base = heap.alloc(cap + SLACK);
  b.cap = cap;
  return b;
}

/** Makes room for `n` bytes (plus SLACK) and returns the base; the old contents are lost. */
export function ensure(b: Buffer, n: usize): usize {
  if (n > b.cap) {
    heap.free(b.base);
    let cap = b.cap << 1;
    while (cap < n) cap <<= 1;
    b.base = heap.alloc(cap + SLACK);
    b.cap = cap;
  }
  return b.base;
}
