#!/usr/bin/env node
// Builds the browser sandbox (host/sandbox, docs/sandbox.md) into dist/sandbox/: the page, its
// script and its Web Worker bundled by esbuild for browsers, the Wasm core and uPlot's CSS
// copied beside them. The bundle holds no Node code: the three Node modules the segment reader
// uses are swapped for browser ones (host/sandbox/browser/), and any other Node import fails the
// build.

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'host', 'sandbox');
const out = join(root, 'dist', 'sandbox');
mkdirSync(out, { recursive: true });

await build({
  entryPoints: { app: join(src, 'page', 'app.ts'), worker: join(src, 'browser', 'worker.ts') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome110', 'firefox115', 'safari16'],
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
  alias: {
    'node:zlib': join(src, 'browser', 'zlib.ts'),
    'node:buffer': join(src, 'browser', 'buffer.ts'),
    'zstd-napi': join(src, 'browser', 'zstd.ts'),
  },
});
copyFileSync(join(src, 'page', 'index.html'), join(out, 'index.html'));
copyFileSync(join(src, 'page', 'app.css'), join(out, 'app.css'));
copyFileSync(join(root, 'node_modules', 'uplot', 'dist', 'uPlot.min.css'), join(out, 'uplot.css'));
copyFileSync(join(root, 'build', 'sundial.wasm'), join(out, 'sundial.wasm'));
