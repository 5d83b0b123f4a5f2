/**
 * `svc login`'s loopback redirect, in-process against a sandbox: svc listens on 127.0.0.1 while
 * the test plays the browser (forged, stray, replayed and foreign callbacks, a timeout, Ctrl-C,
 * a port in use). Was test/e2e/login-loopback.test.ts (spawned); a real SIGINT to the binary is
 * tested in test/e2e/errors.test.ts.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/system/clock.js';
import { runInProcess, startInProcess, useTempDirs, virtualClock } from '../../helpers/context.js';
import {
  connectionRefused,
  consent,
  issuerNoticeClock,
  printedLogin,
  tokenRequests,
} from '../../helpers/oauth.js';
import { useSandbox } from '../../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs = useTempDirs();
const env = () => ({ ...dirs(), SVC_BASE_URL: sandbox().url, SVC_CLIENT_ID: 'svc-cli' });
const svc = (args: string[], options: { env: Record<string, string> }) =>
  runInProcess(args, options.env, { now: Date.now() });

async function startLogin(args: string[] = [], clock?: Clock) {
  const live = startInProcess(
    ['login', '--no-browser', ...args],
    env(),
    clock ? { clock } : { now: Date.now() },
  );
  return { live, ...(await printedLogin(live)) };
}

function get(url: string): Promise<number | 'refused'> {
  return fetch(url).then(
    (r) => r.status,
    () => 'refused' as const,
  );
}

describe('svc login: the loopback redirect (real sandbox)', () => {
  it('turns away a wrong or missing state with a 400 page and keeps waiting; the real callback then logs in', async () => {
    const before = await tokenRequests(sandbox());
    const { live, url, redirectUri, state } = await startLogin();
    expect(await get(`${redirectUri}?code=forged&state=${state}x`)).toBe(400);
    expect(await get(`${redirectUri}?code=forged`)).toBe(400);
    await live.waitForStderr(
      /with the wrong state was turned away \(possible cross-site request forgery\); still waiting/,
    );
    expect(live.ended()).toBe(false);
    expect(await tokenRequests(sandbox())).toBe(before);
    const { location } = await consent(url);
    expect(await get(location!.toString())).toBe(200);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('✓ logged in to');
    expect(result.stderr).toContain(
      'warning: 1 more request to the login callback was turned away (a missing or wrong state)\n',
    );
    expect(await tokenRequests(sandbox())).toBe(before + 1);
  });

  it('says the first stray callback, counts the rest, and keeps the URL on screen; the login completes', async () => {
    const { live, url, redirectUri, state } = await startLogin();
    for (let i = 0; i < 40; i++) expect(await get(`${redirectUri}?code=forged&state=${state}${i}`)).toBe(400);
    expect(live.ended()).toBe(false);
    const turnedAway = live
      .stderr()
      .split('\n')
      .filter((line) => line.includes('turned away'));
    expect(turnedAway).toEqual([
      'warning: a request to the login callback with the wrong state was turned away (possible cross-site request forgery); still waiting',
    ]);
    const { location } = await consent(url);
    expect(await get(location!.toString())).toBe(200);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split('\n').filter((line) => line.includes('turned away'))).toEqual([
      turnedAway[0],
      'warning: 39 more requests to the login callback were turned away (a missing or wrong state)',
    ]);
  });

  it('answers a forged code (right state) only after the exchange failed: the page says the login failed', async () => {
    const { live, redirectUri, state } = await startLogin();
    const answer = await fetch(
      `${redirectUri}?code=forged&state=${state}&iss=${encodeURIComponent(sandbox().url)}`,
    );
    const page = await answer.text();
    expect(answer.status).toBe(400);
    expect(page).toContain('<h1>Login failed</h1>');
    expect(page).toContain(
      'svc could not finish: the authorization code could not be exchanged for tokens. See your terminal for why and what to do.',
    );
    expect(page).not.toContain('Logged in');
    expect(page).not.toContain('forged');
    const result = await live.done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^error: the authorization code could not be exchanged for tokens: /m);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it('says "Logged in" once the login is stored', async () => {
    const { live, url } = await startLogin();
    const { location } = await consent(url);
    const answer = await fetch(location!.toString());
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain(
      '<h1>Logged in</h1><p>svc stored the login. You can close this tab and return to your terminal.</p>',
    );
    expect((await live.done).code).toBe(0);
  });

  it.each([
    [
      'a foreign iss',
      (state: string) => `code=abc&state=${state}&iss=https%3A%2F%2Fevil.example`,
      /the authorization response comes from issuer "https:\/\/evil.example", not from this server; /,
    ],
    [
      'an error from the server',
      (state: string) =>
        `error=access_denied&error_description=nope&state=${state}&iss=${encodeURIComponent(sandbox().url)}`,
      /authorization was denied: access_denied \(nope\)/,
    ],
    [
      'no iss, from a server whose metadata says it always sends one (RFC 9207 §2.4)',
      (state: string) => `code=abc&state=${state}`,
      /the authorization response has no iss, though this server says it always sends one \(authorization_response_iss_parameter_supported\): it may come from another server; run the login again, and open only the URL svc printed \(RFC 9207 mix-up protection\)\n$/,
    ],
  ])('fails on %s: exit 3, no token request, port closed', async (_name, query, message) => {
    const before = await tokenRequests(sandbox());
    // Without iss, the 400 page waits for the metadata read; this clock never lets the wait of
    // ISSUER_NOTICE_MS end (its "Checking the response" page), however slow the read (review29a L1).
    const { live, redirectUri, state } = await startLogin([], issuerNoticeClock(Date.now()));
    expect(await get(`${redirectUri}?${query(state)}`)).toBe(400);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(new RegExp(`^error: ${message.source}`, 'm'));
    expect(result.stdout).toBe('');
    expect(await tokenRequests(sandbox())).toBe(before);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it.each([
    ['login_timeout', 'authorization_error', 'authorization failed: login_timeout'],
    ['usage', 'authorization_error', 'authorization failed: usage'],
    ['access_denied', 'authorization_denied', 'authorization was denied: access_denied'],
  ])(
    "--json: the redirect error %s is the server_code, never svc's own code",
    async (error, code, message) => {
      const { live, redirectUri, state } = await startLogin(['--json']);
      const iss = encodeURIComponent(sandbox().url);
      expect(await get(`${redirectUri}?error=${error}&state=${state}&iss=${iss}`)).toBe(400);
      const result = await live.done;
      expect(result.code, result.stderr).toBe(3);
      const report = JSON.parse(result.stderr.split('\n').filter(Boolean).at(-1)!);
      expect(report.error).toMatchObject({ code, message, exit_code: 3, server_code: error });
    },
  );

  it('answers stray paths 404 and keeps waiting; the real callback then logs in (one token request)', async () => {
    const before = await tokenRequests(sandbox());
    const { live, url, redirectUri } = await startLogin();
    for (const path of ['/', '/favicon.ico', '/callback/extra']) {
      expect(await get(new URL(path, redirectUri).toString())).toBe(404);
    }
    expect(live.ended()).toBe(false);
    const { location } = await consent(url);
    expect(await get(location!.toString())).toBe(200);
    const result = await live.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('✓ logged in to');
    expect(result.stderr).toContain('as Ada Admin');
    expect(await tokenRequests(sandbox())).toBe(before + 1);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it('takes a replayed callback only once: one token request', async () => {
    const before = await tokenRequests(sandbox());
    const { live, url, redirectUri } = await startLogin();
    const { location } = await consent(url);
    const answers = await Promise.all([get(location!.toString()), get(location!.toString())]);
    expect(answers.filter((a) => a === 200)).toHaveLength(1);
    expect(answers.filter((a) => a !== 200).every((a) => a === 400 || a === 'refused')).toBe(true);
    expect((await live.done).code).toBe(0);
    expect(await get(location!.toString())).toBe('refused');
    expect(await tokenRequests(sandbox())).toBe(before + 1);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it('times out with exit 3 and no token request', async () => {
    const before = await tokenRequests(sandbox());
    // The wait is the clock's: this one records it and returns at once.
    const clock = virtualClock(Date.now());
    const { live, redirectUri } = await startLogin(['--browser-timeout', '1'], clock);
    const result = await live.done;
    expect(clock.waits).toEqual([1000]);
    expect(result.code).toBe(3);
    // The URL was printed (--no-browser): the fix is more time, or a code, not --no-browser again.
    expect(result.stderr).toMatch(
      /^error: timed out after 1 s waiting for the browser to finish the login; run the login again with a longer --browser-timeout \(it was 1 s\), or log in with a code: `svc login --device`$/m,
    );
    expect(await tokenRequests(sandbox())).toBe(before);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it('stops on Ctrl-C with exit 130 and no token request', async () => {
    const before = await tokenRequests(sandbox());
    const { live, redirectUri } = await startLogin();
    live.interrupt();
    const result = await live.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/^error: interrupted; the login was cancelled$/m);
    expect(await tokenRequests(sandbox())).toBe(before);
    expect(await connectionRefused(Number(redirectUri.port))).toBe(true);
  });

  it('listens on --port when asked, and refuses a port in use (exit 2)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const { live, redirectUri } = await startLogin(['--port', String(port)]);
    expect(redirectUri.toString()).toBe(`http://127.0.0.1:${port}/callback`);
    const busy = await svc(['login', '--no-browser', '--port', String(port)], { env: env() });
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/^error: --port \d+: 127\.0\.0\.1:\d+ is already in use; /m);
    live.interrupt();
    expect((await live.done).code).toBe(130);
  });

  it.each([
    [['login', '--with-token', '--scope', 'admin'], 'error: --with-token cannot be combined with --scope\n'],
    [['login', '--port', '70000'], 'error: --port must be an integer from 1 to 65535, got "70000"\n'],
    [
      ['login', '--browser-timeout', '0'],
      'error: --browser-timeout must be an integer from 1 to 3600, got "0"\n',
    ],
    [
      ['login', '--client-secret-file', 'a', '--client-secret-stdin'],
      'error: --client-secret-file and --client-secret-stdin cannot be combined; pick one\n',
    ],
    [
      ['login', '--scope', 'bad"scope'],
      'error: --scope "bad\\"scope" is not a valid scope (RFC 6749 §3.3)\n',
    ],
  ])('refuses %j before any I/O (exit 2)', async (args, stderr) => {
    const before = await tokenRequests(sandbox());
    expect(await svc(args, { env: env() })).toEqual({ code: 2, stdout: '', stderr });
    expect(await tokenRequests(sandbox())).toBe(before);
  });

  it('needs a client id (exit 2)', async () => {
    const r = await svc(['login'], {
      env: { ...dirs(), SVC_CONFIG_DIR: join(dirs().SVC_CONFIG_DIR, 'bare'), SVC_BASE_URL: sandbox().url },
    });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: no OAuth client id for profile "default"; pass --client-id, set SVC_CLIENT_ID or `svc config set client_id ID` (svc sandbox start sets it), or use `svc login --with-token`\n',
    });
  });
});
