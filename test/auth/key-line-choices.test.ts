import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/context.js';
import { ACME, call, newApiKey, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Session 25 (brief fixes25 2): which command the line that revokes a forgotten API key prints
// (end-session.ts keyManagerLine): bare, `-p NAME`, or `-p NAME --base-url URL`, each pasted as
// printed in the same shell. Every case here is one the Stryker run of its lines left unasserted.
const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const newKey = () => newApiKey(sandbox(), 'key-line');

type Credential = { type: 'token' | 'oauth'; access_token: string; origin?: string; [k: string]: unknown };

/** The store's two files, written as they are read: config.json and credentials.json. */
function store(
  config: { active_profile?: string; profiles: Record<string, object> },
  credentials: Record<string, Credential>,
): Record<string, string> {
  const dir = tempDir('svc-key-line-');
  dirs.push(dir);
  chmodSync(dir, 0o700);
  const at = new Date().toISOString();
  const held = Object.fromEntries(
    Object.entries(credentials).map(([name, c]) => [name, { obtained_at: at, ...c }]),
  );
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify({ profiles: held }), { mode: 0o600 });
  return { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
}

const url = () => sandbox().url;
const origin = () => new URL(sandbox().url).origin;
const apiKey = (key: string): Credential => ({ type: 'token', access_token: key, origin: origin() });
const userLogin = (over: Partial<Credential> = {}): Credential => ({
  type: 'token',
  access_token: sandbox().adminToken,
  origin: origin(),
  ...over,
});
const stays = (id: string, command: string, what = 'the API key') =>
  `warning: ${what} ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`${command}\``;

/** Runs argv, expects the key line to quote `command`, then runs it as printed: the key is revoked. */
async function lineRevokes(
  argv: string[],
  env: Record<string, string>,
  id: string,
  key: string,
  command: string,
  options: { stdin?: string; what?: string } = {},
): Promise<void> {
  const r = await runInProcess(argv, env, { stdin: options.stdin });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr.split('\n')).toContain(stays(id, command, options.what));
  const pasted = await runInProcess([...command.split(' ').slice(1), '--yes'], env);
  expect(pasted.code, pasted.stderr).toBe(0);
  expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
}

describe('the revoke line of a forgotten API key', () => {
  // The profile the pasted line runs under (the one in use: no -p) now holds a user's login there.
  it('after login --with-token of a user over it: bare, as the profile in use revokes it', async () => {
    const { id, key } = await newKey();
    const env = store({ profiles: { default: { base_url: url() } } }, { default: apiKey(key) });
    const command = `svc tenants api-keys revoke acme-treasury ${id}`;
    await lineRevokes(['login', '--with-token'], env, id, key, command, {
      stdin: `${sandbox().adminToken}\n`,
      what: 'the replaced API key',
    });
  });

  // Not named (the active profile "key", logged out): the profile the pasted line runs under is
  // "key", with no credential now; not "default", which holds a login but is not in use.
  it('svc logout of the active profile: -p default, which holds a login, as the pasted line runs under "key"', async () => {
    const { id, key } = await newKey();
    const env = store(
      { active_profile: 'key', profiles: { key: { base_url: url() }, default: { base_url: url() } } },
      { key: apiKey(key), default: userLogin() },
    );
    await lineRevokes(['logout'], env, id, key, `svc -p default tenants api-keys revoke acme-treasury ${id}`);
  });

  // Its login was made at the sandbox, then its base_url set to another server: pasted with -p
  // alone the line would go there, and the credential is sent to no other server than its own.
  it("names --base-url too when the login's profile now points at another server", async () => {
    const { id, key } = await newKey();
    const env = store(
      { profiles: { key: { base_url: url() }, admin: { base_url: 'http://127.0.0.1:9' } } },
      { key: apiKey(key), admin: userLogin() },
    );
    await lineRevokes(
      ['-p', 'key', 'logout'],
      env,
      id,
      key,
      `svc -p admin --base-url ${url()} tenants api-keys revoke acme-treasury ${id}`,
    );
  });

  // SVC_BASE_URL names the same server as admin's base_url: pasted in this shell, -p admin alone
  // goes there (review23c M1 adds --base-url only when it names another).
  it('under SVC_BASE_URL of the same server, -p NAME alone', async () => {
    const { id, key } = await newKey();
    const env = store(
      { profiles: { key: { base_url: url() }, admin: { base_url: url() } } },
      { key: apiKey(key), admin: userLogin() },
    );
    await lineRevokes(
      ['-p', 'key', 'logout'],
      { ...env, SVC_BASE_URL: url() },
      id,
      key,
      `svc -p admin tenants api-keys revoke acme-treasury ${id}`,
    );
  });

  // A login stored by an older svc carries no origin: its profile's base_url says its server.
  it("names a profile whose login an older svc stored (no origin), by its profile's base_url", async () => {
    const { id, key } = await newKey();
    const env = store(
      { profiles: { key: { base_url: url() }, admin: { base_url: url() } } },
      { key: apiKey(key), admin: userLogin({ origin: undefined }) },
    );
    await lineRevokes(
      ['-p', 'key', 'logout'],
      env,
      id,
      key,
      `svc -p admin tenants api-keys revoke acme-treasury ${id}`,
    );
  });

  // An OAuth session of a server that issues opaque access tokens (no JWT) is a user's login too.
  it('names a profile holding an OAuth session whose access token is no JWT', async () => {
    const { id, key } = await newKey();
    const env = store(
      { profiles: { key: { base_url: url() }, oauth: { base_url: url() } } },
      {
        key: apiKey(key),
        oauth: {
          type: 'oauth',
          access_token: 'opaque-access-token-0123456789',
          refresh_token: 'opaque-refresh-token',
          token_url: `${url()}/oauth/token`,
          origin: origin(),
        },
      },
    );
    const r = await runInProcess(['-p', 'key', 'logout'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[1]).toBe(
      stays(id, `svc -p oauth tenants api-keys revoke acme-treasury ${id}`),
    );
  });

  // Neither the key nor the run has a server (an older svc's key, no base_url anywhere): no login
  // is "at the key's platform", so the line names no profile; one whose login has no known server
  // either ("old") would be a guess, and pasted it would act as whoever that is.
  it('with no server known, names no profile', async () => {
    const { key } = await newKey();
    const env = store(
      { profiles: { key: { tenant: ACME }, old: { tenant: ACME } } },
      { key: { type: 'token', access_token: key }, old: userLogin({ origin: undefined }) },
    );
    const r = await runInProcess(['-p', 'key', 'logout', '--no-revoke'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[1]).toBe(
      `warning: the API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… in \`svc tenants api-keys ls ${ACME}\`, then revoke it with \`svc tenants api-keys revoke ${ACME} KEY_ID\``,
    );
  });
});
