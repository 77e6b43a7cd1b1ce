// Two one-time V8 changes about typed arrays, made when a thread starts, before anything is
// compiled, instead of in the middle of a running server.
//
// V8 compiles code that uses typed arrays on two assumptions that hold until the first time
// something happens in the thread, and when it does, throws away every compiled function that
// relied on them:
// - no ArrayBuffer has ever been detached (broken by the first buffer transferred with
//   postMessage, as the parse workers hand back their write batches);
// - the Uint8Array map is stable: no Uint8Array has ever changed its prototype (broken by the first
//   Node.js Buffer made in C++: node::Buffer::New makes a Uint8Array and then sets its prototype
//   to Buffer.prototype; `fs.readdir` with buffer names, which `fs.rm({ recursive })` calls, is
//   one such place).
// Measured on a fresh server: in the main thread the second came at the end of the query warm-up
// (its directory removed with `rm`) and discarded the write-batch encoder, bucket kernels, time
// formatting and segment index code the warm-ups had just compiled, so the first user queries
// ran them in the interpreter and compiled them again; in a parse worker the first came with the
// first span load and discarded the protobuf decoders the worker's warm-up had compiled. Both
// changes made here, while nothing is compiled yet, cost nothing later.
//
// Runtime-agnostic: where there is no Buffer (a browser) the second has nothing to do.

/** Breaks both assumptions above at once, so that no compiled code ever relies on them. Idempotent. */
export function settleTypedArrayAssumptions(): void {
  const detached = new ArrayBuffer(0);
  structuredClone(detached, { transfer: [detached] });
  const buffer = (globalThis as { Buffer?: { prototype: object } }).Buffer;
  if (buffer !== undefined) Object.setPrototypeOf(new Uint8Array(0), buffer.prototype);
}
