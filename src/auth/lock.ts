import type { ConfigStore } from '../config/store.js';

/**
 * The credential store's cross-process lock (see config/lock.ts). Every read-refresh-write of
 * OAuth tokens runs under it, so N processes with an expired token make one refresh between them.
 */
export function withCredentialLock<T>(store: ConfigStore, work: () => Promise<T>): Promise<T> {
  return store.withLock('credentials', work);
}
