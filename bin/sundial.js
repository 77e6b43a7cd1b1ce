#!/usr/bin/env node
// The `sundial` command of a checkout (package.json "bin", so `npx sundial`): runs the build in
// dist/, which `npm run build` makes, and says so when it is missing.

import { existsSync } from 'node:fs';

const main = new URL('../dist/host/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(`sundial: ${main.pathname} is missing; run \`npm run build\` first\n`);
  process.exit(1);
}
await import(main.href);
