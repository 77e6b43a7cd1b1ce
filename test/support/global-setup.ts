// Runs once before the vitest suite: makes sure build/sundial.wasm and dist/ are current, so that
// tests which spawn the real server (dist/host/cli/main.js) never run stale code; then gives the
// run a TMPDIR of its own, removed when the run ends (run-tmpdir.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { useRunTmpdir } from './run-tmpdir.js';

const root = new URL('../..', import.meta.url).pathname;

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return t;
}

function mtime(file: string): number {
  return existsSync(join(root, file)) ? statSync(join(root, file)).mtimeMs : 0;
}

export default function setup(): () => void {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  if (newest('assembly') > mtime('build/sundial.wasm') || mtime('asconfig.json') > mtime('build/sundial.wasm')) {
    execFileSync(npm, ['run', '--silent', 'build:wasm'], { cwd: root, stdio: 'inherit' });
  }
  if (newest('host') > mtime('dist/.build-stamp')) {
    try {
      execFileSync(npm, ['run', '--silent', 'build:ts'], { cwd: root, stdio: 'inherit' });
    } catch {
      // tsc still emits JavaScript on type errors, and `npm test` typechecks separately; tests
      // that spawn the server then show what is broken at run time.
      process.stderr.write('global-setup: tsc reported errors (see above); continuing with the emitted JavaScript\n');
    }
  }
  // The browser sandbox's bundle (dist/sandbox/) holds most of host/, and its page files.
  const page = Math.max(
    mtime('host/sandbox/page/index.html'),
    mtime('host/sandbox/page/app.css'),
    mtime('bin/build-sandbox.js'),
  );
  if (Math.max(newest('host'), page, mtime('build/sundial.wasm')) > mtime('dist/sandbox/worker.js')) {
    execFileSync(process.execPath, [join(root, 'bin', 'build-sandbox.js')], { cwd: root, stdio: 'inherit' });
  }
  // The tests' temporary folders: under one of this run's, removed by the teardown returned.
  return useRunTmpdir();
}
