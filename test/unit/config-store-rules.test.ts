/**
 * src/config/store.ts's rules in-process, past config-store.test.ts: names that every object has
 * (`constructor`), a credential given as a profile name, the app URL that follows a new base URL,
 * what each removal says it found, the proof of room before something that cannot be undone, and
 * how a failed write is reported (a refusal as it is, anything else as config_write).
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { realDisk, type StoreDisk } from '../../src/config/disk.js';
import {
  ConfigStore,
  checkProfileName,
  credentialAsProfileName,
  invalidProfileName,
  type StoredCredential,
  sameUrl,
} from '../../src/config/store.js';
import { ConfigError, EXIT_CODES, type SvcError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const fresh = () => join(tempDir('svc-store-'), 'svc');
const token = (access_token: string): StoredCredential => ({ type: 'token', access_token, obtained_at: 'x' });

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    return error as SvcError;
  }
  throw new Error('it did not fail');
}

describe('profile names', () => {
  it.each([
    ['svc_pk_0123456789abcdefWXYZ', 'an API key'],
    ['svc_cs_0123456789abcdefWXYZ', 'a client secret'],
    ['whsec_0123456789abcdefWXYZ', 'a webhook signing secret'],
  ])('%s is refused as a name without repeating it: %s', (name, kind) => {
    const error = credentialAsProfileName(name) as SvcError;
    expect([EXIT_CODES[error.category], error.code, error.message]).toEqual([
      2,
      'credential_as_id',
      `that is ${kind}, not a profile name; nothing was saved`,
    ]);
    expect(invalidProfileName(name)).toEqual(error);
    expect(() => checkProfileName(name)).toThrow(`that is ${kind}, not a profile name`);
  });

  it('an ordinary name is no credential, and is returned', () => {
    expect(credentialAsProfileName('prod')).toBeUndefined();
    expect(invalidProfileName('prod')).toBeUndefined();
    expect(checkProfileName('prod')).toBe('prod');
    expect(invalidProfileName('bad name')?.message).toBe(
      `invalid profile name "bad name": a profile name starts with a letter or digit, then letters, digits, '.', '_' or '-' (at most 64 characters in all)`,
    );
  });
});

describe('sameUrl', () => {
  it.each([
    ['https://a.example', 'https://a.example/', true],
    ['https://A.example:443/', 'https://a.example', true],
    ['https://a.example', 'https://b.example', false],
    ['https://a.example', 'not a url', false],
    ['not a url', 'not a url', false],
  ])('%s and %s: %s', (a, b, same) => {
    expect(sameUrl(a, b)).toBe(same);
  });
});

describe('ConfigStore lookups', () => {
  it('names every object has are no profile nobody made', async () => {
    const store = new ConfigStore(fresh());
    await store.setProfileValues('real', { tenant: 't' });
    await store.setCredential('real', token('tok'));
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect([store.profile(name), store.credential(name), store.hasProfile(name)]).toEqual([
        undefined,
        undefined,
        false,
      ]);
    }
    expect(await store.removeProfile('constructor')).toBe(false);
    expect(await store.unsetProfileValue('toString', 'tenant')).toBe(false);
    const profiles = store.profiles();
    expect(Object.getPrototypeOf(profiles)).toBeNull();
    expect(Object.keys(profiles)).toEqual(['real']);
  });

  it('a profile exists with settings or with a credential alone', async () => {
    const store = new ConfigStore(fresh());
    expect(store.profiles()).toEqual({});
    await store.setProfileValues('settings', { org: 'o' });
    await store.setCredential('key-only', token('tok'));
    expect([store.hasProfile('settings'), store.hasProfile('key-only'), store.hasProfile('none')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('an empty directory reads as no profiles and no active profile', () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const store = new ConfigStore(dir);
    expect([store.activeProfile(), store.credential('default'), store.profile('default')]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('ConfigStore writes', () => {
  it('a new base URL takes with it an app URL that was the old base URL, and only that', async () => {
    const store = new ConfigStore(fresh());
    await store.setProfileValues('a', { base_url: 'https://old.example', app_url: 'https://old.example/' });
    await store.setProfileValues('a', { base_url: 'https://new.example' });
    expect(store.profile('a')).toEqual({ base_url: 'https://new.example' });

    await store.setProfileValues('b', { base_url: 'https://old.example', app_url: 'https://app.example' });
    await store.setProfileValues('b', { base_url: 'https://new.example' });
    expect(store.profile('b')).toEqual({ base_url: 'https://new.example', app_url: 'https://app.example' });

    await store.setProfileValues('c', { base_url: 'https://old.example', app_url: 'https://old.example' });
    await store.setProfileValues('c', { base_url: 'https://new.example', app_url: 'https://mine.example' });
    expect(store.profile('c')).toEqual({ base_url: 'https://new.example', app_url: 'https://mine.example' });

    await store.setProfileValues('d', { base_url: 'https://old.example', app_url: 'https://old.example' });
    await store.setProfileValues('d', { tenant: 't' });
    expect(store.profile('d')).toEqual({
      base_url: 'https://old.example',
      app_url: 'https://old.example',
      tenant: 't',
    });

    await store.setProfileValues('e', { app_url: 'https://old.example' });
    await store.setProfileValues('e', { base_url: 'https://new.example' });
    expect(store.profile('e')).toEqual({ app_url: 'https://old.example', base_url: 'https://new.example' });
  });

  it('unset says whether the value was set, and keeps the profile', async () => {
    const store = new ConfigStore(fresh());
    await store.setProfileValues('a', { tenant: 't', org: 'o' });
    expect(await store.unsetProfileValue('a', 'tenant')).toBe(true);
    expect(await store.unsetProfileValue('a', 'tenant')).toBe(false);
    expect(await store.unsetProfileValue('nobody', 'tenant')).toBe(false);
    expect(store.profile('a')).toEqual({ org: 'o' });
    expect(store.hasProfile('nobody')).toBe(false);
  });

  it('removals say whether anything was there: a credential alone, settings alone, nothing', async () => {
    const store = new ConfigStore(fresh());
    await store.setCredential('key-only', token('tok'));
    await store.setProfileValues('settings-only', { tenant: 't' });
    await store.setActiveProfile('settings-only');
    expect(await store.removeCredential('key-only')).toBe(true);
    expect(await store.removeCredential('key-only')).toBe(false);
    await store.setCredential('key-only', token('tok'));
    expect(await store.removeProfile('key-only')).toBe(true);
    expect(store.activeProfile()).toBe('settings-only');
    expect(await store.removeProfile('settings-only')).toBe(true);
    expect(store.activeProfile()).toBeUndefined();
    expect(await store.removeProfile('settings-only')).toBe(false);
  });

  it('claims the active profile only when none is, and refuses a bad name there', async () => {
    const store = new ConfigStore(fresh());
    expect(await store.claimActiveProfile('first')).toBe(true);
    expect(await store.claimActiveProfile('second')).toBe(false);
    expect(store.activeProfile()).toBe('first');
    const other = new ConfigStore(fresh());
    await expect(other.claimActiveProfile('bad name')).rejects.toThrow('invalid profile name "bad name"');
    await expect(other.setActiveProfile('bad name')).rejects.toThrow('invalid profile name "bad name"');
    await expect(other.setCredential('bad name', token('t'))).rejects.toThrow(
      'invalid profile name "bad name"',
    );
    expect(other.activeProfile()).toBeUndefined();
  });

  it('withLock holds the named file’s lock (re-entrant) while the work runs', async () => {
    const store = new ConfigStore(fresh());
    const seen = await store.withLock('credentials', async () => {
      const locks = readdirSync(store.dir).filter((name) => name.endsWith('.lock'));
      await store.setCredential('a', token('t'));
      return locks;
    });
    expect(seen).toEqual(['credentials.json.lock']);
    expect(store.credential('a')?.access_token).toBe('t');
    const config = await store.withLock('config', async () =>
      readdirSync(store.dir).filter((name) => name.endsWith('.lock')),
    );
    expect(config).toEqual(['config.json.lock']);
  });
});

describe('a failed write', () => {
  const failing = (error: Error): StoreDisk => ({
    reserve: realDisk.reserve,
    async write() {
      throw error;
    },
  });

  it('a refusal of the disk (another user’s file) is reported as it is', async () => {
    const dir = fresh();
    const store = new ConfigStore(dir);
    await store.setProfileValues('a', { tenant: 't' });
    const error = await failure(
      new ConfigStore(dir, {
        disk: failing(new ConfigError('refused')),
      }).setProfileValues('a', {
        org: 'o',
      }),
    );
    expect([error.constructor.name, error.message]).toEqual(['ConfigError', 'refused']);
  });

  it('a file that cannot be serialised is named as not valid JSON (exit 2)', async () => {
    const dir = fresh();
    const error = await failure(
      new ConfigStore(dir, { disk: failing(new SyntaxError('bad')) }).setActiveProfile('a'),
    );
    expect([EXIT_CODES[error.category], error.message]).toEqual([
      2,
      `cannot read ${join(dir, 'config.json')}: it is not valid JSON`,
    ]);
  });

  it('anything else: exit 1, config_write, naming the file and the cause', async () => {
    const dir = fresh();
    const error = await failure(
      new ConfigStore(dir, { disk: failing(new Error('EROFS: read-only file system')) }).setCredential(
        'a',
        token('t'),
      ),
    );
    expect([EXIT_CODES[error.category], error.code, error.message]).toEqual([
      1,
      'config_write',
      `cannot write ${join(dir, 'credentials.json')}: EROFS: read-only file system`,
    ]);
  });

  it('a file that cannot be read (not ENOENT) is named', () => {
    const dir = fresh();
    mkdirSync(join(dir, 'credentials.json'), { recursive: true });
    expect(() => new ConfigStore(dir).credential('a')).toThrow(
      `cannot read ${join(dir, 'credentials.json')}: EISDIR`,
    );
  });
});

describe('ensureWritable and proveWritable', () => {
  /** A disk that records the room asked for, and can refuse it. */
  function recording(refuse = false) {
    const asked: [string, number][] = [];
    const disk: StoreDisk = {
      reserve(path, bytes) {
        asked.push([path, bytes]);
        if (refuse) throw new Error('ENOSPC: no space left on device, write');
      },
      write: realDisk.write,
    };
    return { disk, asked };
  }

  it('asks for twice the file’s size and 16 KiB more, beside the file, making the directory first', async () => {
    const dir = fresh();
    const { disk, asked } = recording();
    const store = new ConfigStore(dir, { disk });
    store.ensureWritable('credentials');
    expect(readdirSync(dir)).toEqual([]);
    await store.setProfileValues('a', { tenant: 't' });
    const size = readFileSync(store.configPath).length;
    store.ensureWritable('config');
    expect(asked).toEqual([
      [store.credentialsPath, 16 * 1024],
      [store.configPath, 2 * size + 16 * 1024],
    ]);
  });

  it('no room: exit 1, config_write, naming the file and the cause', () => {
    const dir = fresh();
    const store = new ConfigStore(dir, recording(true));
    const error = (() => {
      try {
        store.ensureWritable('config');
      } catch (e) {
        return e as SvcError;
      }
      throw new Error('not refused');
    })();
    expect([EXIT_CODES[error.category], error.code, error.message]).toEqual([
      1,
      'config_write',
      `${store.configPath} cannot be written (ENOSPC: no space left on device, write)`,
    ]);
  });

  it('a directory that cannot be made is said the same way', () => {
    const root = tempDir('svc-store-');
    writeFileSync(join(root, 'file'), 'x');
    const store = new ConfigStore(join(root, 'file', 'svc'));
    expect(() => store.ensureWritable('credentials')).toThrow(
      new RegExp(`^${join(root, 'file', 'svc', 'credentials.json')} cannot be written \\(ENOTDIR`),
    );
  });

  it('proveWritable checks each file in turn; the first that cannot be written is the action’s error, with its hint and cause', () => {
    const { disk, asked } = recording(true);
    const store = new ConfigStore(fresh(), { disk });
    let error: SvcError | undefined;
    try {
      store.proveWritable(
        ['credentials', 'config'],
        (reason) => `the session was not revoked: ${reason}`,
        (fix) => `${fix}, then again`,
        'free some room',
      );
    } catch (e) {
      error = e as SvcError;
    }
    expect([EXIT_CODES[error!.category], error!.code, error!.message, error!.hint]).toEqual([
      1,
      'config_write',
      `the session was not revoked: ${store.credentialsPath} cannot be written (ENOSPC: no space left on device, write)`,
      'free some room, then again',
    ]);
    expect((error!.cause as SvcError).code).toBe('config_write');
    expect(asked.map(([path]) => path)).toEqual([store.credentialsPath]);
    const ok = recording(false);
    const fine = new ConfigStore(fresh(), { disk: ok.disk });
    fine.proveWritable(
      ['credentials', 'config'],
      () => 'never',
      () => 'never',
    );
    expect(ok.asked.map(([path]) => path)).toEqual([fine.credentialsPath, fine.configPath]);
  });
});

describe('the store’s checks run once per store, before the first read', () => {
  it('a link to nothing as config.json is refused at the first read', () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    symlinkSync(join(dir, 'nowhere'), join(dir, 'config.json'));
    expect(() => new ConfigStore(dir).activeProfile()).toThrow(
      `${join(dir, 'config.json')} is a symbolic link to something that does not exist`,
    );
  });

  it('checked once per store: a directory opened after its first read is left to the next store', () => {
    const dir = fresh();
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    const said: string[] = [];
    const store = new ConfigStore(dir, { warn: (message) => said.push(message) });
    store.profiles();
    chmodSync(dir, 0o755);
    store.profiles();
    expect(said).toEqual([
      `${dir} was readable by others (0755); svc made it 0700, since it holds credentials`,
    ]);
  });
});
