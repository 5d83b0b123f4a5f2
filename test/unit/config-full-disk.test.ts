/**
 * svc's own files on a disk with no room (or a read-only one): a failed write of config.json or
 * credentials.json is a failure (exit 1: the README's row for failed writes), not bad input
 * (exit 2), and names the file and the cause. The full disk is played through the store's disk
 * seam (config/disk.ts): a tmpfs cannot be mounted in a test.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { realDisk } from '../../src/config/disk.js';
import { ConfigStore } from '../../src/config/store.js';
import { SvcError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function fullStore(): ConfigStore {
  const root = tempDir('svc-full-');
  roots.push(root);
  return new ConfigStore(join(root, 'svc'), {
    disk: {
      ...realDisk,
      write: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    },
  });
}

describe('a write of svc own files fails', () => {
  it.each([
    [
      'config set',
      (store: ConfigStore) => store.setProfileValues('work', { base_url: 'http://x' }),
      'config',
    ],
    ['profiles use', (store: ConfigStore) => store.setActiveProfile('work'), 'config'],
    [
      'a login',
      (store: ConfigStore) =>
        store.setCredential('work', {
          type: 'token',
          access_token: 'svc_pk_x',
          obtained_at: '2026-01-01T00:00:00Z',
        }),
      'credentials',
    ],
  ])('%s: exit 1, naming the file and the cause', async (_what, write, file) => {
    const store = fullStore();
    const error = (await write(store).catch((e: unknown) => e)) as SvcError;
    expect(error).toBeInstanceOf(SvcError);
    expect([error.exitCode, error.message, error.hint]).toEqual([
      1,
      `cannot write ${join(store.dir, `${file}.json`)}: ENOSPC: no space left on device, write`,
      'make room on its disk (or make it writable), then run the command again; nothing was changed',
    ]);
  });
});
