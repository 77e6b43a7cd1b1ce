// Growable raw buffers and open-addressing hash tables (non-GC memory) that back every table of
// the scanner. They live for the whole instance and are reused from call to call, so a steady
// ingest allocates nothing. Growing may move a buffer: callers address records by offset or id,
// never by a pointer kept across a call that may grow.

@unmanaged
export class Arena {
  base: usize;
  len: usize;
  cap: usize;
}

export function newArena(cap: usize): Arena {
  const a = changetype<Arena>(heap.alloc(offsetof<Arena>()));
  a.base = heap.alloc(cap);
  a.len = 0;
  a.cap = cap;
  return a;
}

/** Makes room for `n` more bytes after `len`. */
@inline
export function reserve(a: Arena, n: usize): void {
  if (a.len + n > a.cap) grow(a, a.len + n);
}

/** Makes the capacity at least `n` bytes, without keeping the contents. */
export function ensureCapacity(a: Arena, n: usize): void {
  if (n <= a.cap) return;
  heap.free(a.base);
  let cap = a.cap << 1;
  while (cap < n) cap <<= 1;
  a.base = heap.alloc(cap);
  a.cap = cap;
}

function grow(a: Arena, need: usize): void {
  let cap = a.cap << 1;
  while (cap < need) cap <<= 1;
  a.base = heap.realloc(a.base, cap);
  a.cap = cap;
}

/** Appends `n` bytes (uninitialised) and returns their offset. */
@inline
export function push(a: Arena, n: usize): usize {
  reserve(a, n);
  const at = a.len;
  a.len = at + n;
  return at;
}

/**
 * Appends `n` bytes (uninitialised) and returns their address, valid until the arena grows.
 * (Never write `a.base + push(a, n)`: `a.base` would be read before `push` moves it.)
 */
@inline
export function pushPtr(a: Arena, n: usize): usize {
  const at = push(a, n);
  return a.base + at;
}

/** Appends a copy of `[src, src + n)` and returns its offset. */
export function pushBytes(a: Arena, src: usize, n: usize): usize {
  const at = push(a, n);
  memory.copy(a.base + at, src, n);
  return at;
}

// ---- scan windows ----

/** Bytes after a scan window's data that the scanners may write: a '\n' sentinel and padding for 16-byte loads. */
export const WINDOW_SLACK: usize = 32;

/**
 * The start of the input window `a` with room for `capacity` bytes of data (and the slack), or 0
 * past 4 GiB − 96. Valid until the next call for the same window (growing may move it and forgets
 * its contents).
 */
export function windowFor(a: Arena, capacity: usize): usize {
  if (capacity > 0xffffffff - WINDOW_SLACK - 64) return 0;
  ensureCapacity(a, capacity + WINDOW_SLACK);
  return a.base;
}

/** `[ptr, ptr + len)` lies inside window `a`, leaving room for the slack. */
export function inWindow(a: Arena, ptr: usize, len: usize): bool {
  const room = a.cap - WINDOW_SLACK;
  return ptr >= a.base && len <= room && ptr - a.base <= room - len;
}

/** Puts the '\n' sentinel at `end` and zeros after it, up to the slack. */
export function sealWindow(end: usize): void {
  store<u8>(end, 0x0a);
  memory.fill(end + 1, 0, WINDOW_SLACK - 1);
}

/**
 * Linear-probing table of (hash u32, id + 1 u32) slots; 0 marks an empty slot, so clearing is a
 * fill. Key equality lives with the caller: each record kind probes with its own comparison
 * (intern.ts) and calls `insert` after a miss.
 */
@unmanaged
export class HashTable {
  slots: usize;
  mask: u32;
  count: u32;
}

export function newHashTable(capacity: u32): HashTable {
  const t = changetype<HashTable>(heap.alloc(offsetof<HashTable>()));
  t.slots = heap.alloc(<usize>capacity << 3);
  memory.fill(t.slots, 0, <usize>capacity << 3);
  t.mask = capacity - 1;
  t.count = 0;
  return t;
}

export function clearHashTable(t: HashTable): void {
  if (t.count == 0) return;
  memory.fill(t.slots, 0, (<usize>t.mask + 1) << 3);
  t.count = 0;
}

/** Inserts `id` under `hash`; the caller knows the key is absent. */
export function insert(t: HashTable, hash: u32, id: u32): void {
  let i = hash & t.mask;
  while (load<u32>(t.slots + (<usize>i << 3), 4) != 0) i = (i + 1) & t.mask;
  const slot = t.slots + (<usize>i << 3);
  store<u32>(slot, hash);
  store<u32>(slot, id + 1, 4);
  t.count++;
  // Keep the load under 1/2 so that misses stay short.
  if (t.count << 1 > t.mask) rehash(t);
}

function rehash(t: HashTable): void {
  const oldSlots = t.slots;
  const oldCap = <usize>t.mask + 1;
  const cap = oldCap << 1;
  const slots = heap.alloc(cap << 3);
  memory.fill(slots, 0, cap << 3);
  const mask = <u32>cap - 1;
  for (let i: usize = 0; i < oldCap; i++) {
    const from = oldSlots + (i << 3);
    if (load<u32>(from, 4) == 0) continue;
    let j = load<u32>(from) & mask;
    while (load<u32>(slots + (<usize>j << 3), 4) != 0) j = (j + 1) & mask;
    store<u64>(slots + (<usize>j << 3), load<u64>(from));
  }
  heap.free(oldSlots);
  t.slots = slots;
  t.mask = mask;
}
