import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigStore, type StoredCredential } from '../../src/config/store.js';
import { CLI_CLIENT_ID } from '../../src/sandbox/domain/oauth.js';
import { runInProcess } from '../helpers/context.js';
import { sandboxSession, TREASURY, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

// `svc logout` ends an OAuth session server-side (RFC 7009, found through RFC 8414 metadata)
// before it forgets the credential, and says so when the server offers no revocation (issue 10).
const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A profile holding `credential`, and the environment of an svc run that uses it. */
async function profileWith(credential: StoredCredential, baseUrl: string) {
  const dir = tempDir('svc-logout-');
  dirs.push(dir);
  const store = new ConfigStore(dir);
  // Stored as a login stores it: the ✓ line names the profile's own server (review17b R17b-3).
  await store.setProfileValues('default', { base_url: baseUrl });
  await store.setCredential('default', credential);
  const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: baseUrl, SVC_MAX_RETRIES: '0', NO_COLOR: '1' };
  return { store, env };
}

/** A scripted authorization server: what it answers to the metadata and revocation requests. */
type Script = (self: string) => Record<string, { status: number; body?: unknown }>;

async function scriptedServer(script: Script): Promise<string> {
  let answers: ReturnType<Script> = {};
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const answer = answers[`${request.method} ${request.url}`] ?? {
        status: 404,
        body: { error: 'not_found' },
      };
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  answers = script(url);
  return url;
}

/** The address of a server that is gone: connections are refused. */
async function closedServer(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

const oauthCredential = (server: string): StoredCredential => ({
  type: 'oauth',
  access_token: 'at-scripted',
  refresh_token: 'rt-scripted-0123456789',
  client_id: 'client-1',
  token_url: `${server}/v1/oauth/token`,
  obtained_at: new Date().toISOString(),
});

describe('svc logout', () => {
  it('revokes the session at the sandbox, then removes the credential', async () => {
    const credential = await sandboxSession(sandbox());
    const { store, env } = await profileWith(credential, sandbox().url);
    const r = await runInProcess(['logout'], env);
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(r.stderr).toBe(
      `✓ logged out of profile "default" (${sandbox().url}): revoked the session at ${sandbox().url} and removed the credential\n`,
    );
    expect(store.credential('default')).toBeUndefined();
    const refresh = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: CLI_CLIENT_ID,
      refresh_token: credential.refresh_token,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    expect(
      (await call(sandbox(), 'GET', '/v1/roles', { token: credential.access_token, tenant: TREASURY }))
        .status,
    ).toBe(401);
  });

  it('says so in --json', async () => {
    const { env } = await profileWith(await sandboxSession(sandbox()), sandbox().url);
    const r = await runInProcess(['logout', '--json'], env);
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      removed: true,
      revoked: true,
      revocation: 'revoked',
      api_key: null,
      // The verdict (review27a F3): logged_out, the credential under its noun; the profile stays.
      outcome: 'logged_out',
      credential: { profile: 'default', api_key: null },
    });
  });

  it.each<[string, Script]>([
    ['publishes no metadata and has no revocation path', () => ({})],
    [
      'publishes metadata without a revocation endpoint',
      (self) => ({
        'GET /.well-known/oauth-authorization-server': {
          status: 200,
          body: { issuer: self, token_endpoint: `${self}/v1/oauth/token` },
        },
        // Never asked: the metadata says there is no revocation endpoint.
        'POST /v1/oauth/revoke': { status: 200 },
      }),
    ],
  ])('warns when the server %s: the refresh token stays valid', async (_what, script) => {
    const scripted = await scriptedServer(script);
    const { store, env } = await profileWith(oauthCredential(scripted), scripted);
    const r = await runInProcess(['logout'], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `✓ logged out of profile "default" (${scripted}): removed the credential\n` +
        `warning: ${scripted} does not offer token revocation (RFC 7009): the refresh token stays valid until it expires\n`,
    );
    expect(store.credential('default')).toBeUndefined();
  });

  it.each<[string, () => Promise<string>]>([
    [
      'answers 503',
      () =>
        scriptedServer(() => ({
          'POST /v1/oauth/revoke': { status: 503, body: { error: 'temporarily_unavailable' } },
        })),
    ],
    ['cannot be reached', async () => closedServer()],
  ])(
    'keeps the credential and exits 1 when the server %s, so running it again can revoke',
    async (_what, server) => {
      const scripted = await server();
      const credential = oauthCredential(scripted);
      const { store, env } = await profileWith(credential, scripted);
      const r = await runInProcess(['logout'], env);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(
        /^error: could not revoke the session of profile "default": .+; nothing was removed; /,
      );
      expect(r.stderr).toContain(
        'run `svc -p default logout` again when the server answers, or `svc -p default logout --no-revoke` to forget the credential here without revoking it (its session then stays valid until it expires)\n',
      );
      expect(r.stderr).not.toContain('rt-scripted');
      expect(store.credential('default')).toEqual(credential);
      // Scripts read its code: the same refusal again, as --json gives it.
      const json = await runInProcess(['logout', '--json'], env);
      expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'revocation_failed', exit_code: 1 });
      expect(store.credential('default')).toEqual(credential);
      // --no-revoke forgets it without asking the server, and says what that leaves.
      const forgotten = await runInProcess(['logout', '--no-revoke'], env);
      expect(forgotten).toEqual({
        code: 0,
        stdout: '',
        stderr:
          `✓ logged out of profile "default" (${scripted}): removed the credential\n` +
          'warning: the session was not revoked (--no-revoke): its refresh token stays valid until it expires\n',
      });
      expect(store.credential('default')).toBeUndefined();
    },
  );

  it('removes the credential but exits 1 when the server refuses to revoke (a 4xx)', async () => {
    const scripted = await scriptedServer(() => ({
      'POST /v1/oauth/revoke': { status: 401, body: { error: 'invalid_client' } },
    }));
    const { store, env } = await profileWith(oauthCredential(scripted), scripted);
    const r = await runInProcess(['logout'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: removed the credential of profile "default", but the server refused to revoke its session: .*; the session may stay valid until it expires/,
    );
    expect(store.credential('default')).toBeUndefined();
    const again = await profileWith(oauthCredential(scripted), scripted);
    const json = await runInProcess(['logout', '--json'], again.env);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'revocation_failed', exit_code: 1 });
  });

  it('has nothing to revoke for a token stored with --with-token', async () => {
    const { env } = await profileWith(
      { type: 'token', access_token: sandbox().adminToken, obtained_at: new Date().toISOString() },
      sandbox().url,
    );
    const r = await runInProcess(['logout'], env);
    expect(r.stderr).toBe(
      `✓ logged out of profile "default" (${sandbox().url}): removed the credential\n` +
        'warning: the token itself stays valid until it expires: svc only forgot it\n',
    );
    expect((await call(sandbox(), 'GET', '/v1/me', { token: sandbox().adminToken })).status).toBe(200);
  });

  it('says an API key the platform refuses (unknown or revoked) leaves nothing to revoke', async () => {
    const key = 'svc_pk_0123456789abcdefWXYZ';
    const { env } = await profileWith(
      { type: 'token', access_token: key, obtained_at: new Date().toISOString() },
      sandbox().url,
    );
    const r = await runInProcess(['logout'], { ...env, SVC_TENANT: 'acme-treasury' });
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ logged out of profile "default" (${sandbox().url}): removed the credential\n` +
        'the platform no longer accepts the API key (it was revoked, or is unknown there): nothing is left to revoke\n',
    });
  });
});
