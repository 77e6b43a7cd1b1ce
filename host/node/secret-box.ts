// The secrets the catalog keeps (an external table's S3 key id, secret key and token) sealed with
// AES-256-GCM under a key in `<dataDir>/secret.key` (32 random bytes, mode 0600, made on first
// use): catalog.json, which backups copy and people read, holds only ciphertext. The key is not in
// a backup on purpose; a catalog restored elsewhere names its sealed secrets as unreadable (create
// the table again) rather than carrying them. An in-memory store's key lives and dies with it.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';

const PREFIX = 'sealed:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  #key: Buffer | undefined;
  readonly #file: string | undefined;

  private constructor(file: string | undefined) {
    this.#file = file;
    if (file === undefined) this.#key = randomBytes(KEY_BYTES);
  }

  /** The box of a data directory (its key read, or made, when first needed). */
  static forDir(dataDir: string): SecretBox {
    return new SecretBox(join(dataDir, 'secret.key'));
  }

  /** A box whose key is never written anywhere (in-memory stores, the warm-up's scratch store). */
  static inMemory(): SecretBox {
    return new SecretBox(undefined);
  }

  #keyBytes(): Buffer {
    if (this.#key !== undefined) return this.#key;
    const file = this.#file!;
    try {
      // 'wx': two processes cannot both make one; the loser reads the winner's.
      writeFileSync(file, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const key = readFileSync(file);
    if (key.length !== KEY_BYTES) throw new Error(`${file} holds ${key.length} bytes, not a ${KEY_BYTES}-byte key`);
    this.#key = key;
    return key;
  }

  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keyBytes(), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The clear text of a sealed value; a value stored before secrets were sealed is its own clear text. */
  open(stored: string, what: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const bytes = Buffer.from(stored.slice(PREFIX.length), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#keyBytes(), bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new UserError(
        'externalLocation',
        `object store error: the secret of ${what} does not open with this data directory's secret.key (a catalog restored or copied without it?): create the table again`,
      );
    }
  }
}

/** The connection options sealed in the catalog: the key id too, half of a credential. */
export const SEALED_OPTIONS = ['accessKeyId', 'secretKey', 'token'] as const;
