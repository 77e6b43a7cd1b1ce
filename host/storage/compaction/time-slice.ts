// Background work (flush, compaction) runs on the main thread in short slices: after about
// SLICE_MS of work it yields to the event loop, so requests wait at most one slice. The codecs
// are one Wasm instance per process, which a worker thread could not share; the slices keep
// writes and queries flowing, as the issue asks, without a second instance per worker.

const SLICE_MS = 8;

export class TimeSlicer {
  #since = performance.now();

  /**
   * Yields to the event loop when the current slice is used up: a promise to await then, else
   * undefined. Callers await only a promise (`await` of anything else still costs a turn of
   * the microtask queue, and an async function a promise: per one-row series of a flush of
   * spans, that was a third of the flush's allocations).
   */
  step(): Promise<void> | undefined {
    if (performance.now() - this.#since < SLICE_MS) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#since = performance.now();
    });
  }
}
