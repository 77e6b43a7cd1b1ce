// The kernels' one growable input/output region in raw memory: the host asks for room, copies
// the operands in, calls a kernel with pointers into it, and reads the result back out. Growing
// frees the old region, so its contents do not survive a k_region call.

let base: usize = 0;
let capacity: usize = 0;

/** A region of at least `bytes` bytes, 16-aligned; 0 when `bytes` is unreasonable. May grow memory. */
export function k_region(bytes: usize): usize {
  if (bytes > 0x7fff0000) return 0;
  if (bytes > capacity) {
    if (base != 0) heap.free(base);
    let cap: usize = 1 << 16;
    while (cap < bytes) cap <<= 1;
    base = heap.alloc(cap);
    capacity = cap;
  }
  return base;
}
