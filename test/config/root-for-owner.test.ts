/**
 * fix-store18 #3: `sudo -E svc login` (root, HOME the user's: trusted since session 17) left a
 * root-owned 0600 credentials.json (and a root-owned store directory) in the user's home, which
 * the user's own runs then could not read. What root makes in a directory of $HOME's owner is
 * given to that owner, the file before it is renamed into place; elsewhere it stays root's.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { asUser, USER, userCanRun } from '../helpers/other-user.js';
import { useSandbox } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const sandbox = useSandbox();
// Open to uid 4242, who must reach the home made in it.
const top = useTempDir('svc-root-for-owner-', (made) => chmodSync(made, 0o755));
afterAll(() => rmSync(top, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});
const owner = (path: string) => [statSync(path).uid, (statSync(path).mode & 0o777).toString(8)];

/** A home of uid 4242's, $HOME for the in-process runs (as `sudo -E` leaves it). */
function userHome(): string {
  const home = mkdtempSync(join(top, 'home-'));
  chmodSync(home, 0o755);
  chownSync(home, USER, USER);
  vi.stubEnv('HOME', home);
  return home;
}

const loginAsRoot = (extra: Record<string, string> = {}) =>
  runInProcess(
    ['login', '--base-url', sandbox().url, '--with-token'],
    { SVC_CACHE_DIR: join(top, 'cache'), NO_COLOR: '1', ...extra },
    { stdin: sandbox().adminToken },
  );

describe.skipIf(!root)('root writing the store of $HOME’s owner (sudo -E svc login)', () => {
  it('gives the directories it made and both files to the owner, 0700 and 0600', async () => {
    const home = userHome();
    const r = await loginAsRoot();
    expect([r.code, r.stderr]).toEqual([0, expect.stringContaining('✓')]);
    const config = join(home, '.config');
    const store = join(config, 'svc');
    expect([owner(config), owner(store)]).toEqual([
      [USER, '700'],
      [USER, '700'],
    ]);
    expect([owner(join(store, 'credentials.json')), owner(join(store, 'config.json'))]).toEqual([
      [USER, '600'],
      [USER, '600'],
    ]);
  });

  it.skipIf(!userCanRun)('the user’s own run then uses the credential root stored', async () => {
    const home = userHome();
    expect((await loginAsRoot()).code).toBe(0);
    const r = await asUser(home, ['auth', 'token']);
    expect(r).toEqual({ code: 0, stdout: `${sandbox().adminToken}\n`, stderr: '' });
  });

  it('keeps what it makes in a directory of its own (SVC_CONFIG_DIR outside the home) root’s', async () => {
    userHome();
    const own = mkdtempSync(join(top, 'root-'));
    const store = join(own, 'svc');
    expect((await loginAsRoot({ SVC_CONFIG_DIR: store })).code).toBe(0);
    expect([owner(store), owner(join(store, 'credentials.json'))]).toEqual([
      [0, '700'],
      [0, '600'],
    ]);
  });

  it('gives a rewritten credentials.json to the owner when the store is already theirs', async () => {
    const home = userHome();
    const store = join(home, 'store');
    mkdirSync(store, { mode: 0o700 });
    chownSync(store, USER, USER);
    expect((await loginAsRoot({ SVC_CONFIG_DIR: store })).code).toBe(0);
    expect((await loginAsRoot({ SVC_CONFIG_DIR: store })).code).toBe(0);
    expect([owner(store), owner(join(store, 'credentials.json'))]).toEqual([
      [USER, '700'],
      [USER, '600'],
    ]);
  });
});
