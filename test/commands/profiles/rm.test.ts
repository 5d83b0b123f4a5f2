import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runProfilesRm } from '../../../src/commands/profiles/rm.js';
import { ConfigStore } from '../../../src/config/store.js';
import { runInProcess, scriptedPrompter, testContext } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();
const names = () => Object.keys(testContext({ env: env() }).ctx.store().profiles()).sort();

describe('svc profiles rm', () => {
  it.each([
    ['with --yes', { globals: { yes: true } }, '', '✓ removed profile "staging" (https://staging.example)\n'],
    [
      'with --yes --json',
      { globals: { yes: true, json: true } },
      '{\n  "removed": "staging",\n  "revocation": "not_applicable",\n  "active_profile": "default",\n  "outcome": "removed",\n  "profile": "staging"\n}\n',
      '',
    ],
    [
      'after a yes at the prompt',
      { tty: true, answers: [true] },
      '',
      '✓ removed profile "staging" (https://staging.example)\n',
    ],
  ])('removes a profile and its credential %s', async (_how, options, stdout, stderr) => {
    const made = testContext({ ...options, env: env() });
    await runProfilesRm(made.ctx, 'staging');
    expect([made.stdout(), made.stderr()]).toEqual([stdout, stderr]);
    expect(names()).toEqual(['default']);
  });

  // attack25a F10: it said "create one with `svc -p nope config set base_url URL`": advice to
  // make the profile the user is removing. Now: there is none, and the ones there are.
  it.each([
    [
      ['-p', 'nope', 'profiles', 'rm', 'nope', '--yes'],
      'no profile named "nope" to remove; yours: default, staging',
    ],
    [
      ['profiles', 'rm', 'stagng', '--yes'],
      'no profile named "stagng" to remove (did you mean staging?); yours: default, staging',
    ],
  ])('%j: exit 5, no such profile, the ones there are, nothing changed', async (argv, message) => {
    expect(await runInProcess(argv, env())).toEqual({ code: 5, stdout: '', stderr: `error: ${message}\n` });
    expect(names()).toEqual(['default', 'staging']);
  });

  it('asks first on a terminal, naming the profile, and keeps it on a no', async () => {
    const made = testContext({ env: env(), tty: true, answers: [false] });
    await expect(runProfilesRm(made.ctx, 'default')).rejects.toThrow('cancelled; nothing was changed');
    expect(made.questions).toEqual([
      'Remove profile "default" (https://api.example.com) and its stored credential?',
    ]);
    expect(names()).toEqual(['default', 'staging']);
    expect(made.ctx.store().credential('default')).toBeDefined();
  });

  // attack26a F3: with -p or SVC_PROFILE naming another profile, the question's bracket named
  // that profile and its server ("[on http://127.0.0.1:…, profile "fast", from -p]"), not the one
  // removed, and it spoke of a stored credential the profile did not have.
  it.each([
    ['-p', ['-p', 'default', 'profiles', 'rm', 'staging'], {}],
    ['SVC_PROFILE', ['profiles', 'rm', 'staging'], { SVC_PROFILE: 'default' }],
    ['--base-url', ['--base-url', 'https://other.example', 'profiles', 'rm', 'staging'], {}],
  ])(
    'with %s, asks of the profile removed: its own server, no credential it lacks',
    async (_how, argv, more) => {
      const prompter = scriptedPrompter([false]);
      const result = await runInProcess(argv, { ...env(), ...more }, { tty: true, prompter });
      expect(result).toEqual({ code: 2, stdout: '', stderr: 'error: cancelled; nothing was changed\n' });
      expect(prompter.questions).toEqual(['Remove profile "staging" (https://staging.example)?']);
      expect(names()).toEqual(['default', 'staging']);
    },
  );

  it('needs --yes when nobody can be asked (exit 2)', async () => {
    expect(await runInProcess(['profiles', 'rm', 'default'], env())).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: removing profile "default" needs confirmation; pass --yes to confirm non-interactively\n',
    });
    expect(names()).toEqual(['default', 'staging']);
  });
});

describe('svc profiles rm: the session ends first, as with svc logout', () => {
  const revoked: string[] = [];
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** An authorization server that revokes (RFC 7009 at the sandbox's path), or none at all. */
  async function authServer(up: boolean): Promise<string> {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (d) => {
        body += d;
      });
      request.on('end', () => {
        if (request.method === 'POST' && request.url === '/v1/oauth/revoke') {
          revoked.push(new URLSearchParams(body).get('token') ?? '');
          response.writeHead(200).end();
        } else response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (!up) {
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
    return url;
  }

  async function oauthProfile(url: string): Promise<ConfigStore> {
    const store = new ConfigStore(env().SVC_CONFIG_DIR!);
    await store.setProfileValues('old', { base_url: url });
    await store.setCredential('old', {
      type: 'oauth',
      access_token: 'at-old',
      refresh_token: 'rt-old-0123456789',
      client_id: 'svc-cli',
      token_url: `${url}/v1/oauth/token`,
      origin: url,
      obtained_at: '2026-01-15T12:00:00.000Z',
    });
    return store;
  }

  it('revokes the profile’s OAuth session, then removes it', async () => {
    const url = await authServer(true);
    await oauthProfile(url);
    const r = await runInProcess(['profiles', 'rm', 'old', '--yes'], env());
    expect(r).toEqual({
      code: 0,
      stdout: '',
      stderr: `✓ removed profile "old" (${url}): revoked its session at ${url}\n`,
    });
    expect(revoked).toContain('rt-old-0123456789');
    expect(names()).toEqual(['default', 'staging']);
  });

  it('keeps the profile (exit 1) when the server cannot be reached; --no-revoke removes it with a warning', async () => {
    const url = await authServer(false);
    const store = await oauthProfile(url);
    const r = await runInProcess(['profiles', 'rm', 'old', '--yes'], env());
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(
      /^error: could not revoke the session of profile "old": .+; nothing was removed; /,
    );
    expect(r.stderr).toContain(
      'run `svc profiles rm old` again when the server answers, or `svc profiles rm old --no-revoke` to forget the credential here',
    );
    expect(names()).toEqual(['default', 'old', 'staging']);
    expect(store.credential('old')).toBeDefined();
    expect(await runInProcess(['profiles', 'rm', 'old', '--yes', '--no-revoke'], env())).toEqual({
      code: 0,
      stdout: '',
      stderr:
        `✓ removed profile "old" (${url})\n` +
        'warning: the session was not revoked (--no-revoke): its refresh token stays valid until it expires\n',
    });
    expect(names()).toEqual(['default', 'staging']);
  });

  it('says a removed API key may stay valid (its server cannot be asked), and how to find and revoke it', async () => {
    const r = await runInProcess(['profiles', 'rm', 'default', '--yes'], env());
    expect(r.stderr).toBe(
      '✓ removed profile "default" (https://api.example.com)\n' +
        'warning: the API key may still be valid: svc only forgot it; with the login of a user who holds api_key.manage (a key cannot revoke keys), find its id by its prefix svc_pk_012… ' +
        'in `svc --base-url https://api.example.com tenants api-keys ls t-123`, then revoke it with `svc --base-url https://api.example.com tenants api-keys revoke t-123 KEY_ID`\n' +
        'warning: no profile is active now; choose one with `svc profiles use NAME` (yours: staging)\n',
    );
  });
});
