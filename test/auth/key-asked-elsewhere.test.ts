import { describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { answers, type HostileServer, useHostileServer } from '../helpers/hostile.js';
import { consentBrowser } from '../helpers/oauth.js';
import { ACME, call, useSandbox } from '../helpers/sandbox.js';

// attack23 F1: `logout` and `profiles rm` of a profile holding an API key sent the key to the base
// URL in effect (--base-url, SVC_BASE_URL, an edited base_url), not the server it was stored for,
// then took that server's 401 for the key being dead ("nothing is left to revoke", --json
// `revoked_or_unknown`) while it was live at its own server. A stored key goes to its own origin
// or nowhere; when another server is in effect svc says it did not ask, names the key's server,
// and how to revoke it there.
const sandbox = useSandbox();
const other = useHostileServer();
const dirs = useTempDirs();
let made = 0;

/** A live key of Acme Treasury, logged in to profile "key" of the sandbox as `login` stores it. */
async function keyProfile(): Promise<{ env: Record<string, string>; key: string; id: string }> {
  const created = await call(sandbox(), 'POST', `/v1/tenants/${ACME}/api-keys`, {
    token: sandbox().adminToken,
    tenant: ACME,
    body: { kind: 'publishable', name: 'elsewhere', idempotency_key: `elsewhere-${++made}` },
  });
  expect(created.status).toBe(201);
  const { key, id } = created.body as { id: string; key: string };
  const env = { ...dirs(), NO_COLOR: '1' };
  const login = await runInProcess(['-p', 'key', '--base-url', sandbox().url, 'login', '--with-token'], env, {
    stdin: key,
  });
  expect(login.code, login.stderr).toBe(0);
  return { env, key, id };
}

/** A server that would take the key and answer 401 to anything, as a server it is unknown to. */
async function otherServer(): Promise<HostileServer> {
  const s = await other();
  s.answer(answers.json(401, { error: { code: 'unauthenticated', message: 'invalid token' } }));
  return s;
}

/** The key is still live at its own server: it was only forgotten. */
async function stillLive(key: string): Promise<void> {
  const me = await call(sandbox(), 'GET', '/v1/me', { token: key });
  expect(me.status).toBe(200);
}

const notAsked = (key: string, elsewhere: string) => {
  const here = sandbox().url;
  return (
    `warning: the API key may still be valid: svc did not ask about it: it was stored for ${here}, and the server in effect is ${elsewhere}, where svc does not send it; ` +
    `with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… ` +
    `in \`svc --base-url ${here} tenants api-keys ls ${ACME}\`, then revoke it with \`svc --base-url ${here} tenants api-keys revoke ${ACME} KEY_ID\`\n`
  );
};

describe('a stored API key forgotten while another server is in effect', () => {
  it.each([
    ['SVC_BASE_URL', (url: string) => ({ argv: ['-p', 'key', 'logout'], env: { SVC_BASE_URL: url } })],
    ['--base-url', (url: string) => ({ argv: ['-p', 'key', '--base-url', url, 'logout'], env: {} })],
  ])('logout with %s: the key is not sent there, and not said to be dead', async (_how, make) => {
    const { env, key } = await keyProfile();
    const s = await otherServer();
    const { argv, env: more } = make(s.url);
    expect(await runInProcess(argv, { ...env, ...more })).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "key" (${sandbox().url}): removed the credential\n` + notAsked(key, s.url),
    });
    expect(s.seen).toEqual([]);
    await stillLive(key);
  });

  it('profiles rm under SVC_BASE_URL: the same', async () => {
    const { env, key } = await keyProfile();
    const s = await otherServer();
    const r = await runInProcess(['profiles', 'rm', 'key', '--yes'], { ...env, SVC_BASE_URL: s.url });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `✓ removed profile "key" (${sandbox().url})\n${notAsked(key, s.url)}` +
        'warning: no profile is active now; create one with `svc sandbox start` or `svc -p NAME config set base_url URL`\n',
    );
    expect(s.seen).toEqual([]);
    await stillLive(key);
  });

  it("logout --json after the profile's base_url was edited: unknown, never revoked_or_unknown", async () => {
    const { env, key } = await keyProfile();
    const s = await otherServer();
    const set = await runInProcess(['-p', 'key', 'config', 'set', 'base_url', s.url], env);
    expect(set.code, set.stderr).toBe(0);
    const r = await runInProcess(['-p', 'key', '--json', 'logout'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).api_key).toEqual({
      state: 'unknown',
      id: null,
      tenant: ACME,
      stopped_reason: null,
      revoke_command: null,
    });
    expect(s.seen).toEqual([]);
    await stillLive(key);
  });

  it("a key stored before svc recorded origins is asked only at its profile's own base_url", async () => {
    const { env, key } = await keyProfile();
    const store = new ConfigStore(env.SVC_CONFIG_DIR!);
    const { origin: _, ...unbound } = store.credential('key')!;
    await store.setCredential('key', unbound);
    const s = await otherServer();
    const r = await runInProcess(['-p', 'key', 'logout'], { ...env, SVC_BASE_URL: s.url });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(notAsked(key, s.url));
    expect(s.seen).toEqual([]);
  });

  // review23f M1: with no base_url either, logout and profiles rm sent the key to the server in
  // effect (its "first use", recorded nowhere) and took that server's 401 for the key being dead.
  const unknownServer = (key: string) =>
    'warning: the API key may still be valid: svc did not ask about it: it was stored before svc recorded origins, in a profile with no base_url, so svc does not know its server and sends it to none; ' +
    `with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… ` +
    `in \`svc --base-url URL tenants api-keys ls ${ACME}\` (URL: the server it was used with), then revoke it with \`svc --base-url URL tenants api-keys revoke ${ACME} KEY_ID\`\n`;

  /** Profile "key" holding a live key of the sandbox, with no origin and no base_url recorded. */
  async function originlessKey(): Promise<{ env: Record<string, string>; key: string }> {
    const { env, key } = await keyProfile();
    const store = new ConfigStore(env.SVC_CONFIG_DIR!);
    const { origin: _, ...unbound } = store.credential('key')!;
    await store.setCredential('key', unbound);
    await store.unsetProfileValue('key', 'base_url');
    return { env, key };
  }

  it('stored before svc recorded origins, in a profile with no base_url: logout sends it nowhere', async () => {
    const { env, key } = await originlessKey();
    const s = await otherServer();
    expect(await runInProcess(['-p', 'key', '--base-url', s.url, 'logout'], env)).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ logged out of profile "key": removed the credential\n${unknownServer(key)}`,
    });
    expect(s.seen).toEqual([]);
    await stillLive(key);
  });

  it('the same at profiles rm, and logout --json says unknown', async () => {
    const { env, key } = await originlessKey();
    const s = await otherServer();
    const json = await runInProcess(['-p', 'key', '--json', 'logout'], { ...env, SVC_BASE_URL: s.url });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).api_key).toEqual({
      state: 'unknown',
      id: null,
      tenant: ACME,
      stopped_reason: null,
      revoke_command: null,
    });
    const again = await originlessKey();
    const rm = await runInProcess(['profiles', 'rm', 'key', '--yes'], { ...again.env, SVC_BASE_URL: s.url });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stderr).toContain(`✓ removed profile "key"`);
    expect(rm.stderr).toContain(unknownServer(again.key));
    expect(s.seen).toEqual([]);
    await stillLive(key);
    await stillLive(again.key);
  });

  it('asked at its own server all the same when that is the one in effect', async () => {
    const { env, id } = await keyProfile();
    const r = await runInProcess(['-p', 'key', 'logout'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`the API key ${id} itself stays valid`);
  });
});

// review23c H1: a login that replaced a key stored before svc recorded origins sent that key to the
// login's own server (GET /v1/me) and took its 401 for the key being dead. The replaced key is bound
// as logout binds it: to its profile's base_url as it was before the login rewrote it; with none,
// to no server at all.
describe('a login that replaces a key stored before svc recorded origins', () => {
  const NEW_TOKEN = 'new-token-at-b';

  /** Server B: the new login's own server, which knows the new token only and logs every request. */
  async function loginServer(): Promise<HostileServer> {
    const admin = await call(sandbox(), 'GET', '/v1/me', { token: sandbox().adminToken });
    expect(admin.status).toBe(200);
    const s = await other();
    s.answer((_req, res, received) =>
      received.headers.authorization === `Bearer ${NEW_TOKEN}`
        ? answers.json(200, admin.body)(_req, res, received, 0)
        : answers.json(401, { error: { code: 'unauthenticated', message: 'invalid token' } })(
            _req,
            res,
            received,
            0,
          ),
    );
    return s;
  }

  /** Profile "key" holding a live key of A with no origin recorded (an older svc stored it). */
  async function unboundKey(): Promise<{ env: Record<string, string>; key: string; store: ConfigStore }> {
    const { env, key } = await keyProfile();
    const store = new ConfigStore(env.SVC_CONFIG_DIR!);
    const { origin: _, ...unbound } = store.credential('key')!;
    await store.setCredential('key', unbound);
    return { env, key, store };
  }

  const tokensSeen = (s: HostileServer) =>
    s.seen.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`);

  it("its profile's base_url was A: never sent to the login's server B, said as not asked", async () => {
    const { env, key } = await unboundKey();
    const s = await loginServer();
    const r = await runInProcess(['-p', 'key', '--base-url', s.url, 'login', '--with-token'], env, {
      stdin: NEW_TOKEN,
    });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged in to ${s.url} as Ada Admin (profile "key")\n` +
        notAsked(key, s.url).replace('the API key', 'the replaced API key'),
    });
    expect(tokensSeen(s)).toEqual([`GET /v1/me Bearer ${NEW_TOKEN}`]);
    await stillLive(key);
  });

  it('its profile had no base_url: sent to no server, and svc says it does not know which', async () => {
    const { env, key, store } = await unboundKey();
    await store.unsetProfileValue('key', 'base_url');
    const s = await loginServer();
    const r = await runInProcess(['-p', 'key', '--base-url', s.url, 'login', '--with-token'], env, {
      stdin: NEW_TOKEN,
    });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged in to ${s.url} as Ada Admin (profile "key")\n` +
        'warning: the replaced API key may still be valid: svc did not ask about it: it was stored before svc recorded origins, in a profile with no base_url, so svc does not know its server and sends it to none; ' +
        `with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix ${key.slice(0, 10)}… ` +
        `in \`svc --base-url URL tenants api-keys ls ${ACME}\` (URL: the server it was used with), then revoke it with \`svc --base-url URL tenants api-keys revoke ${ACME} KEY_ID\`\n`,
    });
    expect(tokensSeen(s)).toEqual([`GET /v1/me Bearer ${NEW_TOKEN}`]);
    await stillLive(key);
  });
  // review23f L1: the browser login's half of the fix (browser-login.ts, credentialBeingReplaced):
  // a key stored before svc recorded origins, its profile's base_url A, replaced by a browser login
  // at the sandbox, is not asked there and is said to be stored for A.
  it("a browser login at another server: the key is bound to its profile's base_url A, said as not asked", async () => {
    const a = await otherServer();
    const env = { ...dirs(), NO_COLOR: '1', SVC_CLIENT_ID: 'svc-cli' };
    const store = new ConfigStore(env.SVC_CONFIG_DIR);
    const key = 'svc_pk_stored_by_an_older_svc_0123456789';
    await store.setProfileValues('key', { base_url: a.url, tenant: ACME });
    await store.setCredential('key', {
      type: 'token',
      access_token: key,
      obtained_at: new Date().toISOString(),
    });
    const browser = consentBrowser({ decision: 'approve' });
    const r = await runInProcess(['-p', 'key', '--base-url', sandbox().url, 'login'], env, {
      now: Date.now(),
      browser,
    });
    await browser.settled();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: the replaced API key may still be valid: svc did not ask about it: it was stored for ${a.url}, and the server in effect is ${sandbox().url}, where svc does not send it; `,
    );
    expect(r.stderr).toContain(`in \`svc --base-url ${a.url} tenants api-keys ls `);
    expect(a.seen).toEqual([]);
  });
});
