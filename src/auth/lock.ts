import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { ensurePrivateDir } from '../config/paths.js';
import type { ConfigStore } from '../config/store.js';
import { ConfigError, SvcError } from '../errors.js';

/**
 * A cross-process lock on the credential store (proper-lockfile: an atomic mkdir of
 * `credentials.json.lock`, whose mtime the holder refreshes every few seconds, so a lock left
 * by a crashed process is taken over once it is stale). Every read-refresh-write of OAuth
 * tokens runs under it, so N processes with an expired token make one refresh between them.
 */

/** A holder refreshes the lock's mtime every UPDATE_MS; a lock untouched for STALE_MS is abandoned. */
const STALE_MS = 15_000;
const UPDATE_MS = 3_000;

export function credentialLockPath(store: ConfigStore): string {
  return join(store.dir, 'credentials.json');
}

export async function withCredentialLock<T>(store: ConfigStore, work: () => Promise<T>): Promise<T> {
  try {
    ensurePrivateDir(store.dir);
  } catch (error) {
    throw new ConfigError(`cannot create config directory ${store.dir}: ${(error as Error).message}`, {
      hint: 'set SVC_CONFIG_DIR to a writable directory',
    });
  }
  const target = credentialLockPath(store);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      // Up to ~40 s of waiting: longer than one token request with its retries.
      retries: { retries: 160, factor: 1.25, minTimeout: 10, maxTimeout: 250, randomize: true },
      // A lock taken over as stale while held: the work is short and the write re-checks, so go on.
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new SvcError('failure', `the credential store ${target} is locked by another svc process`, {
        code: 'credentials_locked',
        hint: `try again; if no svc is running, remove ${target}.lock`,
      });
    }
    throw new ConfigError(`cannot lock ${target}: ${(error as Error).message}`);
  }
  try {
    return await work();
  } finally {
    await release().catch(() => {});
  }
}
