/**
 * `svc login` into a profile that holds an OAuth session: the old session is revoked once the new
 * login is stored (never before: a login that fails leaves the old one working), and svc says so;
 * when it cannot be revoked, svc says it is still valid and keeps it in a profile of its own,
 * with the command that ends it. In-process, consentBrowser().
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { consentBrowser, storedCredential, tokenRequest } from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = () => ({
  ...dirs(),
  SVC_CLIENT_ID: 'svc-cli',
  SVC_BASE_URL: sandbox().url,
  SVC_MAX_RETRIES: '0',
});

async function login(decision: 'approve' | 'deny' = 'approve', profile = 'default', more: string[] = []) {
  const browser = consentBrowser({ decision });
  const r = await runInProcess(['login', '-p', profile, ...more], env(), { now: Date.now(), browser });
  await browser.settled();
  return r;
}

const refresh = (refreshToken: string) =>
  tokenRequest(sandbox(), { grant_type: 'refresh_token', client_id: 'svc-cli', refresh_token: refreshToken });

/** An OAuth session of `profile` whose server is gone (a port nothing listens on): it cannot be revoked. */
async function sessionAtClosedServer(profile: string) {
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const closed = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  const old = {
    type: 'oauth' as const,
    access_token: 'eyJold.old.old',
    refresh_token: 'svc_rt_old',
    client_id: 'svc-cli',
    token_url: `${closed}/v1/oauth/token`,
    origin: closed,
    obtained_at: new Date().toISOString(),
  };
  await new ConfigStore(dirs().SVC_CONFIG_DIR).setCredential(profile, old);
  return { closed, old };
}

describe('svc login over an OAuth session', () => {
  it('revokes the session it replaced, after storing the new one, and says so', async () => {
    expect((await login()).code).toBe(0);
    const old = storedCredential(dirs().SVC_CONFIG_DIR).refresh_token;
    const r = await login();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `\\n✓ logged in to .+\\n.+\\nrevoked the previous session of profile "default" at ${sandbox().url}\\n$`,
      ),
    );
    expect((await refresh(old)).body.error_description).toBe('the refresh token was revoked');
    const now = storedCredential(dirs().SVC_CONFIG_DIR).refresh_token;
    expect(now).not.toBe(old);
    expect((await runInProcess(['auth', 'status'], env())).code).toBe(0);
  });

  it('leaves the old session working when the new login fails', async () => {
    expect((await login()).code).toBe(0);
    const before = storedCredential(dirs().SVC_CONFIG_DIR);
    const r = await login('deny');
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain('previous session');
    expect(storedCredential(dirs().SVC_CONFIG_DIR)).toEqual(before);
    expect((await refresh(before.refresh_token)).status).toBe(200);
  });

  // review-d 6: NAME-previous over the 64-character limit of a profile name is cut to fit.
  it.each([
    ['default', 'default-previous'],
    ['q'.repeat(60), `${'q'.repeat(55)}-previous`],
  ])(
    'keeps a session it cannot revoke in a profile of its own (%s), and names the command that ends it',
    async (profile, kept) => {
      const { closed, old } = await sessionAtClosedServer(profile);
      const r = await login('approve', profile);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `\\nwarning: the previous session of profile "${profile}" could not be revoked at ${closed} \\(.+\\), so it is still valid: ` +
            `svc keeps it in profile "${kept}"; end it with \`svc profiles rm ${kept}\`\\n$`,
        ),
      );
      expect(storedCredential(dirs().SVC_CONFIG_DIR, kept)).toEqual(old);
      expect(new ConfigStore(dirs().SVC_CONFIG_DIR).profile(kept)?.base_url).toBe(closed);
      expect(storedCredential(dirs().SVC_CONFIG_DIR, profile).refresh_token).toMatch(/^svc_rt_/);
    },
  );

  // contract12 #6: --json said nothing of the session it replaced (revoked, or kept in NAME-previous).
  it('--json says what became of the replaced session: revoked, kept (in which profile), or none', async () => {
    const first = await login('approve', 'json', ['--json']);
    expect([first.code, JSON.parse(first.stdout).previous_session]).toEqual([0, null]);
    const second = await login('approve', 'json', ['--json']);
    expect([second.code, JSON.parse(second.stdout).previous_session]).toEqual([0, { outcome: 'revoked' }]);
    await sessionAtClosedServer('json');
    const third = await login('approve', 'json', ['--json']);
    expect([third.code, JSON.parse(third.stdout).previous_session]).toEqual([
      0,
      { outcome: 'kept', profile: 'json-previous' },
    ]);
    // --with-token over an OAuth session says the same.
    const token = await runInProcess(['login', '-p', 'json', '--with-token', '--json'], env(), {
      stdin: sandbox().adminToken,
    });
    expect([token.code, JSON.parse(token.stdout).previous_session]).toEqual([0, { outcome: 'revoked' }]);
  });
});
