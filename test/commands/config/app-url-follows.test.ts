import { describe, expect, it } from 'vitest';
import { runInProcess, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

// Findings examples 2 and 3 (s10): `config set base_url` kept an app_url that was the old base
// URL (what `svc sandbox start` writes), so `svc login` opened the old platform's page; `config
// unset` said "✓ Unset" of a key that was not set, and nothing of an env var still setting it.
const env = useTwoProfiles();
const profile = (name: string) => testContext({ env: env() }).ctx.store().profile(name);

describe('svc config set base_url with an app_url in the profile', () => {
  it('moves app_url with it when app_url was the old base URL, and says so', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://staging.example'], env());
    expect(
      await runInProcess(['-p', 'staging', 'config', 'set', 'base_url', 'https://api.other.example'], env()),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ set base_url for profile "staging"\n' +
        'removed app_url (https://staging.example, the old base URL): the browser app is now found at the base URL, https://api.other.example\n',
    });
    expect(profile('staging')?.app_url).toBeUndefined();
    expect(profile('staging')?.base_url).toBe('https://api.other.example');
  });

  it('keeps an app_url of its own, with a warning naming it', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://app.staging.example'], env());
    expect(
      await runInProcess(['-p', 'staging', 'config', 'set', 'base_url', 'https://api.other.example'], env()),
    ).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ set base_url for profile "staging"\n' +
        'warning: app_url of profile "staging" is still https://app.staging.example: `svc login` opens its page there; ' +
        '`svc -p staging config unset app_url` makes it the base URL, or `svc -p staging config set app_url URL`\n',
    });
    expect(profile('staging')?.app_url).toBe('https://app.staging.example');
  });

  it('says nothing of an app_url on the same origin as the new base URL', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://api.other.example'], env());
    expect(
      await runInProcess(['-p', 'staging', 'config', 'set', 'base_url', 'https://api.other.example/'], env()),
    ).toEqual({ code: 0, stdout: '', stderr: '✓ set base_url for profile "staging"\n' });
  });
});

describe('svc config unset', () => {
  it('of a key that was not set says nothing changed (exit 0)', async () => {
    expect(await runInProcess(['config', 'unset', 'org'], env())).toEqual({
      code: 0,
      stdout: '',
      stderr: 'nothing changed: org was not set in profile "default"\n',
    });
  });

  it('warns when the environment still sets the value', async () => {
    await runInProcess(['config', 'set', 'org', 'org_demo'], env());
    expect(await runInProcess(['config', 'unset', 'org'], { ...env(), SVC_ORG: 'org_demo' })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ unset org for profile "default" (https://api.example.com)\nwarning: SVC_ORG still sets org right now\n',
    });
    expect(profile('default')?.org).toBeUndefined();
  });
});

// everyday13 F6: `svc login --base-url URL` (what svc prints for a credential of another server)
// opened the old server's page: the flag and SVC_BASE_URL left an app_url that was the profile's
// base URL (as `sandbox start` writes it) behind, where `config set base_url` moves it.
describe('a base URL given by --base-url or SVC_BASE_URL', () => {
  const ls = async (argv: string[], extra: Record<string, string> = {}) =>
    (await runInProcess([...argv, 'config', 'ls'], { ...env(), ...extra })).stdout
      .split('\n')
      .filter((l) => /^(base_url|app_url)\t/.test(l));

  it('takes an app_url that was the profile base URL with it, as config set does', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://staging.example/'], env());
    expect(await ls(['-p', 'staging', '--base-url', 'https://api.other.example'])).toEqual([
      'base_url\thttps://api.other.example\tflag',
      'app_url\thttps://api.other.example\tdefault',
    ]);
    expect(await ls(['-p', 'staging'], { SVC_BASE_URL: 'https://api.other.example' })).toEqual([
      'base_url\thttps://api.other.example\tSVC_BASE_URL',
      'app_url\thttps://api.other.example\tdefault',
    ]);
  });

  it('leaves an app_url of its own, or one given by flag, as it is', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://app.staging.example'], env());
    expect(await ls(['-p', 'staging', '--base-url', 'https://api.other.example'])).toEqual([
      'base_url\thttps://api.other.example\tflag',
      'app_url\thttps://app.staging.example\tprofile',
    ]);
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://staging.example'], env());
    expect(
      await ls([
        '-p',
        'staging',
        '--base-url',
        'https://api.other.example',
        '--app-url',
        'https://app.x.example',
      ]),
    ).toEqual(['base_url\thttps://api.other.example\tflag', 'app_url\thttps://app.x.example\tflag']);
  });
});

describe('a login that saves a new base URL', () => {
  it('drops an app_url that was the old base URL from the profile', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'app_url', 'https://staging.example'], env());
    const store = testContext({ env: env() }).ctx.store();
    await store.setProfileValues('staging', { base_url: 'https://api.other.example' });
    expect(profile('staging')).toEqual({ base_url: 'https://api.other.example' });
    await store.setProfileValues('default', { app_url: 'https://app.example.com' });
    await store.setProfileValues('default', { base_url: 'https://api.other.example' });
    expect(profile('default')?.app_url).toBe('https://app.example.com');
  });
});

// everyday13 F7.7: a base URL saved as typed with a trailing "/" made the `auth token` help example
// `curl "$(svc config get base_url)/v1/me"` request //v1/me (404).
describe('config set base_url with a trailing slash', () => {
  it('saves the URL without it', async () => {
    await runInProcess(['-p', 'staging', 'config', 'set', 'base_url', 'https://api.other.example/'], env());
    const r = await runInProcess(['-p', 'staging', 'config', 'get', 'base_url'], env());
    expect([r.code, r.stdout]).toEqual([0, 'https://api.other.example\n']);
  });
});
