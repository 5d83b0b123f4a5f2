import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { consentBrowser, storedCredential, tokenRequest } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { svc } from '../helpers/svc.js';

/**
 * Spawned where the process is the contract: N svc processes sharing one expired session make
 * one refresh between them (the credentials lock across processes), and a refused refresh's
 * exit code as a process ends with it. The rest runs in-process on the real clock (the stored
 * expiries are this machine's), against the same config directory.
 */
const sandbox = useSandbox();
const dirs = useTempDirs();
const dir = () => dirs().SVC_CONFIG_DIR;
/** The processes' and the in-process runs' config, state and cache directories. */
const env = () => dirs();
const svcHere = (argv: string[]) => runInProcess(argv, env(), { now: Date.now() });

async function refreshes(): Promise<{ ok: number; reuse: number }> {
  const { grants } = (await call(sandbox(), 'GET', '/_sandbox/oauth/stats')).body;
  return { ok: grants['refresh_token ok'] ?? 0, reuse: grants['refresh_token reuse_detected'] ?? 0 };
}

async function advanceClock(seconds: number): Promise<void> {
  await call(sandbox(), 'POST', '/_sandbox/clock', { body: { advance_seconds: seconds } });
}

/** Rewrites the stored expiry, as if the token had been issued long ago. */
function expireLocally(): void {
  const path = join(dir(), 'credentials.json');
  const file = JSON.parse(readFileSync(path, 'utf8'));
  file.profiles.default.expires_at = new Date(Date.now() - 60_000).toISOString();
  writeFileSync(path, JSON.stringify(file));
}

async function login(): Promise<void> {
  const browser = consentBrowser();
  const r = await runInProcess(
    ['login'],
    { ...env(), SVC_BASE_URL: sandbox().url, SVC_CLIENT_ID: 'svc-cli' },
    { now: Date.now(), browser },
  );
  await browser.settled();
  expect(r.code, r.stderr).toBe(0);
}

/** `svc me --json` n times at once: n processes, or n runs in this one process. */
async function parallelMe(n: number, where: 'processes' | 'in-process'): Promise<void> {
  const results = await Promise.all(
    Array.from({ length: n }, () =>
      where === 'processes'
        ? svc(['me', '--json'], { env: env(), timeoutMs: 60_000 })
        : svcHere(['me', '--json']),
    ),
  );
  for (const r of results) {
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      id: 'usr_admin',
      credential: { kind: 'oauth_access_token' },
    });
  }
}

describe('token refresh', () => {
  beforeAll(login);

  it('stores the tokens 0600 with their expiry, scopes and client', () => {
    const credential = storedCredential(dir());
    expect(credential).toMatchObject({
      type: 'oauth',
      access_token: expect.stringMatching(/^eyJ/),
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'read:reconciliations read:exceptions read:tenants admin',
      client_id: 'svc-cli',
      token_url: `${sandbox().url}/v1/oauth/token`,
    });
    expect(credential.client_secret).toBeUndefined();
    expect(Date.parse(credential.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect(statSync(join(dir(), 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('shows expiry and scopes in auth status, every token masked', async () => {
    const credential = storedCredential(dir());
    const r = await svcHere(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('credential\toauth from profile "default"\n');
    expect(r.stdout).toMatch(/\ntoken\teyJ\*\*\*\*.{4}\n/);
    expect(r.stdout).toMatch(/\nexpires\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);
    expect(r.stdout).toContain('\nscopes\tread:reconciliations read:exceptions read:tenants admin\n');
    expect(r.stdout).toContain('\nclient\tsvc-cli\n');
    expect(r.stdout).toMatch(/\nrefresh token\tsvc_rt_\*\*\*\*.{4}\n/);
    expect(r.stdout).not.toContain(credential.access_token);
    expect(r.stdout).not.toContain(credential.refresh_token);
    const json = JSON.parse((await svcHere(['auth', 'status', '--json'])).stdout);
    expect(json.credential).toMatchObject({ kind: 'oauth', client_id: 'svc-cli', scopes: expect.any(Array) });
  });

  it('20 parallel processes with an expired access token make exactly one refresh, and all succeed', async () => {
    const before = await refreshes();
    const old = storedCredential(dir());
    await advanceClock(3700);
    expireLocally();
    await parallelMe(20, 'processes');
    expect(await refreshes()).toEqual({ ok: before.ok + 1, reuse: before.reuse });
    const now = storedCredential(dir());
    expect(now.access_token).not.toBe(old.access_token);
    expect(now.refresh_token).not.toBe(old.refresh_token);
  }, 90_000);

  // In one process: the same lock (a run that finds it held by a live run of its own process
  // waits, config/lock.ts heldHere); the processes' case is the one above.
  it('20 parallel runs whose token the server rejects (401) make exactly one refresh', async () => {
    const before = await refreshes();
    // The sandbox clock moves past the token's life; the stored expiry still says it is valid.
    await advanceClock(3700);
    await parallelMe(20, 'in-process');
    expect(await refreshes()).toEqual({ ok: before.ok + 1, reuse: before.reuse });
  }, 90_000);

  it('prints a fresh access token with auth token, for curl', async () => {
    const before = await refreshes();
    expireLocally();
    const r = await svcHere(['auth', 'token']);
    expect(r.code).toBe(0);
    const token = r.stdout.trim();
    expect(token).toBe(storedCredential(dir()).access_token);
    expect((await refreshes()).ok).toBe(before.ok + 1);
    const me = await call(sandbox(), 'GET', '/v1/me', { token });
    expect(me.status).toBe(200);
    // Fresh: no second refresh.
    expect((await svcHere(['auth', 'token'])).stdout.trim()).toBe(token);
    expect((await refreshes()).ok).toBe(before.ok + 1);
  });

  it('ends with exit 3 when the refresh token is refused, and keeps the stored credential', async () => {
    const credential = storedCredential(dir());
    // Someone replays an old refresh token: the server revokes the whole family.
    const stolen = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: 'svc-cli',
      refresh_token: credential.refresh_token,
    });
    expect(stolen.status).toBe(200);
    const replay = await tokenRequest(sandbox(), {
      grant_type: 'refresh_token',
      client_id: 'svc-cli',
      refresh_token: credential.refresh_token,
    });
    expect(replay.body.error).toBe('invalid_grant');
    const before = readFileSync(join(dir(), 'credentials.json'), 'utf8');
    // The process's exit code, through the launcher.
    const r = await svc(['me'], { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      'error: the session of profile "default" could not be refreshed: the refresh token was revoked (invalid_grant); run `svc login` again\n',
    );
    // Kept, with the refusal recorded on it (nothing else changed).
    const message =
      'the session of profile "default" could not be refreshed: the refresh token was revoked (invalid_grant)';
    expect(JSON.parse(readFileSync(join(dir(), 'credentials.json'), 'utf8'))).toEqual({
      profiles: {
        default: {
          ...JSON.parse(before).profiles.default,
          refresh_refused: { code: 'invalid_grant', message, at: expect.any(String) },
        },
      },
    });
    const status = await svcHere(['auth', 'status']);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('status\tnot logged in');
    // auth token no longer prints the access token of the refused session: the same error.
    expect(await svcHere(['auth', 'token'])).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: ${message}; run \`svc login\` again\n`,
    });
  });
});
