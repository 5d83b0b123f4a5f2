/**
 * review18 R18-2: a user logged in with `svc login --client-id` (their tenant's own OAuth client) is
 * refused the users-only operations (minting a standing credential) as an integration would be,
 * and the platform's words ("ask the user to do it with their own login") told them nothing: they
 * are that user. svc says what the login is and the way out.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { SEEDED_WEBHOOKS } from '../../../src/sandbox/delivery/events.js';
import { runInProcess } from '../../helpers/context.js';
import { codeTokens, createClient, TREASURY } from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';
import { tempDir } from '../../helpers/temp.js';

const sandbox = useSandbox();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Profile "corp" holding a login through the tenant's own client, as `svc login --client-id` stores it. */
async function corpLogin(profileValues: Record<string, string> = {}) {
  const client = await createClient(sandbox(), { name: 'corp-login', scopes: ['admin'] });
  const tokens = await codeTokens(sandbox(), client, { scope: 'admin' });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  const dir = tempDir('svc-client-id-');
  dirs.push(dir);
  const store = new ConfigStore(join(dir, 'cfg'));
  await store.setProfileValues('corp', { base_url: sandbox().url, tenant: TREASURY, ...profileValues });
  await store.setCredential('corp', {
    type: 'oauth',
    access_token: tokens.body.access_token,
    refresh_token: tokens.body.refresh_token,
    client_id: client.client_id,
    client_secret: client.client_secret,
    token_url: `${sandbox().url}/v1/oauth/token`,
    obtained_at: new Date().toISOString(),
  });
  const env = {
    SVC_CONFIG_DIR: join(dir, 'cfg'),
    SVC_STATE_DIR: join(dir, 'state'),
    SVC_CACHE_DIR: join(dir, 'cache'),
    NO_COLOR: '1',
  };
  return { clientId: client.client_id as string, env, dir };
}

/** `webhooks rotate-secret` through the corp profile (a users-only operation). */
const rotateAsCorp = (env: Record<string, string | undefined>, dir: string) =>
  runInProcess(
    [
      '-p',
      'corp',
      'webhooks',
      'rotate-secret',
      SEEDED_WEBHOOKS.exceptions,
      '--secret-file',
      join(dir, 'w.secret'),
    ],
    env,
  );

describe('a users-only refusal of a `svc login --client-id` login', () => {
  it('names the login and the way out: a login through svc’s own client', async () => {
    const { clientId, env, dir } = await corpLogin();
    const r = await rotateAsCorp(env, dir);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^error: rotating the secret of a webhook is for users themselves, not an OAuth client acting for one/,
    );
    expect(lines[0]).toContain(
      `; profile "corp" is logged in through the OAuth client ${clientId} (\`svc login --client-id\`), ` +
        'which the platform counts as an integration acting for you, not your own login: log in through ' +
        "svc's own client to do this (`svc -p corp login`, without --client-id)",
    );
  });

  it('says to unset the profile’s client_id when it is that client', async () => {
    const { clientId, env, dir } = await corpLogin();
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    await store.setProfileValues('corp', { base_url: sandbox().url, tenant: TREASURY, client_id: clientId });
    const r = await rotateAsCorp(env, dir);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      "log in through svc's own client to do this (`svc -p corp config unset client_id`, then `svc -p corp login`)",
    );
  });

  it('with SVC_TOKEN set, says nothing of the profile’s login', async () => {
    const { env, dir } = await corpLogin();
    const vendor = await createClient(sandbox(), { scopes: ['admin'] });
    const tokens = await codeTokens(sandbox(), vendor, { scope: 'admin' });
    const r = await runInProcess(
      [
        '-p',
        'corp',
        'webhooks',
        'rotate-secret',
        SEEDED_WEBHOOKS.exceptions,
        '--secret-file',
        join(dir, 'w.secret'),
      ],
      { ...env, SVC_TOKEN: tokens.body.access_token },
    );
    expect(r.code).toBe(4);
    expect(r.stderr).not.toContain('profile "corp"');
  });
});
