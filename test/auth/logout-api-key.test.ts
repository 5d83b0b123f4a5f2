import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess } from '../helpers/context.js';
import { answers, useHostileServer } from '../helpers/hostile.js';
import { ACME, call, newApiKey, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// Finding tenants 4 (s10): `svc logout` of a stored API key said "the API key itself stays
// valid" when the platform had revoked it, and printed the placeholder KEY_ID and the tenant's
// UUID although the key's id and the tenant's slug are one GET /v1/me away.
const sandbox = useSandbox();
const hostile = useHostileServer();
/** A server that answers 503 to everything: the key's own server, down. */
const unavailable = async () => {
  const down = await hostile();
  down.answer(answers.json(503, { error: { code: 'unavailable', message: 'down for maintenance' } }));
  return down;
};
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const newKey = () => newApiKey(sandbox(), 'logout-test');

async function storedKey(key: string, url = sandbox().url) {
  const dir = tempDir('svc-logout-key-');
  dirs.push(dir);
  // Stored as a login stores it: the ✓ line names the profile's own server (review17b R17b-3).
  await new ConfigStore(dir).setProfileValues('default', { base_url: url });
  await new ConfigStore(dir).setCredential('default', {
    type: 'token',
    access_token: key,
    obtained_at: new Date().toISOString(),
  });
  return { SVC_CONFIG_DIR: dir, SVC_BASE_URL: url, SVC_TENANT: ACME, NO_COLOR: '1' };
}

describe('svc logout of a stored API key', () => {
  it('names the key id and the tenant slug when the key still works', async () => {
    const { id, key } = await newKey();
    expect(await runInProcess(['logout'], await storedKey(key))).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${sandbox().url}): removed the credential\n` +
        `warning: the API key ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`svc tenants api-keys revoke acme-treasury ${id}\`\n`,
    });
  });

  // Review s11 e, 3: pasted bare, the line asked the active profile's platform ("not found"); and
  // everyday13 F7 2: `-p ops` has just lost its only credential (and a key cannot revoke keys),
  // so the line keeps the platform and leaves the profile out.
  it('names the platform the logout acted on, not the profile that held the key', async () => {
    const { id, key } = await newKey();
    const env = await storedKey(key);
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    const url = sandbox().url;
    await store.setProfileValues('ops', { tenant: ACME });
    // Stored with its origin, as a login stores it: one with neither origin nor base_url would be
    // asked nowhere (review23f M1).
    await store.setCredential('ops', {
      type: 'token',
      access_token: key,
      origin: new URL(url).origin,
      obtained_at: new Date().toISOString(),
    });
    const r = await runInProcess(['-p', 'ops', '--base-url', url, 'logout'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[1]).toBe(
      `warning: the API key ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`svc --base-url ${url} tenants api-keys revoke acme-treasury ${id}\``,
    );
  });

  // review23f L4: pasted in a shell with SVC_TOKEN set, the line ran with that credential (an API
  // key: exit 4), whatever profile it named; the last warning says to unset it first. Session 24:
  // `profiles rm` ends a session as logout does and said nothing of it: one rule for both verbs.
  it.each([[['logout']], [['profiles', 'rm', 'default', '--yes']]])(
    'under SVC_TOKEN: %j ends with the line that says to unset it first',
    async (args) => {
      const { id, key } = await newKey();
      const other = await newKey();
      const r = await runInProcess(args, { ...(await storedKey(key)), SVC_TOKEN: other.key });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines[1]).toContain(`the API key ${id} itself stays valid`);
      expect(lines.at(-1)).toBe(
        'warning: SVC_TOKEN is still set in your environment: svc commands run here (any printed above too) use it, not a stored login; unset it first: unset SVC_TOKEN',
      );
    },
  );

  // attack23 F6: the line named `--base-url` of the key's platform, which pasted ran under the
  // active profile, whose login is bound to another platform: exit 3. A profile holding a user's
  // login there is named instead, and the line pasted as it is revokes the key.
  it("names a profile with a user's login on the key's platform, and pasted it revokes the key", async () => {
    const { id, key } = await newKey();
    const env = await storedKey(key);
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    const url = sandbox().url;
    const login = (access_token: string, origin: string) => ({
      type: 'token' as const,
      access_token,
      origin,
      obtained_at: new Date().toISOString(),
    });
    await store.setProfileValues('key', { base_url: url, tenant: ACME });
    await store.setCredential('key', login(key, new URL(url).origin));
    await store.setProfileValues('admin', { base_url: url });
    await store.setCredential('admin', login(sandbox().adminToken, new URL(url).origin));
    await store.setProfileValues('elsewhere', { base_url: 'http://127.0.0.1:9' });
    await store.setCredential('elsewhere', login(sandbox().adminToken, 'http://127.0.0.1:9'));
    await store.setActiveProfile('elsewhere');
    const { SVC_BASE_URL: _url, SVC_TENANT: _tenant, ...shell } = env;
    const r = await runInProcess(['-p', 'key', 'logout'], shell);
    expect(r.code, r.stderr).toBe(0);
    const command = `svc -p admin tenants api-keys revoke acme-treasury ${id}`;
    expect(r.stderr.split('\n')[1]).toBe(
      `warning: the API key ${id} itself stays valid: svc only forgot it; revoke it with the login of a user who holds api_key.manage (a key cannot revoke keys): \`${command}\``,
    );
    const pasted = await runInProcess([...command.split(' ').slice(1), '--yes'], shell);
    expect(pasted.code, pasted.stderr).toBe(0);
    expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
  });

  // review23c M1: under an exported SVC_BASE_URL=B (or SVC_PROFILE) the line named `-p admin` alone,
  // and pasted in that same shell B overrode admin's base_url (exit 3), or SVC_PROFILE the profile
  // just logged out. Each line printed is run with the same environment, exactly as printed.
  describe('the printed lines, pasted in the shell whose environment chose the server or profile', () => {
    const login = (access_token: string, origin: string) => ({
      type: 'token' as const,
      access_token,
      origin,
      obtained_at: new Date().toISOString(),
    });
    /** Profiles "key" (the live key) and "admin" (usr_admin, active), both on the sandbox. */
    async function profiles(key: string) {
      const env = await storedKey(key);
      const store = new ConfigStore(env.SVC_CONFIG_DIR);
      const url = sandbox().url;
      await store.setProfileValues('key', { base_url: url, tenant: ACME });
      await store.setCredential('key', login(key, new URL(url).origin));
      await store.setProfileValues('admin', { base_url: url });
      await store.setCredential('admin', login(sandbox().adminToken, new URL(url).origin));
      await store.setActiveProfile('admin');
      const { SVC_BASE_URL: _url, SVC_TENANT: _tenant, ...shell } = env;
      return shell;
    }
    /** The `svc …` commands a warning quotes, as argv. */
    const quoted = (line: string) => [...line.matchAll(/`svc ([^`]*)`/g)].map((m) => m[1]!.split(' '));

    it('SVC_BASE_URL=B: the ls and revoke lines keep --base-url A, and run in that shell they revoke the key', async () => {
      const { id, key } = await newKey();
      const b = await hostile();
      b.answer(answers.json(401, { error: { code: 'unauthenticated', message: 'invalid token' } }));
      const shell = { ...(await profiles(key)), SVC_BASE_URL: b.url };
      const r = await runInProcess(['-p', 'key', 'logout'], shell);
      expect(r.code, r.stderr).toBe(0);
      expect(b.seen).toEqual([]);
      const [ls, revoke] = quoted(r.stderr.split('\n')[1]!);
      const url = sandbox().url;
      expect(ls).toEqual(['-p', 'admin', '--base-url', url, 'tenants', 'api-keys', 'ls', ACME]);
      const listed = await runInProcess(ls!, shell);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain(id);
      const pasted = await runInProcess([...revoke!.map((w) => (w === 'KEY_ID' ? id : w)), '--yes'], shell);
      expect(pasted.code, pasted.stderr).toBe(0);
      expect(b.seen).toEqual([]);
      expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
    });

    // Which profile the line names when several hold a user's login there (userLoginAt): the
    // active one, else the first by name, not the first in the file.
    it('names the active profile when it holds a user login there, else the first by name', async () => {
      const { id, key } = await newKey();
      const shell = await profiles(key);
      const store = new ConfigStore(shell.SVC_CONFIG_DIR);
      const origin = new URL(sandbox().url).origin;
      for (const name of ['zeta', 'alpha']) {
        await store.setProfileValues(name, { base_url: sandbox().url });
        await store.setCredential(name, login(sandbox().adminToken, origin));
      }
      await store.removeCredential('admin');
      await store.setActiveProfile('zeta');
      const named = async () =>
        quoted((await runInProcess(['-p', 'key', 'logout'], shell)).stderr.split('\n')[1]!);
      expect((await named())[0]).toEqual([
        '-p',
        'zeta',
        'tenants',
        'api-keys',
        'revoke',
        'acme-treasury',
        id,
      ]);
      await store.setCredential('key', login(key, origin));
      await store.setActiveProfile('key');
      expect((await named())[0]).toEqual([
        '-p',
        'alpha',
        'tenants',
        'api-keys',
        'revoke',
        'acme-treasury',
        id,
      ]);
    });

    it('SVC_PROFILE=key: the line names -p admin, and run in that shell it revokes the key', async () => {
      const { id, key } = await newKey();
      const shell = { ...(await profiles(key)), SVC_PROFILE: 'key' };
      const r = await runInProcess(['logout'], shell);
      expect(r.code, r.stderr).toBe(0);
      const [revoke] = quoted(r.stderr.split('\n')[1]!);
      expect(revoke).toEqual(['-p', 'admin', 'tenants', 'api-keys', 'revoke', 'acme-treasury', id]);
      const pasted = await runInProcess([...revoke!, '--yes'], shell);
      expect(pasted.code, pasted.stderr).toBe(0);
      expect((await call(sandbox(), 'GET', '/v1/me', { token: key })).status).toBe(401);
    });
  });

  it('says the platform no longer accepts a key that was revoked', async () => {
    const { id, key } = await newKey();
    const revoked = await call(sandbox(), 'DELETE', `/v1/tenants/${ACME}/api-keys/${id}`, {
      token: sandbox().adminToken,
      tenant: ACME,
    });
    expect(revoked.status).toBe(200);
    expect(await runInProcess(['logout'], await storedKey(key))).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${sandbox().url}): removed the credential\n` +
        'the platform no longer accepts the API key (it was revoked, or is unknown there): nothing is left to revoke\n',
    });
  });

  // Keys (closing note s13): `logout --json` said nothing of the key, where the lines say whether
  // it stays valid, is stopped, or is no longer accepted — one shape for every outcome.
  it('--json says what the lines say of the key: valid, with the command that revokes it', async () => {
    const { id, key } = await newKey();
    const r = await runInProcess(['logout', '--json'], await storedKey(key));
    expect(r.code, r.stderr).toBe(0);
    const apiKey = {
      state: 'valid',
      id,
      tenant: 'acme-treasury',
      stopped_reason: null,
      revoke_command: `svc tenants api-keys revoke acme-treasury ${id}`,
    };
    // The verdict (review27a F3): logged_out, the credential under its noun; the profile stays.
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      removed: true,
      revoked: false,
      revocation: 'not_applicable',
      api_key: apiKey,
      outcome: 'logged_out',
      credential: { profile: 'default', api_key: apiKey },
    });
  });

  it('--json says a revoked key is no longer accepted, in the same shape', async () => {
    const { id, key } = await newKey();
    await call(sandbox(), 'DELETE', `/v1/tenants/${ACME}/api-keys/${id}`, {
      token: sandbox().adminToken,
      tenant: ACME,
    });
    const r = await runInProcess(['logout', '--json'], await storedKey(key));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual({
      state: 'revoked_or_unknown',
      id: null,
      tenant: null,
      stopped_reason: null,
      revoke_command: null,
    });
  });

  /** The key's state when svc does not know it: no id, so no revoke command. */
  const UNKNOWN_KEY = {
    state: 'unknown',
    id: null,
    tenant: ACME,
    stopped_reason: null,
    revoke_command: null,
  };

  // Review 14 R4: with the id unknown, revoke_command held a placeholder (`… revoke T KEY_ID`): a
  // script that ran it got a not-found. Null, as the id is; the lines say how to find the id.
  it('--json --no-revoke: the key was not asked about, so it may still be valid; no command without its id', async () => {
    const { key } = await newKey();
    const r = await runInProcess(['logout', '--no-revoke', '--json'], await storedKey(key));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual(UNKNOWN_KEY);
  });

  // review23c L2: no answer at all, through the real HTTP stack: a refused connection at the
  // key's own server (its profile's base_url and the server in effect are the same closed port).
  it('when its own server refuses the connection: unknown, and the lines say how to find it', async () => {
    const { key } = await newKey();
    const closed = 'http://127.0.0.1:9';
    const r = await runInProcess(['logout', '--json'], await storedKey(key, closed));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual(UNKNOWN_KEY);
    expect(await runInProcess(['logout'], await storedKey(key, closed))).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${closed}): removed the credential\n` +
        `warning: the API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… in \`svc tenants api-keys ls ${ACME}\`, then revoke it with \`svc tenants api-keys revoke ${ACME} KEY_ID\`\n`,
    });
  });

  // Its own server answering 503 (it was another server in effect until attack23 F1: the key is
  // never sent there now, test/auth/key-asked-elsewhere.test.ts).
  it('--json when the platform did not answer: no command without the id; the lines say how to find it', async () => {
    const { key } = await newKey();
    const down = await unavailable();
    const r = await runInProcess(['logout', '--json'], await storedKey(key, down.url));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual(UNKNOWN_KEY);
    expect(down.seen.map((seen) => `${seen.method} ${seen.url}`)).toEqual(['GET /v1/me']);
    const text = await runInProcess(['logout'], await storedKey(key, down.url));
    expect(text).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${down.url}): removed the credential\n` +
        `warning: the API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… in \`svc tenants api-keys ls ${ACME}\`, then revoke it with \`svc tenants api-keys revoke ${ACME} KEY_ID\`\n`,
    });
  });
});
