/**
 * `svc auth status` and `svc auth token`, in-process: the profile, the masked credential with its
 * expiry, the identity behind it; SVC_TOKEN over a stored credential; exit 3 when logged out.
 * OAuth credentials (refresh token, client) are in test/commands/auth/oauth-session.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runAuthStatus } from '../../../src/commands/auth/status.js';
import { runAuthToken } from '../../../src/commands/auth/token.js';
import { TREASURY } from '../../helpers/oauth.js';
import { useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext();
const HOUR = 3600_000;
const stored = { SVC_TOKEN: undefined, SVC_TENANT: undefined };
let token: string;
let expiresAt: string;
/**
 * 20 minutes after the token was issued, on both clocks (a terminal's relative times count from
 * the platform's, attack22 F1): it expires in 40 minutes.
 */
let now: number;

const masked = (secret: string) => `eyJ****${secret.slice(-4)}`;

beforeAll(async () => {
  ({ token, expiresAt } = svc.sandbox().issueToken('usr_admin'));
  now = Date.parse(expiresAt) - HOUR + 20 * 60_000;
  svc.sandbox().state.clock.advance(20 * 60_000);
  const r = await svc.run(['login', '--with-token'], { env: stored, stdin: token });
  if (r.code !== 0) throw new Error(r.stderr);
});

describe('svc auth status', () => {
  it.each([
    [
      'aligned fields, a relative expiry, on a terminal',
      { tty: { stdout: true } },
      () =>
        `profile     default\nbase url    ${svc.sandbox().url}\nstatus      logged in\n` +
        `credential  jwt from profile "default"\ntoken       ${masked(token)}\nexpires     ${expiresAt} (in 40 minutes)\n` +
        `scopes      -\nidentity    Ada Admin <ada@acme.example> (usr_admin)\ntenant      ${TREASURY}\n`,
    ],
    [
      'tab-separated fields in a pipe',
      {},
      () =>
        `profile\tdefault\nbase url\t${svc.sandbox().url}\nstatus\tlogged in\n` +
        `credential\tjwt from profile "default"\ntoken\t${masked(token)}\nexpires\t${expiresAt}\n` +
        `scopes\t\nidentity\tAda Admin <ada@acme.example> (usr_admin)\ntenant\t${TREASURY}\n`,
    ],
  ])('shows %s, never the token itself', async (_what, options, expected) => {
    const { ctx, stdout, stderr } = svc.context({ ...options, now, env: stored });
    await runAuthStatus(ctx);
    expect([stdout(), stderr()]).toEqual([expected(), '']);
  });

  it('gives one JSON object with --json', async () => {
    const { ctx, stdout } = svc.context({ globals: { json: true }, now, env: stored });
    await runAuthStatus(ctx);
    const status = JSON.parse(stdout());
    expect(status).toEqual({
      profile: 'default',
      base_url: svc.sandbox().url,
      logged_in: true,
      credential: {
        source: 'profile "default"',
        kind: 'jwt',
        token: masked(token),
        expires_at: expiresAt,
        scopes: null,
        client_id: null,
        refresh_token: null,
      },
      identity: expect.objectContaining({ id: 'usr_admin', tenant_id: TREASURY }),
      error: null,
    });
    // One name and one time format for the same thing: svc's view of the credential and the API's.
    expect(status.identity.credential).toEqual(
      expect.objectContaining({ kind: status.credential.kind, expires_at: status.credential.expires_at }),
    );
    expect(stdout()).not.toContain(token);
  });

  it('names SVC_TOKEN as the source when it overrides the stored credential', async () => {
    const viewer = svc.sandbox().issueToken('usr_viewer').token;
    const { ctx, stdout } = svc.context({ now, env: { SVC_TOKEN: viewer, SVC_TENANT: undefined } });
    await runAuthStatus(ctx);
    expect(stdout()).toContain(`\ncredential\tjwt from SVC_TOKEN\ntoken\t${masked(viewer)}\n`);
    expect(stdout()).toContain('\nidentity\tViewer User <viewer@acme.example> (usr_viewer)\n');
  });
});

describe('svc auth token', () => {
  it('prints the stored token, for curl', async () => {
    const { ctx, stdout, stderr } = svc.context({ now, env: stored });
    await runAuthToken(ctx);
    expect([stdout(), stderr()]).toEqual([`${token}\n`, '']);
  });
});

describe('logged out', () => {
  beforeAll(async () => {
    expect((await svc.run(['logout'], { env: stored })).code).toBe(0);
  });

  it('auth status says so on stdout and exits 3 with the fix', async () => {
    expect(await svc.run(['auth', 'status'], { env: stored })).toEqual({
      code: 3,
      stdout: `profile\tdefault\nbase url\t${svc.sandbox().url}\nstatus\tnot logged in\ncredential\t\ntoken\t\nexpires\t\nscopes\t\nidentity\t\ntenant\t\n`,
      stderr:
        'error: not logged in: profile "default" has no credential; run `svc login` (or `svc login --with-token`), or set SVC_TOKEN\n',
    });
  });

  it('auth status --json: the status on stdout, the error as JSON on stderr', async () => {
    expect(await svc.run(['auth', 'status', '--json'], { env: stored })).toEqual({
      code: 3,
      stdout: `{\n  "profile": "default",\n  "base_url": "${svc.sandbox().url}",\n  "logged_in": false,\n  "credential": null,\n  "identity": null,\n  "error": "not logged in: profile \\"default\\" has no credential"\n}\n`,
      stderr:
        '{"error":{"code":"unauthenticated","message":"not logged in: profile \\"default\\" has no credential","exit_code":3,"hint":"run `svc login` (or `svc login --with-token`), or set SVC_TOKEN"}}\n',
    });
  });
});

describe('the server cannot be reached', () => {
  // Port 9 (discard): nothing listens there. The credential was never checked, so the status is
  // unknown, not "not logged in" (a script would run `svc login` again for a network problem).
  const unreachable = { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' };

  it('auth status says unknown (server unreachable) and exits 1', async () => {
    const r = await svc.run(['auth', 'status'], { env: unreachable });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('\nstatus\tunknown (server unreachable)\n');
    expect(r.stderr).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:9: /);
  });

  it('auth status --json: logged_in is null, with the error', async () => {
    const r = await svc.run(['auth', 'status', '--json'], { env: unreachable });
    expect(r.code).toBe(1);
    const status = JSON.parse(r.stdout);
    expect(status.logged_in).toBeNull();
    expect(status.error).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9: /);
  });
});
