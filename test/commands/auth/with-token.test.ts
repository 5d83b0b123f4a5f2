/**
 * `svc login --with-token`, in-process: the token read from standard input, checked against the
 * API before it is stored, kept out of config.json; and `svc logout` afterwards. File modes under
 * a umask need a process of their own: test/e2e/file-modes.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { tenantId } from '../../../src/sandbox/seed.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
/** The stored credential's way: no SVC_TOKEN, no SVC_TENANT (login records the tenant). */
const stored = { SVC_TOKEN: undefined, SVC_TENANT: undefined };
const file = (name: string) => readFileSync(join(svc.env().SVC_CONFIG_DIR!, name), 'utf8');

describe('svc login --with-token', () => {
  it('stores a token from stdin after checking it, and never in config.json', async () => {
    const token = svc.sandbox().adminToken;
    expect(await svc.run(['login', '--with-token'], { env: stored, stdin: `${token}\n` })).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ Logged in to ${svc.sandbox().url} as Ada Admin (profile "default")\n`,
    });
    expect(JSON.parse(file('credentials.json')).profiles.default).toMatchObject({
      type: 'token',
      access_token: token,
    });
    expect(file('config.json')).not.toContain(token);
    expect(JSON.parse(file('config.json')).profiles.default).toMatchObject({
      base_url: svc.sandbox().url,
      tenant: svc.env().SVC_TENANT,
    });
  });

  // review17b R17b-9: the ✓ line printed a base_url's ?token= whole, which `profiles ls` masks.
  it('names the server masked as `profiles ls` shows it', async () => {
    const base = `${svc.sandbox().url}/?token=abcdefsecret`;
    const own = mkdtempSync(join(tmpdir(), 'svc-masked-')); // the other tests' store left as it is
    const r = await svc.run(['login', '--with-token', '--base-url', base], {
      env: { ...stored, SVC_CONFIG_DIR: join(own, 'config') },
      stdin: `${svc.sandbox().adminToken}\n`,
    });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ Logged in to ${svc.sandbox().url}/?token=[redacted] as Ada Admin (profile "default")\n`,
    });
    rmSync(own, { recursive: true, force: true });
  });

  it('takes the token with surrounding whitespace removed, and says so', async () => {
    const r = await svc.run(['login', '--with-token'], {
      env: stored,
      stdin: `  ${svc.sandbox().adminToken}\n`,
    });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        'warning: standard input has whitespace around the secret (beyond one final newline); it was removed\n' +
        `✓ Logged in to ${svc.sandbox().url} as Ada Admin (profile "default")\n`,
    });
  });

  it('refuses a token the API rejects with exit 3, and keeps the stored one', async () => {
    const before = file('credentials.json');
    expect(
      await svc.run(['login', '--with-token'], { env: stored, stdin: 'svc_pk_not_a_real_key\n' }),
    ).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: the token read from standard input was rejected by GET /v1/me: unknown or revoked API key; check that the whole token was copied, and that it is still valid; nothing was stored\n',
    });
    expect(file('credentials.json')).toBe(before);
  });

  it.each([
    ['no input', '', 'error: no token on standard input; pipe an API key or JWT into svc\n'],
    ['two tokens', 'a b', 'error: standard input contains whitespace; it must hold exactly one token\n'],
  ])('refuses %s on stdin with exit 2', async (_what, stdin, stderr) => {
    const before = file('credentials.json');
    expect(await svc.run(['login', '--with-token'], { env: stored, stdin })).toEqual({
      code: 2,
      stdout: '',
      stderr,
    });
    expect(file('credentials.json')).toBe(before);
  });
});

// Review s9, 3: with --tenant SLUG, the slug was resolved through the profile's own credential (none
// on a new profile, another login on an old one), and a valid token was refused as mistyped.
describe('svc login --with-token --tenant: the tenant is found with the token given', () => {
  const loggedIn = (profile: string) =>
    `✓ Logged in to ${svc.sandbox().url} as Ada Admin (profile "${profile}")\n`;
  const login = (profile: string, tenant: string) =>
    svc.run(['-p', profile, '--tenant', tenant, 'login', '--with-token'], {
      env: stored,
      stdin: `${svc.sandbox().adminToken}\n`,
    });

  it.each([
    ['a new profile and a slug', 'new-slug', 'acme-labs'],
    ['a new profile and a tenant id', 'new-id', tenantId('acme-labs')],
  ])('%s', async (_what, profile, tenant) => {
    expect(await login(profile, tenant)).toEqual({ code: 0, stdout: '', stderr: loggedIn(profile) });
    expect(JSON.parse(file('credentials.json')).profiles[profile].access_token).toBe(
      svc.sandbox().adminToken,
    );
  });

  it('a profile whose stored credential is no longer valid, and a slug', async () => {
    const store = new ConfigStore(svc.env().SVC_CONFIG_DIR!);
    await store.setProfileValues('old-slug', { base_url: svc.sandbox().url });
    await store.setCredential('old-slug', {
      type: 'token',
      access_token: 'svc_pk_revoked_long_ago',
      obtained_at: '2026-01-01T00:00:00Z',
    });
    // The replaced key is asked about, as at logout (everyday13 F9): refused, so nothing to revoke.
    expect(await login('old-slug', 'acme-labs')).toEqual({
      code: 0,
      stdout: '',
      stderr:
        loggedIn('old-slug') +
        'The platform no longer accepts the replaced API key (it was revoked, or is unknown there): nothing is left to revoke.\n',
    });
    expect(store.credential('old-slug')?.access_token).toBe(svc.sandbox().adminToken);
  });
});

describe('svc logout', () => {
  it('removes the stored credential, says so, and is idempotent about it; afterwards the profile is not logged in', async () => {
    expect(await svc.run(['logout'], { env: stored })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ Logged out of profile "default" (${svc.sandbox().url}): removed the credential\n` +
        'warning: the token itself stays valid until it expires: svc only forgot it\n',
    });
    expect(await svc.run(['logout'], { env: stored })).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Profile "default" has no stored credential; nothing to do\n',
    });
    expect(await svc.run(['me'], { env: stored })).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: not logged in: profile "default" has no credential; run `svc login` (or `svc login --with-token`), or set SVC_TOKEN\n',
    });
  });
});

describe('svc login --with-token TOKEN (an argument)', () => {
  it('is refused (exit 2) saying to use standard input and to rotate the token, which it never echoes', async () => {
    const r = await svc.run(['login', '--with-token', 'svc_pk_typed_secret'], { env: stored });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --with-token reads the token from standard input, never from an argument: `svc login --with-token < token.txt`; ' +
        'the token you typed is now in your shell history (and was visible to other processes): rotate it\n',
    });
  });

  it('without --with-token an argument is still too many', async () => {
    const r = await svc.run(['login', 'extra'], { env: stored });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "error: too many arguments for 'login'. Expected 0 arguments but got 1; see `svc login --help`\n",
    });
  });
});
