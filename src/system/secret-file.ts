import { type FileHandle, open, unlink } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';

/**
 * A file for a secret that is shown only once. It is created (mode 0600, never over an
 * existing file) before the request that returns the secret, so a bad path fails before the
 * secret exists; if the request fails, the empty file is removed again.
 */
export class SecretFile {
  readonly path: string;
  #handle: FileHandle | undefined;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  static async create(path: string, flag = '--secret-file'): Promise<SecretFile> {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.chmod(0o600);
      return new SecretFile(path, handle);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') {
        throw new UsageError(`${flag} ${path} already exists; svc never overwrites a secret file`, {
          hint: 'choose a new path, or remove the old file first',
        });
      }
      throw new UsageError(
        `cannot create ${flag} ${path}: ${fileErrorReason(error, 'its directory does not exist')}`,
      );
    }
  }

  async write(secret: string): Promise<void> {
    const handle = this.#handle;
    if (!handle) throw new Error('secret file already closed');
    this.#handle = undefined;
    try {
      await handle.writeFile(`${secret}\n`, 'utf8');
    } finally {
      await handle.close();
    }
  }

  /** Removes the file when nothing was written to it (the request failed). */
  async discard(): Promise<void> {
    const handle = this.#handle;
    if (!handle) return;
    this.#handle = undefined;
    await handle.close().catch(() => {});
    await unlink(this.path).catch(() => {});
  }
}
