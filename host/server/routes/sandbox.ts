// GET /sandbox/ and its assets (docs/sandbox.md): the browser sandbox, built by `npm run build`
// into dist/sandbox/. No credentials: the page holds no data, and every data request it makes
// (the export route) carries the user's. A fixed list of files, read from disk per request; a
// server started without the build answers 404 for the page with a hint in its body.

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';

const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.js.map': 'application/json',
  'worker.js': 'text/javascript; charset=utf-8',
  'worker.js.map': 'application/json',
  'app.css': 'text/css; charset=utf-8',
  'uplot.css': 'text/css; charset=utf-8',
  'sundial.wasm': 'application/wasm',
};

/** dist/sandbox/: beside this module's dist/host/ when built, under the package root from the sources. */
function sandboxDir(): string {
  const built = fileURLToPath(new URL('../../../sandbox/', import.meta.url));
  return existsSync(join(built, 'index.html'))
    ? built
    : fileURLToPath(new URL('../../../dist/sandbox/', import.meta.url));
}

export function sandboxRoutes(): ServerRoute[] {
  const dir = sandboxDir();
  const serve = async (name: string, h: ResponseToolkit) => {
    const type = FILES[name];
    if (type === undefined) return h.response().code(404);
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, name));
    } catch {
      return name === 'index.html'
        ? h.response('the sandbox is not built: run `npm run build`\n').code(404).type('text/plain')
        : h.response().code(404);
    }
    // The page and its scripts change with every build: revalidate rather than cache for a day.
    return h.response(bytes).type(type).header('Cache-Control', 'no-cache');
  };
  const options = { plugins: { sundial: { auth: false, errors: 'json' as const } } };
  return [
    {
      method: 'GET',
      path: '/sandbox',
      options,
      handler: (_r: Request, h: ResponseToolkit) => h.redirect('/sandbox/').code(301),
    },
    { method: 'GET', path: '/sandbox/', options, handler: (_r: Request, h: ResponseToolkit) => serve('index.html', h) },
    {
      method: 'GET',
      path: '/sandbox/{file}',
      options,
      handler: (r: Request, h: ResponseToolkit) => serve(String(r.params.file), h),
    },
  ];
}
