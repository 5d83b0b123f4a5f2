/**
 * review22d F4: every OAuth expiry svc stores is measured on this machine's clock (auth status,
 * refresh, the login's words), but a token answer without `expires_in` (platform-api.md does not
 * promise it) had its expiry stored as the JWT's `exp`, a time on the issuer's clock. With the
 * platform 3 h ahead, a token with an hour left showed "expires in 4 hours"; with it 3 h behind, an
 * hour's token was stored as expired two hours ago, so every command refreshed it again. Now the
 * `exp` is moved to this machine's clock by the token endpoint's Date at receipt. Played by a proxy
 * in front of the sandbox that strips `expires_in` from the token endpoint's answers.
 */
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { startInProcess, useTempDirs } from '../../helpers/context.js';
import { codeTokens, consentBrowser, createClient, TREASURY } from '../../helpers/oauth.js';
import { useReshapingProxy } from '../../helpers/reshaping-proxy.js';
import { sandboxNow, setSandboxClock, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({}, { tenant: false });
const proxy = useReshapingProxy(svc.sandbox);
const dirs = useTempDirs();
const HOUR = 3600_000;
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
const terminal = { tty: { stdout: true }, columns: 200 } as const;

/** The token endpoint's answers without `expires_in`: only the JWT's `exp` says when the token ends. */
function withoutExpiresIn(): void {
  proxy().set({
    reshape: (answer) => {
      if (!answer.path.startsWith('/v1/oauth/token') || typeof answer.body !== 'object') return;
      delete (answer.body as Record<string, unknown>).expires_in;
    },
  });
}
const tokenRequests = () => proxy().seen.filter((line) => line.startsWith('POST /v1/oauth/token')).length;

describe('an OAuth token answered without expires_in, the platform’s clock 3 h off', () => {
  it('svc login with the platform 3 h ahead: "expires in 60 minutes", and auth status says the same', async () => {
    withoutExpiresIn();
    const machine = await sandboxNow(svc.sandbox());
    setSandboxClock(svc.sandbox(), machine + 3 * HOUR);
    try {
      // The consent pages straight from the sandbox (its own issuer); the API and its token endpoint through the proxy.
      const env = {
        ...dirs(),
        SVC_TOKEN: undefined,
        SVC_BASE_URL: proxy().url,
        SVC_APP_URL: svc.sandbox().url,
        SVC_CLIENT_ID: 'svc-cli',
      };
      const browser = consentBrowser();
      const login = await startInProcess(['login'], env, { now: machine, browser }).done;
      await browser.settled();
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toMatch(/; the access token expires in 60 minutes \(refreshed automatically\)\n$/);
      expect(tokenRequests()).toBe(1);

      const status = await svc.run(['auth', 'status'], { env, now: machine, ...terminal });
      expect(status.code, status.stderr).toBe(0);
      expect(status.stdout).toMatch(new RegExp(`^expires +${TIME} \\(in 60 minutes\\)$`, 'm'));
    } finally {
      setSandboxClock(svc.sandbox(), Date.now());
    }
  });

  it('a refresh with the platform 3 h behind: the new token "in 60 minutes", and the next command does not refresh it again', async () => {
    withoutExpiresIn();
    const client = await createClient(svc.sandbox(), {
      name: 'clock-refresh',
      scopes: ['admin'],
      grant_types: ['authorization_code', 'refresh_token'],
    });
    const tokens = await codeTokens(svc.sandbox(), client, { scope: 'admin' });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    // This machine 3 h ahead of the platform; the stored token expired a minute ago on its clock.
    const machine = (await sandboxNow(svc.sandbox())) + 3 * HOUR;
    const env = { ...dirs(), SVC_TOKEN: undefined, SVC_BASE_URL: undefined };
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    await store.setProfileValues('default', { base_url: proxy().url, tenant: TREASURY });
    await store.setCredential('default', {
      type: 'oauth',
      access_token: tokens.body.access_token,
      refresh_token: tokens.body.refresh_token,
      expires_at: new Date(machine - 60_000).toISOString(),
      scope: tokens.body.scope,
      client_id: client.client_id,
      client_secret: client.client_secret,
      token_url: `${proxy().url}/v1/oauth/token`,
      origin: proxy().url,
      obtained_at: new Date(machine - HOUR).toISOString(),
    });
    const status = await svc.run(['auth', 'status'], { env, now: machine, ...terminal });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^status +logged in$/m);
    expect(status.stdout).toMatch(new RegExp(`^expires +${TIME} \\(in 60 minutes\\)$`, 'm'));
    expect(tokenRequests()).toBe(1);

    const again = await svc.run(['auth', 'status', '--json'], { env, now: machine + 60_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(tokenRequests()).toBe(1);
  });
});
