/**
 * `svc auth status` after `svc oauth update` took a scope off the client: the scopes shown are
 * what the platform grants the token now (GET /v1/me), not the list stored at login; and a
 * refresh stores the narrower scope the token endpoint answers (RFC 6749 §5.1). In-process.
 */
import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { codeTokens, createClient, storedCredential, TREASURY } from '../../helpers/oauth.js';
import { call, useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();

/** A profile logged in through a confidential client with two scopes, as `svc login` stores it. */
async function loggedIn(left: string[] = ['read:exceptions'], profile = 'default') {
  const client = await createClient(sandbox());
  const tokens = await codeTokens(sandbox(), client);
  const env = { ...dirs(), SVC_BASE_URL: sandbox().url, SVC_TENANT: TREASURY };
  await new ConfigStore(env.SVC_CONFIG_DIR).setCredential(profile, {
    type: 'oauth',
    access_token: tokens.body.access_token,
    refresh_token: tokens.body.refresh_token,
    expires_at: new Date(Date.now() + 3600_000).toISOString(),
    scope: tokens.body.scope,
    client_id: client.client_id,
    client_secret: client.client_secret,
    token_url: `${sandbox().url}/v1/oauth/token`,
    origin: sandbox().url,
    obtained_at: new Date().toISOString(),
  });
  const r = await call(sandbox(), 'PATCH', `/v1/oauth/clients/${client.client_id}`, {
    token: sandbox().adminToken,
    tenant: TREASURY,
    body: { scopes: left },
  });
  if (r.status !== 200) throw new Error(r.text);
  return { client, env };
}

describe('svc auth status after a scope was taken off the client', () => {
  it('shows the scopes the platform grants now, not those stored at login', async () => {
    const { env } = await loggedIn();
    expect(storedCredential(env.SVC_CONFIG_DIR).scope).toBe('read:reconciliations read:exceptions');
    const text = await runInProcess(['auth', 'status'], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('\nscopes\tread:exceptions\n');
    const json = await runInProcess(['auth', 'status', '--json'], env);
    expect(JSON.parse(json.stdout).credential.scopes).toEqual(['read:exceptions']);
  });

  it('a token left with no scope says so (an empty list, not "no scope limit") and exits 4 (review-c f1)', async () => {
    // The login was granted read:reconciliations and read:exceptions; the client keeps neither.
    const { client, env } = await loggedIn(['read:tenants'], 'app');
    const json = await runInProcess(['-p', 'app', 'auth', 'status', '--json'], env);
    expect(json.code).toBe(4);
    const status = JSON.parse(json.stdout);
    expect([status.logged_in, status.credential.scopes, status.identity.credential.scopes]).toEqual([
      true,
      [],
      [],
    ]);
    const refusal =
      'the token of profile "app" has no scope left: client ' +
      `${client.client_id} no longer has any scope this login was granted, so every call that needs a scope is refused`;
    expect(status.error).toBe(refusal);
    const text = await runInProcess(['-p', 'app', 'auth', 'status'], env);
    expect(text.code).toBe(4);
    expect(text.stdout).toContain('\nstatus\tlogged in, with no scope left\n');
    expect(text.stdout).toContain(`\nscopes\tnone (client ${client.client_id} lost them)\n`);
    // The login to run again is this profile's, with its client (review-g: it named neither).
    expect(text.stderr).toBe(
      `error: ${refusal}; run \`svc -p app login --client-id ${client.client_id} --client-secret-file FILE\` again ` +
        '(a confidential client: its secret from --client-secret-file, --client-secret-stdin or SVC_CLIENT_SECRET) ' +
        'for the scopes the client has now, or ask an admin to give ' +
        `the client back the ones you need (svc -p app oauth update ${client.client_id} --scope S)\n`,
    );
  });

  it('stores the narrower scope of the next refresh', async () => {
    const { env } = await loggedIn();
    // An hour on: the access token has expired, so `auth token` refreshes it.
    const r = await runInProcess(['auth', 'token'], env, { now: Date.now() + 2 * 3600_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(storedCredential(env.SVC_CONFIG_DIR).scope).toBe('read:exceptions');
  });
});
