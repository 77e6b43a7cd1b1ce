// Locates the package root (the folder with Sundial's package.json) from this module, so the
// server finds build/sundial.wasm and its version whether it runs from host/ (tsx) or dist/host/.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'sundial') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the sundial package.json above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The bytes of the release Wasm core (built by `npm run build:wasm`). */
export function coreWasmBytes(): Buffer {
  const path = join(packageRoot(), 'build', 'sundial.wasm');
  if (!existsSync(path)) throw new Error(`${path} is missing; run \`npm run build\` first`);
  return readFileSync(path);
}
