import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { runInProcess } from '../helpers/context.js';
import { consentBrowser } from '../helpers/oauth.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Ctrl-C (SIGTERM, SIGHUP) while `svc logout` or `svc profiles rm` ends an OAuth session (review
// s14 crash14 #4): nothing is removed — the refresh token is what lets the same command end the
// session — and svc says it was interrupted (exit 130), never that the server refused.
const sandbox = useSandbox();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Where Ctrl-C is pressed: while this request is on its way to the server (then it is answered). */
let pressAt: { request: string; press: () => void } | undefined;
let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const at = `${request.method} ${request.url}`;
      if (pressAt?.request === at) {
        pressAt.press();
        pressAt = undefined;
      }
      const answer =
        at === 'GET /.well-known/oauth-authorization-server'
          ? {
              issuer: url,
              token_endpoint: `${url}/v1/oauth/token`,
              revocation_endpoint: `${url}/v1/oauth/revoke`,
            }
          : {};
      // Answered after the interruption has reached svc.
      setImmediate(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

async function profile(name: string) {
  const dir = tempDir('svc-logout-int-');
  dirs.push(dir);
  const store = new ConfigStore(dir);
  const credential: StoredCredential = {
    type: 'oauth',
    access_token: 'at-scripted',
    refresh_token: 'rt-scripted-0123456789',
    client_id: 'client-1',
    token_url: `${url}/v1/oauth/token`,
    obtained_at: new Date().toISOString(),
  };
  await store.setCredential(name, credential);
  await store.setProfileValues(name, { base_url: url });
  return { store, credential, env: { SVC_CONFIG_DIR: dir, SVC_MAX_RETRIES: '0', NO_COLOR: '1' } };
}

const SENT = 'the revocation was sent, so the session may or may not be revoked; nothing was removed';

describe('svc logout and svc profiles rm, interrupted', () => {
  it.each([
    [
      'logout, after the revocation was sent',
      ['-p', 'lp', 'logout'],
      'POST /v1/oauth/revoke',
      `error: interrupted while ending the session of profile "lp": ${SENT}; run \`svc -p lp logout\` again to end it (revoking it twice is harmless)\n`,
    ],
    [
      'profiles rm, after the revocation was sent',
      ['profiles', 'rm', 'lp', '--yes'],
      'POST /v1/oauth/revoke',
      `error: interrupted while ending the session of profile "lp": ${SENT}; run \`svc profiles rm lp\` again to end it (revoking it twice is harmless)\n`,
    ],
    [
      'logout, before the revocation was sent',
      ['-p', 'lp', 'logout'],
      'GET /.well-known/oauth-authorization-server',
      'error: interrupted while ending the session of profile "lp": the revocation was not sent; nothing was removed; run `svc -p lp logout` again to end it\n',
    ],
  ])('%s: exit 130, nothing removed, "interrupted"', async (_what, argv, request, stderr) => {
    const { store, credential, env } = await profile('lp');
    const controller = new AbortController();
    pressAt = { request, press: () => controller.abort() };
    const r = await runInProcess(argv, env, { signal: controller.signal });
    expect(r).toEqual({ code: 130, stdout: '', stderr });
    expect(pressAt).toBeUndefined();
    expect(store.credential('lp')).toEqual(credential);
    expect(store.hasProfile('lp')).toBe(true);
  });

  // fix-store17 #4: the question to the platform about a stored API key swallowed Ctrl-C and the
  // key was forgotten all the same (exit 0, "✓ logged out").
  it.each([
    ['logout', ['-p', 'lk', 'logout'], 'svc -p lk logout'],
    ['profiles rm', ['profiles', 'rm', 'lk', '--yes'], 'svc profiles rm lk'],
  ])(
    '%s of a stored API key, interrupted while asking the platform about it: exit 130, nothing removed',
    async (_what, argv, again) => {
      const dir = tempDir('svc-logout-int-');
      dirs.push(dir);
      const store = new ConfigStore(dir);
      const credential: StoredCredential = {
        type: 'token',
        access_token: 'svc_pk_0123456789abcdefWXYZ',
        obtained_at: new Date().toISOString(),
      };
      await store.setCredential('lk', credential);
      await store.setProfileValues('lk', { base_url: url });
      const controller = new AbortController();
      pressAt = { request: 'GET /v1/me', press: () => controller.abort() };
      const r = await runInProcess(
        argv,
        { SVC_CONFIG_DIR: dir, SVC_MAX_RETRIES: '0', NO_COLOR: '1' },
        {
          signal: controller.signal,
        },
      );
      expect(r).toEqual({
        code: 130,
        stdout: '',
        stderr: `error: interrupted while asking the platform about the API key of profile "lk"; nothing was removed; run \`${again}\` again to forget it\n`,
      });
      expect(pressAt).toBeUndefined();
      expect(store.credential('lk')).toEqual(credential);
      expect(store.profile('lk')).toEqual({ base_url: url });
    },
  );

  it('a profile an older svc saved under a credential’s name: the interrupted line masks it', async () => {
    const name = 'svc_sk_hFyY6xMJkhSRIijloIkdgRXG6BSkcdHX';
    const dir = tempDir('svc-logout-int-');
    dirs.push(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { [name]: { base_url: url } } }), {
      mode: 0o600,
    });
    const credentials = JSON.stringify({
      profiles: { [name]: { type: 'token', access_token: 'svc_pk_0123456789abcdefWXYZ' } },
    });
    writeFileSync(join(dir, 'credentials.json'), credentials, { mode: 0o600 });
    const controller = new AbortController();
    pressAt = { request: 'GET /v1/me', press: () => controller.abort() };
    const r = await runInProcess(
      ['-p', name, 'logout'],
      { SVC_CONFIG_DIR: dir, SVC_MAX_RETRIES: '0', NO_COLOR: '1' },
      { signal: controller.signal },
    );
    expect(r).toEqual({
      code: 130,
      stdout: '',
      stderr:
        'error: interrupted while asking the platform about the API key of profile "svc_sk_[redacted]"; nothing was removed; run `svc -p "$NAME" logout` again to forget it\n',
    });
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(credentials);
  });

  it('a login that replaced the session, interrupted while revoking the old one: kept in a profile of its own, never "refused"', async () => {
    const { store, credential, env } = await profile('lr');
    const controller = new AbortController();
    pressAt = { request: 'POST /v1/oauth/revoke', press: () => controller.abort() };
    const browser = consentBrowser();
    const r = await runInProcess(
      // --base-url: moving a profile to another server is said, never taken from SVC_BASE_URL (F4).
      ['login', '-p', 'lr', '--base-url', sandbox().url],
      { ...env, SVC_CLIENT_ID: 'svc-cli' },
      { now: Date.now(), browser, signal: controller.signal },
    );
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').slice(-2)).toEqual([
      `warning: the previous session of profile "lr" was being revoked at ${url} when svc was interrupted, after the revocation was sent, so it may still be valid: svc keeps it in profile "lr-previous"; end it with \`svc profiles rm lr-previous\``,
      '',
    ]);
    expect(store.credential('lr-previous')).toEqual(credential);
  });
});
