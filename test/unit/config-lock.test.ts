// The config directory's lock and paths (src/config/lock.ts, src/config/paths.ts): re-entrant
// locks within one call chain, and where the directory is on each platform. The platform is
// mocked (process.platform): Windows and macOS cannot run here.
import { chmodSync, chownSync, mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/config/lock.js';
import { configDir } from '../../src/config/paths.js';
import { ensurePrivateDir } from '../../src/config/store-directory.js';
import { tempDir } from '../helpers/temp.js';

const realPlatform = process.platform;
const onPlatform = (platform: NodeJS.Platform) =>
  Object.defineProperty(process, 'platform', { value: platform, configurable: true });
afterEach(() => {
  onPlatform(realPlatform);
});

describe('withFileLock', () => {
  it('is re-entrant: a lock held by the call chain is not waited for, however deep', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const a = join(dir, 'config.json');
    const b = join(dir, 'credentials.json');
    const order: string[] = [];
    const result = await withFileLock(dir, a, async () => {
      order.push('a');
      return withFileLock(dir, b, async () => {
        order.push('b');
        return withFileLock(dir, a, async () => {
          order.push('a again');
          return withFileLock(dir, b, async () => 42);
        });
      });
    });
    expect(result).toBe(42);
    expect(order).toEqual(['a', 'b', 'a again']);
  });

  it('releases the lock when the work fails, so the next writer goes on at once', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const a = join(dir, 'config.json');
    await expect(
      withFileLock(dir, a, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    const started = Date.now();
    expect(await withFileLock(dir, a, async () => 'next')).toBe('next');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('names a lock it cannot take for another reason than another holder, at once', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const started = Date.now();
    await expect(withFileLock(dir, join(dir, 'missing', 'config.json'), async () => 1)).rejects.toThrow(
      `cannot lock ${join(dir, 'missing', 'config.json')}: ENOENT`,
    );
    // Not proper-lockfile's 40 s of retries: only another holder is waited for.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a store directory the store’s rule refuses is said in its words (exit 2), not as one it cannot create', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const refused = withFileLock(dir, join(dir, 'config.json'), async () => 1);
    await expect(refused).rejects.toThrow(
      `the config directory ${dir} is writable by others (mode 0777), so svc will not keep credentials in it`,
    );
    await expect(refused).rejects.toMatchObject({ code: 'config_owner', category: 'usage' });
    expect(statSync(dir).mode & 0o777).toBe(0o777);
  });

  it('returns the work’s result when its pid file is gone at the end (a process that took the lock over as stale removed it)', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    const a = join(dir, 'config.json');
    const result = await withFileLock(dir, a, async () => {
      rmSync(`${a}.lock-pid`);
      return 'written';
    });
    expect(result).toBe('written');
  });

  it('says once, on a long wait, which svc process holds the lock (a killed writer leaves its pid)', async () => {
    const dir = join(tempDir('svc-lock-'), 'svc');
    mkdirSync(dir, { mode: 0o700 });
    const a = join(dir, 'config.json');
    // What a writer SIGKILLed while holding the lock leaves: the lock directory and its pid.
    mkdirSync(`${a}.lock`);
    writeFileSync(`${a}.lock-pid`, '4242\n');
    const said: string[] = [];
    let sawWait: () => void = () => {};
    const waited = new Promise<void>((resolve) => {
      sawWait = resolve;
    });
    const done = withFileLock(
      dir,
      a,
      async () => 'written',
      (message) => {
        said.push(message);
        sawWait();
      },
    );
    await waited;
    rmdirSync(`${a}.lock`);
    expect(await done).toBe('written');
    expect(said).toEqual([
      `waiting for the lock on ${a}, held by svc process 4242 (${a}.lock); a lock left by a stopped svc is taken over once untouched for 15 s`,
    ]);
  });
});

describe('configDir on each platform', () => {
  it.each([
    [
      'win32',
      { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' },
      join('C:\\Users\\u\\AppData\\Roaming', 'svc', 'Config'),
    ],
    ['win32', {}, join(homedir(), 'AppData', 'Roaming', 'svc', 'Config')],
    ['darwin', { XDG_CONFIG_HOME: '/x' }, join(homedir(), 'Library', 'Preferences', 'svc')],
    ['linux', { XDG_CONFIG_HOME: '/x' }, join('/x', 'svc')],
    ['freebsd', {}, join(homedir(), '.config', 'svc')],
    ['darwin', { SVC_CONFIG_DIR: '/mine' }, '/mine'],
  ] as const)('%s with %j: %s', (platform, env, expected) => {
    onPlatform(platform);
    expect(configDir(env)).toBe(expected);
  });
});

describe('ensurePrivateDir', () => {
  const mode = (path: string) => statSync(path).mode & 0o7777;

  it('leaves modes alone on Windows, where they mean nothing', () => {
    const dir = join(tempDir('svc-paths-'), 'd');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    onPlatform('win32');
    ensurePrivateDir(dir, undefined);
    onPlatform(realPlatform);
    expect(mode(dir)).toBe(0o755);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a directory that belongs to someone else, leaving it as it is (checked as root)',
    () => {
      const dir = join(tempDir('svc-paths-'), 'theirs');
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      chownSync(dir, 4321, 4321);
      expect(() => ensurePrivateDir(dir, undefined)).toThrow(`${dir} belongs to another user (uid 4321)`);
      expect(mode(dir)).toBe(0o755);
    },
  );
});
