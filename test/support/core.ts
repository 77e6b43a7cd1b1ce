// Loads build/sundial.wasm (built by the global setup) for tests that call the core directly.
import { readFileSync } from 'node:fs';
import { Core } from '../../host/core/wasm.js';

let cached: Promise<Core> | undefined;

/** A fresh core instance per call site is not needed: tests share one per worker. */
export function loadCore(): Promise<Core> {
  cached ??= Core.load(readFileSync(new URL('../../build/sundial.wasm', import.meta.url)));
  return cached;
}
