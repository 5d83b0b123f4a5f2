/**
 * `svc login` to a profile that is already logged in: the check after the login (GET /v1/me) is
 * made with the new login, also when the profile's tenant is a slug that must be resolved first
 * (it was resolved through the old login, whose session the run was pinned to, and the check
 * then reported a concurrent login that never happened). And `--json` gives `expires_at` in
 * whole seconds, as `auth status --json` and the API do. In-process, consentBrowser().
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../../helpers/context.js';
import { consentBrowser, storedCredential, TREASURY } from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = () => ({ ...dirs(), SVC_CLIENT_ID: 'svc-cli' });

async function login(argv: string[] = []) {
  const browser = consentBrowser();
  const r = await runInProcess(['login', ...argv], env(), { now: Date.now(), browser });
  await browser.settled();
  return r;
}

beforeAll(async () => {
  const first = await login(['--base-url', sandbox().url]);
  if (first.code !== 0) throw new Error(first.stderr);
});

const loggedIn = () =>
  new RegExp(`^✓ logged in to ${sandbox().url} as Ada Admin \\(profile "default"\\)$`, 'm');

describe('svc login again', () => {
  it('with the tenant stored as a slug: the real identity, no warning of another login', async () => {
    const set = await runInProcess(['config', 'set', 'tenant', 'acme-treasury'], env());
    expect(set.code, set.stderr).toBe(0);
    const before = storedCredential(dirs().SVC_CONFIG_DIR).session;
    const r = await login();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(loggedIn());
    expect(r.stderr).not.toContain('warning');
    expect(storedCredential(dirs().SVC_CONFIG_DIR).session).not.toBe(before);
  });

  it('with --tenant SLUG and --json: the identity, and expires_at in whole seconds', async () => {
    const r = await login(['--tenant', 'acme-treasury', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning');
    const result = JSON.parse(r.stdout);
    expect(result.identity).toMatchObject({ id: 'usr_admin', tenant_id: TREASURY });
    expect(result.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const status = await runInProcess(['auth', 'status', '--json'], env(), { now: Date.now() });
    expect(JSON.parse(status.stdout).credential.expires_at).toBe(result.expires_at);
  });
});
