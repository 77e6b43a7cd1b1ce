// Headless Chromium for the sandbox's browser test and benchmark: Debian's `chromium` package
// (/usr/bin/chromium; .ci/run installs it) driven by playwright-core, which downloads no browser.

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the sandbox's browser test needs Debian's chromium package (apt-get install -y chromium)`,
    );
  }
  // --no-sandbox: CI runs as root, where Chromium's own sandbox refuses to start.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}
