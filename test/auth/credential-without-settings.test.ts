import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { ACME, call, newApiKey, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Session 25: a profile with a stored credential and no settings entry (config.json edited by
// hand, a credential left by an older svc, its settings removed by another process). The store
// counts it a profile (hasProfile: settings or a credential), and so do `-p NAME` and logout.
//
// The line that revokes a forgotten API key names a profile holding a user's login
// on the key's platform (end-session.ts keyManagerLine, userLoginAt). That profile may have a
// stored credential and no settings entry at all: config.json edited by hand, a credential left
// by an older svc, or the profile's settings removed by another process between two reads. Its
// settings are then read as absent (`store.profile(name)?.base_url`), never as a TypeError after
// the credential was already removed; and the line names the server, so pasted it revokes the key.
const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const newKey = () => newApiKey(sandbox(), 'no-settings');

/**
 * The store's two files as written by hand: profile "key" (the sandbox, tenant acme, the API key)
 * and profile "admin" (the active one unless `active` says), whose user login is in credentials.json and which has no entry
 * in config.json.
 */
function storeWithoutAdminSettings(key: string, active = 'admin'): Record<string, string> {
  const dir = tempDir('svc-no-settings-');
  dirs.push(dir);
  chmodSync(dir, 0o700);
  const url = sandbox().url;
  const origin = new URL(url).origin;
  const at = new Date().toISOString();
  const files = {
    'config.json': { active_profile: active, profiles: { key: { base_url: url, tenant: ACME } } },
    'credentials.json': {
      profiles: {
        key: { type: 'token', access_token: key, origin, obtained_at: at },
        admin: { type: 'token', access_token: sandbox().adminToken, origin, obtained_at: at },
      },
    },
  };
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content), { mode: 0o600 });
  return { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
}

describe("the revoke line when the profile holding a user's login has no settings entry", () => {
  it.each([
    [['-p', 'key', 'logout'], 'logged out of profile "key" (URL): removed the credential'],
    [['profiles', 'rm', 'key', '--yes'], 'removed profile "key" (URL)'],
  ])('%j names it with the server, and the line pasted revokes the key', async (argv, done) => {
    const { id, key } = await newKey();
    const env = storeWithoutAdminSettings(key);
    const url = sandbox().url;
    const command = `svc -p admin --base-url ${url} tenants api-keys revoke acme-treasury ${id}`;
    expect(await runInProcess(argv, env)).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ ${done.replace('URL', url)}\n` +
        `warning: the API key ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`${command}\`\n`,
    });
    const credentials = JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR!, 'credentials.json'), 'utf8'));
    expect(Object.keys(credentials.profiles)).toEqual(['admin']);
    const pasted = await runInProcess([...command.split(' ').slice(1), '--yes'], env);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
  });

  // Not the active one either: found among every profile's names, not config.json's alone (the
  // line was `svc --base-url URL …`, which pasted ran under the active profile "key", whose
  // credential had just been removed: no login).
  it('names it when another profile is the active one', async () => {
    const { id, key } = await newKey();
    const env = storeWithoutAdminSettings(key, 'key');
    const r = await runInProcess(['-p', 'key', 'logout'], env);
    expect(r.code, r.stderr).toBe(0);
    const command = `svc -p admin --base-url ${sandbox().url} tenants api-keys revoke acme-treasury ${id}`;
    expect(r.stderr.split('\n')[1]).toBe(
      `warning: the API key ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`${command}\``,
    );
    const pasted = await runInProcess([...command.split(' ').slice(1), '--yes'], env);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
  });

  it('logout --json gives the same command', async () => {
    const { id, key } = await newKey();
    const r = await runInProcess(['-p', 'key', 'logout', '--json'], storeWithoutAdminSettings(key));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual({
      state: 'valid',
      id,
      tenant: 'acme-treasury',
      stopped_reason: null,
      revoke_command: `svc -p admin --base-url ${sandbox().url} tenants api-keys revoke acme-treasury ${id}`,
    });
  });
});

// Session 25: `profiles rm admin` said "no profile named admin" (exit 5) and kept its credential,
// and `profiles ls` did not list it, though commands run with it (it is the active profile here):
// the profile listings knew only config.json's names (commands/profiles/shared.ts rows()).
describe('a profile that holds a credential and no settings', () => {
  it('profiles ls lists it, as the active profile, with its masked credential', async () => {
    const { key } = await newKey();
    const r = await runInProcess(['profiles', 'ls', '--json'], storeWithoutAdminSettings(key));
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(r.stdout).map((row: { name: string; active: boolean; base_url: unknown }) => [
        row.name,
        row.active,
        row.base_url,
      ]),
    ).toEqual([
      ['admin', true, null],
      ['key', false, sandbox().url],
    ]);
  });

  it('profiles rm removes it and its credential, and says the token stays valid', async () => {
    const { key } = await newKey();
    const env = storeWithoutAdminSettings(key);
    expect(await runInProcess(['profiles', 'rm', 'admin', '--yes'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr:
        '✓ removed profile "admin"\n' +
        'warning: the token itself stays valid until it expires: svc only forgot it\n' +
        'warning: no profile is active now; choose one with `svc profiles use NAME` (yours: key)\n',
    });
    const credentials = JSON.parse(readFileSync(join(env.SVC_CONFIG_DIR!, 'credentials.json'), 'utf8'));
    expect(Object.keys(credentials.profiles)).toEqual(['key']);
  });
});
