import { type FileHandle, open, unlink } from 'node:fs/promises';
import { SvcError, UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';

/** Why a value from the server is not a secret svc can write to a file, or undefined when it is one. */
export function secretProblem(secret: unknown): string | undefined {
  if (secret === undefined) return 'it has none';
  if (typeof secret !== 'string') return `it is ${secret === null ? 'null' : `a ${typeof secret}`}`;
  if (secret === '') return 'it is empty';
  return /[\r\n]/.test(secret) ? 'it spans several lines' : undefined;
}

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

  /**
   * Writes the secret. Anything but a non-empty string (a server that answered without the
   * field, or with null) is refused: the file is removed and the command fails (exit 1), so a
   * secret file never holds `undefined`. The file holds the secret's bytes and nothing else, for
   * every kind (sig13 8): a webhook signing secret is an HMAC key, and the stripe package and
   * Python's `open().read()` take a final newline as part of it; a client secret or API key read
   * that way would send the newline too. svc's own readers still take one final newline
   * (system/secret-text.ts), for files people write.
   */
  async write(secret: unknown, field = 'secret'): Promise<void> {
    const problem = secretProblem(secret);
    if (problem !== undefined) {
      await this.discard();
      throw new SvcError(
        'failure',
        `the server's answer has no usable ${field} (${problem}); nothing was written to ${this.path}`,
        {
          code: 'bad_response',
          hint: 'check whether the change was made (e.g. list it) before trying again',
        },
      );
    }
    const handle = this.#handle;
    if (!handle) throw new Error('secret file already closed');
    this.#handle = undefined;
    try {
      await handle.writeFile(String(secret), 'utf8');
    } catch (error) {
      // A full disk: the file holds nothing (or part of the secret); it is not left behind.
      await handle.close().catch(() => {});
      await unlink(this.path).catch(() => {});
      throw error;
    }
    await handle.close();
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
