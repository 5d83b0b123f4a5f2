/**
 * review22c F1: since session 22 a terminal's relative times count from the platform's clock
 * (attack22 F1), but an OAuth login's expiry is this machine's (its `expires_in` counted at
 * receipt, and svc refreshes on this machine's clock too): with the platform 3 h ahead, a token
 * obtained a moment ago showed "expires … (2 hours ago)" beside "logged in". A JWT's `exp` is the
 * platform's and stays measured from the platform's clock (test/commands/auth/status.test.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess } from '../../helpers/context.js';
import { codeTokens, createClient, TREASURY } from '../../helpers/oauth.js';
import { sandboxNow, setSandboxClock, useSandbox } from '../../helpers/sandbox.js';
import { useTempDir } from '../../helpers/temp.js';

const sandbox = useSandbox();
const HOUR = 3600_000;
const dir = useTempDir('svc-oauth-clock-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('an OAuth token’s expiry, stamped on this machine’s clock, is measured from it: "in 60 minutes" with the platform 3 h ahead', async () => {
  const client = await createClient(sandbox(), { name: 'clock-login', scopes: ['admin'] });
  const tokens = await codeTokens(sandbox(), client, { scope: 'admin' });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  const machine = await sandboxNow(sandbox());
  setSandboxClock(sandbox(), machine + 3 * HOUR);
  const store = new ConfigStore(join(dir, 'cfg'));
  await store.setProfileValues('default', { base_url: sandbox().url, tenant: TREASURY });
  await store.setCredential('default', {
    type: 'oauth',
    access_token: tokens.body.access_token,
    refresh_token: tokens.body.refresh_token,
    expires_at: new Date(machine + HOUR).toISOString(),
    scope: tokens.body.scope,
    client_id: client.client_id,
    client_secret: client.client_secret,
    token_url: `${sandbox().url}/v1/oauth/token`,
    origin: sandbox().url,
    obtained_at: new Date(machine).toISOString(),
  });
  const env = {
    SVC_CONFIG_DIR: join(dir, 'cfg'),
    SVC_STATE_DIR: join(dir, 'state'),
    SVC_CACHE_DIR: join(dir, 'cache'),
    NO_COLOR: '1',
  };
  const r = await runInProcess(['auth', 'status'], env, {
    tty: { stdout: true },
    columns: 200,
    now: machine,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/^status +logged in$/m);
  expect(r.stdout).toMatch(/^expires +\S+ \(in 60 minutes\)$/m);
});
