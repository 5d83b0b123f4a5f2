/**
 * fix-store17 #5: the ✓ line after a change to the store's profiles (`svc logout`, `svc profiles
 * rm`, `svc config unset`) named no profile or server, though the question before it does: a user
 * with several profiles (prod and staging are copies) could not tell which one was changed.
 */
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess, useFreshDirs } from '../helpers/context.js';

const dirs = useFreshDirs();
const PROD = 'https://api.prod.example';
const STAGING = 'https://api.staging.example';

async function twoProfiles() {
  const env = dirs();
  const store = new ConfigStore(env.SVC_CONFIG_DIR);
  for (const [name, base_url] of [
    ['prod', PROD],
    ['staging', STAGING],
  ] as const) {
    await store.setProfileValues(name, { base_url, tenant: 'acme-treasury' });
    await store.setCredential(name, {
      type: 'token',
      access_token: `svc_pk_${name}0123456789abcdefWXYZ`,
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
  }
  await store.setActiveProfile('staging');
  return { env, store };
}

describe('the ✓ line after a change to a profile names the profile and its server', () => {
  it.each([
    [
      ['-p', 'prod', 'logout', '--no-revoke'],
      `✓ logged out of profile "prod" (${PROD}): removed the credential`,
    ],
    [['logout', '--no-revoke'], `✓ logged out of profile "staging" (${STAGING}): removed the credential`],
    [['profiles', 'rm', 'prod', '--yes', '--no-revoke'], `✓ removed profile "prod" (${PROD})`],
    [['-p', 'prod', 'config', 'unset', 'tenant'], `✓ unset tenant for profile "prod" (${PROD})`],
    [['-p', 'prod', 'config', 'unset', 'base_url'], `✓ unset base_url for profile "prod" (it was ${PROD})`],
  ])('svc %j', async (argv, line) => {
    const { env } = await twoProfiles();
    const r = await runInProcess(argv, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(line);
  });

  it('keeps --json as it was: it names the profile already', async () => {
    const { env, store } = await twoProfiles();
    const r = await runInProcess(['-p', 'prod', 'logout', '--no-revoke', '--json'], env);
    // The one verdict of every rm (verdict.ts, attack26a F6): `outcome` says what `removed` says,
    // in a word of logout's own, the credential under its noun: `{outcome: "removed", profile}` is
    // profiles rm's, and the profile stays (review27a F3). The keys before the verdict stay.
    const verdict = (removed: boolean, apiKey: unknown) => ({
      profile: 'prod',
      removed,
      revoked: false,
      revocation: 'not_applicable',
      api_key: apiKey,
      outcome: removed ? 'logged_out' : 'nothing_to_remove',
      credential: removed ? { profile: 'prod', api_key: apiKey } : null,
    });
    const unknownKey = {
      state: 'unknown',
      id: null,
      tenant: 'acme-treasury',
      stopped_reason: null,
      revoke_command: null,
    };
    expect([r.code, r.stdout]).toEqual([0, `${JSON.stringify(verdict(true, unknownKey), null, 2)}\n`]);
    expect(store.credential('prod')).toBeUndefined();
    const again = await runInProcess(['-p', 'prod', 'logout', '--no-revoke', '--json'], env);
    expect([again.code, again.stdout]).toEqual([0, `${JSON.stringify(verdict(false, null), null, 2)}\n`]);
    expect(store.credential('staging')).toBeDefined();
  });
});

/**
 * review17b R17b-3, R17b-9: the line named the --base-url / SVC_BASE_URL override (a server the
 * profile was never for) and printed a base_url's `?token=` whole, which `profiles ls` masks.
 */
describe('the ✓ line names the stored server, masked as `profiles ls` shows it', () => {
  const OVERRIDE = 'https://override.example';
  it.each([
    [
      ['logout', '-p', 'prod', '--no-revoke'],
      `✓ logged out of profile "prod" (${PROD}): removed the credential`,
    ],
    [['profiles', 'rm', 'prod', '--yes', '--no-revoke'], `✓ removed profile "prod" (${PROD})`],
    [['config', 'unset', 'tenant', '-p', 'prod'], `✓ unset tenant for profile "prod" (${PROD})`],
  ])('svc %j with SVC_BASE_URL and --base-url set elsewhere', async (argv, line) => {
    for (const [flag, extra] of [
      [[], { SVC_BASE_URL: OVERRIDE }],
      [['--base-url', OVERRIDE], {}],
    ] as const) {
      const fresh = await twoProfiles();
      const r = await runInProcess([...flag, ...argv], { ...fresh.env, ...extra });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.split('\n')[0]).toBe(line);
    }
  });

  it.each([
    [
      ['-p', 'x', 'logout', '--no-revoke'],
      '✓ logged out of profile "x" (https://api.example.com/?token=[redacted]): removed the credential',
    ],
    [
      ['profiles', 'rm', 'x', '--yes', '--no-revoke'],
      '✓ removed profile "x" (https://api.example.com/?token=[redacted])',
    ],
    [
      ['-p', 'x', 'config', 'unset', 'tenant'],
      '✓ unset tenant for profile "x" (https://api.example.com/?token=[redacted])',
    ],
    [
      ['-p', 'x', 'config', 'unset', 'base_url'],
      '✓ unset base_url for profile "x" (it was https://api.example.com/?token=[redacted])',
    ],
  ])('svc %j with a base_url that carries ?token=', async (argv, line) => {
    const env = dirs();
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    await store.setProfileValues('x', {
      base_url: 'https://api.example.com/?token=abcdefsecret',
      tenant: 'acme-treasury',
    });
    await store.setCredential('x', {
      type: 'token',
      access_token: 'svc_pk_x0123456789abcdefWXYZ',
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    const r = await runInProcess(argv, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(line);
    expect(r.stderr).not.toContain('abcdefsecret');
  });
});
