// Raw, non-GC memory for the host: input bodies, output arenas and scratch buffers that the
// host reads through typed-array views. Managed (GC) objects never cross the boundary.

/** Allocates `size` bytes aligned to 16. The host owns the block until it calls `free`. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block returned by `alloc`. */
export function free(ptr: usize): void {
  heap.free(ptr);
}
