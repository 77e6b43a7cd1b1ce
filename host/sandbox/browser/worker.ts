// The sandbox's Web Worker: owns the Sandbox (engine, store, Wasm core), so that loads and queries
// never block the page. Fetches exports itself, with the credentials the page passes, so the
// bytes never cross to the page's thread.

import { UserError } from '../../core/errors.js';
import { Sandbox, sandboxError } from '../sandbox.js';
import type { Answer, Ready, Request, Result, Status } from './protocol.js';

interface WorkerScope {
  onmessage: ((e: MessageEvent<Request>) => void) | null;
  postMessage(message: Answer | Ready): void;
}
const scope = self as unknown as WorkerScope;

/** What the page may hold: its JS heap limit when the browser says (Chromium), with room for the page. */
function limitBytes(): number {
  const heap = (performance as unknown as { memory?: { jsHeapSizeLimit: number } }).memory?.jsHeapSizeLimit;
  return heap === undefined ? 1024 * 1024 * 1024 : Math.floor(heap / 2);
}

async function answer(sandbox: Sandbox, r: Request): Promise<Result> {
  switch (r.kind) {
    case 'sql':
      return sandbox.sql(r.sql, r.database);
    case 'export': {
      // credentials 'omit': the Authorization header is ours; with the browser's own credentials
      // allowed, a 401 (wrong password) opens the browser's login dialog and the fetch waits on it.
      const res = await fetch(r.url, { headers: { authorization: r.authorization }, credentials: 'omit' });
      if (!res.ok) {
        const code = res.headers.get('x-sundial-error-code') ?? '000001';
        const message = res.headers.get('x-sundial-error') ?? `the server answered ${res.status}`;
        throw Object.assign(new Error(message), { sandboxCode: code });
      }
      return sandbox.loadExport(new Uint8Array(await res.arrayBuffer()));
    }
    case 'file':
      return sandbox.loadFile(r.name, r.bytes, r.database);
    case 'demo':
      return { rows: sandbox.loadDemo({ hosts: r.hosts, durationS: r.hours * 3600 }, r.database) };
    case 'status': {
      const status: Status = { bytes: sandbox.store.bytes, limitBytes: sandbox.store.limitBytes, tables: [] };
      for (const db of sandbox.store.catalog.databases('cnosdb'))
        for (const t of db.tables.keys()) status.tables.push({ database: db.name, table: t });
      return status;
    }
  }
}

const ready = (async (): Promise<Sandbox> => {
  const wasm = await WebAssembly.compileStreaming(fetch(new URL('sundial.wasm', self.location.href)));
  return Sandbox.create(wasm, limitBytes());
})();

ready.then(
  () => scope.postMessage({ id: 0, ok: true }),
  (e: unknown) => scope.postMessage({ id: 0, ok: false, error: sandboxError(e) }),
);

// One request at a time, in order: the engine and the store are not re-entrant across loads.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e) => {
  const r = e.data;
  queue = queue.then(async () => {
    const started = performance.now();
    try {
      const result = await answer(await ready, r);
      scope.postMessage({ id: r.id, ok: true, result, ms: performance.now() - started });
    } catch (err) {
      const code = (err as { sandboxCode?: string }).sandboxCode;
      const error =
        code !== undefined
          ? { code, message: (err as Error).message }
          : err instanceof RangeError && /memory|allocation/i.test(err.message)
            ? sandboxError(
                new UserError(
                  'queryMemory',
                  `the page ran out of memory (${err.message}): load less data, or reload the page to start empty`,
                ),
              )
            : sandboxError(err);
      scope.postMessage({ id: r.id, ok: false, error });
    }
  });
};
