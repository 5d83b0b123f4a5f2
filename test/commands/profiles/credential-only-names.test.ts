/**
 * Session 25: a profile with a stored credential and no settings entry is a profile (the store's
 * rule, `hasProfile`; `ConfigStore.profileNames()`), in every list of profile names svc prints or
 * acts on, not only in `profiles ls` and `rm`. These lists took config.json's names alone: the
 * "yours: …" hints, the check that other profiles exist before "default" is made, the first
 * profile made active, and `-p` completion. The store is written by hand: profile "admin" has a
 * credential and no settings, profile "key" (when present) has settings and no credential.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../../helpers/context.js';
import { tempDir } from '../../helpers/temp.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const URL = 'https://api.example.com';

function store(config: Record<string, unknown>): Record<string, string> {
  const dir = tempDir('svc-credential-only-');
  dirs.push(dir);
  chmodSync(dir, 0o700);
  const credentials = {
    profiles: {
      admin: {
        type: 'token',
        access_token: 'svc_sk_live_0123456789abcdefWXYZ',
        origin: URL,
        obtained_at: '2026-01-15T12:00:00.000Z',
      },
    },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
  return {
    SVC_CONFIG_DIR: dir,
    SVC_STATE_DIR: join(dir, 'state'),
    SVC_CACHE_DIR: join(dir, 'cache'),
    NO_COLOR: '1',
  };
}

const WITH_KEY = { profiles: { key: { base_url: URL } } };
const config = (env: Record<string, string>) =>
  JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR!, 'config.json'), 'utf8'));

describe('a profile with a credential and no settings is named in every list of profiles', () => {
  it('-p with a typo suggests it', async () => {
    expect(await runInProcess(['-p', 'admn', 'config', 'get', 'tenant'], store(WITH_KEY))).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: no profile named "admn" (did you mean admin?); see `svc profiles ls`; create one with `svc -p admn config set base_url URL` (or `svc -p admn login --base-url URL`)\n',
    });
  });

  it('an active profile that does not exist: the hint lists it among yours', async () => {
    expect(
      await runInProcess(['config', 'get', 'tenant'], store({ ...WITH_KEY, active_profile: 'gone' })),
    ).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: the active profile "gone" does not exist; choose one with `svc profiles use NAME` (yours: admin, key)\n',
    });
  });

  // With no active profile, "default" is made only on a first run (no profile at all): here
  // "admin" exists, so `config set` refuses as it does when another profile has settings.
  it('none active and no "default": config set says so and makes no "default"', async () => {
    const env = store({});
    expect(await runInProcess(['config', 'set', 'org', 'org_demo'], env)).toEqual({
      code: 5,
      stdout: '',
      stderr: 'error: no profile is active; choose one with `svc profiles use NAME` (yours: admin)\n',
    });
    expect(config(env)).toEqual({});
  });

  it('a profile made with -p is not "the first profile": it is not made active', async () => {
    const env = store({});
    const r = await runInProcess(['-p', 'new', 'config', 'set', 'base_url', URL, '--json'], env);
    expect([r.code, JSON.parse(r.stdout)]).toEqual([
      0,
      { profile: 'new', key: 'base_url', value: URL, profile_created: true, made_active: false },
    ]);
    expect(config(env).active_profile).toBeUndefined();
  });

  it("profiles ls's note on no active profile lists it", async () => {
    const r = await runInProcess(['profiles', 'ls'], store(WITH_KEY));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      'no profile is active; choose one with `svc profiles use NAME` (yours: admin, key)\n',
    );
  });

  it('profiles rm of the active profile: the warning lists it', async () => {
    const env = store({ ...WITH_KEY, active_profile: 'key' });
    expect(await runInProcess(['profiles', 'rm', 'key', '--yes'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ removed profile "key" (${URL})\n` +
        'warning: no profile is active now; choose one with `svc profiles use NAME` (yours: admin)\n',
    });
  });

  it('-p completion offers it', async () => {
    expect(await runInProcess(['__complete', 'profiles'], store(WITH_KEY))).toEqual({
      code: 0,
      stdout: 'admin\nkey\n',
      stderr: '',
    });
  });
});
