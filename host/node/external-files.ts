// The files COPY INTO reads and writes, confined to storage.external_dir: a location is a path
// relative to it, an absolute path inside it, or a file:// URL of one. Refused, before any file is
// opened: `..` anywhere, a path outside the directory, and any path whose real location (symbolic
// links resolved, of the deepest part that exists) leaves it; files of a listed directory are
// checked the same way, so a link inside cannot lead out either.

import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, type Stats } from 'node:fs';
import { mkdir, readdir, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { UserError } from '../core/errors.js';
import type { ExternalFile, ExternalFiles } from '../engine/external/external-files.js';
import { ConfigError } from './config.js';

function refused(message: string): UserError {
  return new UserError('externalLocation', `object store error: ${message}`);
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

interface LocalFile extends ExternalFile {
  readonly realPath: string;
}

export class LocalExternalFiles implements ExternalFiles {
  /** The directory as configured, made absolute. */
  readonly #root: string;
  /** The same with symbolic links resolved: what every real path must stay inside. */
  readonly #realRoot: string;
  #sequence = 0;

  /** Creates the directory if missing; a directory that cannot be made is a ConfigError at startup. */
  constructor(dir: string) {
    this.#root = resolve(dir);
    try {
      mkdirSync(this.#root, { recursive: true });
      this.#realRoot = realpathSync(this.#root);
    } catch (e) {
      throw new ConfigError(`invalid storage.external_dir: ${dir}: ${(e as Error).message}`);
    }
  }

  /** The real path of `location`, which need not exist yet; throws the refusals above. */
  async #resolve(location: string): Promise<string> {
    let path = location;
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(path);
    if (scheme !== null) {
      if (scheme[1]!.toLowerCase() !== 'file') throw refused(`Unsupported url schema [${scheme[1]!.toLowerCase()}]`);
      path = decodeURIComponent(path.slice(scheme[0].length));
    }
    if (path === '') throw refused('empty location');
    if (path.split(/[\\/]/).includes('..'))
      throw refused(
        `location '${location}' contains '..'; locations are relative to storage.external_dir or inside it`,
      );
    const abs = isAbsolute(path) ? resolve(path) : resolve(this.#root, path);
    if (!within(this.#root, abs) && !within(this.#realRoot, abs))
      throw refused(`location '${location}' is outside storage.external_dir`);
    // The deepest part that exists, with its symbolic links resolved, then the rest as written.
    const rest: string[] = [];
    let probe = abs;
    for (;;) {
      let real: string;
      try {
        real = await realpath(probe);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(probe) === probe)
          throw refused(`location '${location}': ${(e as Error).message}`);
        rest.unshift(basename(probe));
        probe = dirname(probe);
        continue;
      }
      if (!within(this.#realRoot, real))
        throw refused(`location '${location}' leads out of storage.external_dir through a symbolic link`);
      return join(real, ...rest);
    }
  }

  async list(location: string): Promise<LocalFile[]> {
    const path = await this.#resolve(location);
    let info: Stats;
    try {
      info = await stat(path);
    } catch {
      throw refused(`location '${location}' not found`);
    }
    if (info.isFile()) return [{ name: location, sizeBytes: info.size, version: String(info.mtimeMs), realPath: path }];
    if (!info.isDirectory()) throw refused(`location '${location}' is neither a file nor a directory`);
    const out: LocalFile[] = [];
    const names = (await readdir(path)).filter((n) => !n.startsWith('.')).sort();
    for (const n of names) {
      const real = await realpath(join(path, n));
      const name = `${location}${location.endsWith('/') ? '' : '/'}${n}`;
      if (!within(this.#realRoot, real))
        throw refused(`location '${name}' leads out of storage.external_dir through a symbolic link`);
      const s = await stat(real);
      if (s.isFile()) out.push({ name, sizeBytes: s.size, version: String(s.mtimeMs), realPath: real });
    }
    return out;
  }

  async read(file: ExternalFile): Promise<Uint8Array> {
    const real = (file as LocalFile).realPath;
    if (real === undefined) throw new Error(`BUG: ${file.name} did not come from LocalExternalFiles.list`);
    try {
      return new Uint8Array(await readFile(real));
    } catch (e) {
      throw refused(`reading '${file.name}': ${(e as Error).message}`);
    }
  }

  async write(location: string, extension: string, data: Uint8Array): Promise<string> {
    const path = await this.#resolve(location);
    let directory = location.endsWith('/');
    if (!directory)
      directory = await stat(path).then(
        (s) => s.isDirectory(),
        () => false,
      );
    const target = directory
      ? join(path, `${Date.now()}-${process.pid}-${++this.#sequence}-${randomBytes(4).toString('hex')}.${extension}`)
      : path;
    await mkdir(dirname(target), { recursive: true });
    // mkdir may have walked through a link made meanwhile: check the real directory again.
    if (!within(this.#realRoot, await realpath(dirname(target))))
      throw refused(`location '${location}' leads out of storage.external_dir through a symbolic link`);
    const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      await writeFile(temp, data, { flag: 'wx' });
      await rename(temp, target);
    } catch (e) {
      await rm(temp, { force: true });
      throw refused(`writing '${location}': ${(e as Error).message}`);
    }
    return directory ? `${location}${location.endsWith('/') ? '' : '/'}${basename(target)}` : location;
  }
}
