import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfileName, resolveSettings } from '../../src/config/settings.js';
import { ConfigStore } from '../../src/config/store.js';
import { ConfigError, exitCodeFor, UsageError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

const mode = (path: string) => statSync(path).mode & 0o777;
const fresh = () => join(tempDir('svc-store-'), 'svc');

describe('ConfigStore', () => {
  it('creates a 0700 directory and 0600 files, even under umask 022', async () => {
    const old = process.umask(0o022);
    try {
      const dir = fresh();
      const store = new ConfigStore(dir);
      await store.setProfileValues('default', { base_url: 'http://127.0.0.1:1' });
      await store.setCredential('default', { type: 'token', access_token: 'tok', obtained_at: 'now' });
      expect(mode(dir)).toBe(0o700);
      expect(mode(store.configPath)).toBe(0o600);
      expect(mode(store.credentialsPath)).toBe(0o600);
    } finally {
      process.umask(old);
    }
  });

  it('tightens a looser existing file and directory on the next write', async () => {
    const dir = fresh();
    const store = new ConfigStore(dir);
    await store.setProfileValues('default', { tenant: 't1' });
    chmodSync(store.configPath, 0o644);
    chmodSync(dir, 0o755);
    const again = new ConfigStore(dir);
    await again.setProfileValues('default', { org: 'o1' });
    expect(mode(store.configPath)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(again.profile('default')).toEqual({ tenant: 't1', org: 'o1' });
  });

  it('writes atomically: no temporary files are left behind', async () => {
    const dir = fresh();
    const store = new ConfigStore(dir);
    for (let i = 0; i < 20; i++) await store.setProfileValues(`p${i}`, { tenant: String(i) });
    expect(readdirSync(dir).sort()).toEqual(['config.json']);
  });

  it('reports a corrupt file by name (exit 2) and never resets it', async () => {
    const dir = fresh();
    const store = new ConfigStore(dir);
    await store.setProfileValues('default', { tenant: 't1' });
    writeFileSync(store.configPath, '{"profiles": {"default": ', { mode: 0o600 });
    const attempt = () => new ConfigStore(dir).profiles();
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).toContain(store.configPath);
      expect(exitCodeFor(error)).toBe(2);
    }
    expect(readFileSync(store.configPath, 'utf8')).toBe('{"profiles": {"default": ');
  });

  it('sees other processes’ writes (every read goes to the file)', async () => {
    const dir = fresh();
    const a = new ConfigStore(dir);
    const b = new ConfigStore(dir);
    await a.setCredential('default', { type: 'token', access_token: 'one', obtained_at: 'x' });
    expect(b.credential('default')?.access_token).toBe('one');
    await b.setCredential('default', { type: 'token', access_token: 'two', obtained_at: 'x' });
    expect(a.credential('default')?.access_token).toBe('two');
  });

  it('removes a profile with its credential and forgets it as active', async () => {
    const store = new ConfigStore(fresh());
    await store.setProfileValues('gone', { tenant: 't' });
    await store.setCredential('gone', { type: 'token', access_token: 'x', obtained_at: 'x' });
    await store.setActiveProfile('gone');
    expect(await store.removeProfile('gone')).toBe(true);
    expect(store.profile('gone')).toBeUndefined();
    expect(store.credential('gone')).toBeUndefined();
    expect(store.activeProfile()).toBeUndefined();
  });

  it.each(['', 'has space', '../up', 'x'.repeat(65)])('rejects the profile name %j', async (name) => {
    await expect(new ConfigStore(fresh()).setProfileValues(name, {})).rejects.toThrow(UsageError);
  });
});

describe('settings precedence: flag > env > profile', () => {
  const profile = { base_url: 'http://profile', tenant: 'tp', org: 'op' };
  it.each([
    ['flag wins', { baseUrl: 'http://flag' }, { SVC_BASE_URL: 'http://env' }, 'http://flag', 'flag'],
    ['env beats profile', {}, { SVC_BASE_URL: 'http://env' }, 'http://env', 'env'],
    ['profile last', {}, {}, 'http://profile', 'profile'],
    ['empty env is ignored', {}, { SVC_BASE_URL: '' }, 'http://profile', 'profile'],
  ])('%s', (_name, flags, env, value, source) => {
    const settings = resolveSettings(flags, env, { name: 'p', source: 'flag' }, profile);
    expect(settings.values.base_url).toBe(value);
    expect(settings.sources.base_url).toBe(source);
    expect(settings.values.app_url).toBe(value);
    expect(settings.sources.app_url).toBe('default');
  });

  it.each([
    [{ profile: 'f' }, { SVC_PROFILE: 'e' }, 'a', 'f'],
    [{}, { SVC_PROFILE: 'e' }, 'a', 'e'],
    [{}, {}, 'a', 'a'],
    [{}, {}, undefined, 'default'],
  ])('profile name from %j %j active=%s → %s', (flags, env, active, expected) => {
    expect(resolveProfileName(flags, env, () => active).name).toBe(expected);
  });

  it('names the source of a bad URL', () => {
    expect(() =>
      resolveSettings({}, { SVC_BASE_URL: 'not a url' }, { name: 'p', source: 'flag' }, {}),
    ).toThrow(/SVC_BASE_URL must be an absolute http\(s\) URL/);
    expect(() => resolveSettings({ baseUrl: 'ftp://x' }, {}, { name: 'p', source: 'flag' }, {})).toThrow(
      /--base-url/,
    );
  });
});
