/**
 * attack29b F3: after an OAuth client's secret was rotated, `svc logout` and a login that replaced
 * the session threw the stored session away although the platform refused to revoke it
 * (invalid_client: the old secret), SVC_CLIENT_SECRET was ignored at logout, and a re-login did not
 * use the new secret it was given, nor keep NAME-previous as its help promises. In-process against
 * a sandbox, consentBrowser() playing the user at the consent page.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { consentBrowser, createClient, storedCredential, tokenRequest } from '../helpers/oauth.js';
import { ACME, call, useSandboxContext } from '../helpers/sandbox.js';
import { useTempDir } from '../helpers/temp.js';

const svc = useSandboxContext();
const files = useTempDir('svc-logout-rotated-');
afterAll(() => rmSync(files, { recursive: true, force: true }));
const realTime = { now: Date.now() };

let configs = 0;
const anonymous = (config: string) => ({
  SVC_TOKEN: undefined,
  SVC_TENANT: undefined,
  SVC_CONFIG_DIR: config,
});

/** A confidential client, its secret in a file; and a fresh config directory. */
async function client(): Promise<{ id: string; file: string; config: string }> {
  const made = await createClient(svc.sandbox());
  const file = join(files, `${made.client_id}.secret`);
  writeFileSync(file, `${made.client_secret}\n`, { mode: 0o600 });
  return { id: made.client_id, file, config: join(files, `config-${++configs}`) };
}

async function rotate(id: string): Promise<{ secret: string; file: string }> {
  const r = await call(svc.sandbox(), 'POST', `/v1/oauth/clients/${id}/rotate-secret`, {
    token: svc.sandbox().adminToken,
    tenant: ACME,
    body: { idempotency_key: `rotate-${Math.random()}` },
  });
  if (r.status !== 200) throw new Error(`rotate: ${r.status} ${r.text}`);
  const file = join(files, `${id}-${configs}-rotated.secret`);
  writeFileSync(file, `${r.body.client_secret}\n`, { mode: 0o600 });
  return { secret: r.body.client_secret, file };
}

async function login(config: string, ...more: string[]) {
  const browser = consentBrowser();
  const r = await svc.run(['login', '-p', 'oc', ...more], { env: anonymous(config), browser, ...realTime });
  await browser.settled();
  expect(r.code, r.stderr).toBe(0);
  return r;
}

const refresh = (id: string, secret: string, token: string) =>
  tokenRequest(svc.sandbox(), {
    grant_type: 'refresh_token',
    client_id: id,
    client_secret: secret,
    refresh_token: token,
  });

describe("a session whose client's secret was rotated since the login", () => {
  it('logout keeps it (nothing removed) and ends it with SVC_CLIENT_SECRET', async () => {
    const { id, file, config } = await client();
    await login(config, '--client-id', id, '--client-secret-file', file);
    const before = storedCredential(config, 'oc');
    const { secret } = await rotate(id);

    const refused = await svc.run(['-p', 'oc', 'logout'], { env: anonymous(config), ...realTime });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: could not revoke the session of profile "oc": the server accepted neither the stored client secret of client ${id} (client authentication failed; was the secret rotated since the login?); the session may still be valid, so nothing was removed; run it again with the client’s current secret: \`SVC_CLIENT_SECRET="$(cat FILE)" svc -p oc logout\`, or \`svc -p oc logout --no-revoke\` to forget the credential here without revoking it (its session then stays valid until it expires)\n`,
    );
    expect(storedCredential(config, 'oc')).toEqual(before);

    const ended = await svc.run(['-p', 'oc', 'logout'], {
      env: { ...anonymous(config), SVC_CLIENT_SECRET: secret },
      ...realTime,
    });
    expect(ended.code, ended.stderr).toBe(0);
    expect(new ConfigStore(config).credential('oc')).toBeUndefined();
    expect((await refresh(id, secret, before.refresh_token)).body.error_description).toBe(
      'the refresh token was revoked',
    );
  });

  it('a re-login with the new secret revokes the old session with it', async () => {
    const { id, file, config } = await client();
    await login(config, '--client-id', id, '--client-secret-file', file);
    const old = storedCredential(config, 'oc').refresh_token;
    const rotated = await rotate(id);
    const r = await login(config, '--client-id', id, '--client-secret-file', rotated.file);
    expect(r.stderr).toContain(`revoked the previous session of profile "oc" at ${svc.sandbox().url}\n`);
    expect((await refresh(id, rotated.secret, old)).body.error_description).toBe(
      'the refresh token was revoked',
    );
  });

  it('a re-login through another client keeps the old session in oc-previous', async () => {
    const { id, file, config } = await client();
    await login(config, '--client-id', id, '--client-secret-file', file);
    const old = storedCredential(config, 'oc');
    const rotated = await rotate(id);
    const r = await login(config, '--client-id', 'svc-cli');
    expect(r.stderr).toContain(
      `warning: the previous session of profile "oc" could not be revoked at ${svc.sandbox().url}: the server refused the client secret svc holds for it (client authentication failed; was it rotated?), so it may still be valid: svc keeps it in profile "oc-previous"; end it with \`SVC_CLIENT_SECRET="$(cat FILE)" svc profiles rm oc-previous\` (FILE: the client’s current secret)\n`,
    );
    expect(storedCredential(config, 'oc-previous')).toEqual(old);
    const rm = await svc.run(['profiles', 'rm', 'oc-previous', '--yes'], {
      env: { ...anonymous(config), SVC_CLIENT_SECRET: rotated.secret },
      ...realTime,
    });
    expect(rm.code, rm.stderr).toBe(0);
    expect((await refresh(id, rotated.secret, old.refresh_token)).body.error_description).toBe(
      'the refresh token was revoked',
    );
  });

  // review29c L2: SVC_CLIENT_SECRET was read (and checked) before the first revoke was tried, so a
  // malformed one set for something else made a logout the stored secret can do exit 2.
  it('a malformed SVC_CLIENT_SECRET is not read while the stored secret works', async () => {
    const { id, file, config } = await client();
    await login(config, '--client-id', id, '--client-secret-file', file);
    const r = await svc.run(['-p', 'oc', 'logout'], {
      env: { ...anonymous(config), SVC_CLIENT_SECRET: 'two words' },
      ...realTime,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(storedCredential(config, 'oc')).toBeUndefined();
  });

  it('a malformed SVC_CLIENT_SECRET, once the stored secret is refused: its one-line error, nothing removed', async () => {
    const { id, file, config } = await client();
    await login(config, '--client-id', id, '--client-secret-file', file);
    const before = storedCredential(config, 'oc');
    await rotate(id);
    const r = await svc.run(['-p', 'oc', 'logout'], {
      env: { ...anonymous(config), SVC_CLIENT_SECRET: 'two words' },
      ...realTime,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: SVC_CLIENT_SECRET contains whitespace; it must hold exactly one client secret\n',
    );
    expect(storedCredential(config, 'oc')).toEqual(before);
  });
});
