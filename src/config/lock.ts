import { AsyncLocalStorage } from 'node:async_hooks';
import { ConfigError, SvcError } from '../errors.js';
import { ensurePrivateDir } from './paths.js';

/**
 * A cross-process lock on one file of the config directory (proper-lockfile: an atomic mkdir of
 * `FILE.lock`, whose mtime the holder refreshes every few seconds, so a lock left by a crashed
 * process is taken over once it is stale). Every write of config.json and credentials.json
 * runs under the lock of its file and re-reads the file once it holds it, so parallel svc
 * processes never lose each other's writes; an OAuth refresh holds the credentials lock for
 * its whole read-refresh-write, so N processes with an expired token make one refresh.
 *
 * Re-entrant within one async call chain (AsyncLocalStorage): a write inside a refresh that
 * already holds the lock does not wait for itself.
 */

/** A holder refreshes the lock's mtime every UPDATE_MS; a lock untouched for STALE_MS is abandoned. */
const STALE_MS = 15_000;
const UPDATE_MS = 3_000;

const held = new AsyncLocalStorage<ReadonlySet<string>>();

export async function withFileLock<T>(dir: string, target: string, work: () => Promise<T>): Promise<T> {
  const holding = held.getStore();
  if (holding?.has(target)) return work();
  try {
    ensurePrivateDir(dir);
  } catch (error) {
    throw new ConfigError(`cannot create config directory ${dir}: ${(error as Error).message}`, {
      hint: 'set SVC_CONFIG_DIR to a writable directory',
    });
  }
  // Loaded only when something is written.
  const lockfile = (await import('proper-lockfile')).default;
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      stale: STALE_MS,
      update: UPDATE_MS,
      // Up to ~40 s of waiting: longer than one token request with its retries.
      retries: { retries: 160, factor: 1.25, minTimeout: 10, maxTimeout: 250, randomize: true },
      // A lock taken over as stale while held: the work is short and the write re-reads, so go on.
      onCompromised: () => {},
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new SvcError('failure', `${target} is locked by another svc process`, {
        code: 'config_locked',
        hint: `try again; if no svc is running, remove ${target}.lock`,
      });
    }
    throw new ConfigError(`cannot lock ${target}: ${(error as Error).message}`);
  }
  try {
    return await held.run(new Set([...(holding ?? []), target]), work);
  } finally {
    await release().catch(() => {});
  }
}
