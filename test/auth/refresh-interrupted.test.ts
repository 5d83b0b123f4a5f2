/**
 * A stop (Ctrl-C; SIGTERM from a cancelled CI job) while svc refreshes an OAuth session (attack21
 * F6). The platform rotates the refresh token as it answers: a refresh cut after it was sent loses
 * the new tokens, and the next run (any job on the profile) replays the old refresh token — reuse
 * detected, the whole family revoked, every job exits 3. So a refresh already sent is let finish
 * and its tokens saved before the stop is honoured; the command itself is not sent (exit 130).
 * The stop comes while the token request is on its way (a proxy in front of the sandbox aborts the
 * run's signal as the request arrives, then passes it on); the sandbox's counters tell the rest.
 * A second stop (the binary's handler) abandons the refresh, saying the login may be lost.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { renderError } from '../../src/output/errors.js';
import { interruptHandler } from '../../src/system/interrupts.js';
import { runInProcess } from '../helpers/context.js';
import { useLossyProxy } from '../helpers/lossy-proxy.js';
import { sandboxSession, spawnSvc } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { held } from '../helpers/signal-holds.js';
import { tempDir } from '../helpers/temp.js';

const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  loseToken = false;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What reaches the proxy, and what to do as the token request arrives (stop the run). */
const seen: string[] = [];
let atToken: (() => Promise<void> | void) | undefined;
/** Whether the token request's answer is lost (the connection dropped after the sandbox answered). */
let loseToken = false;
const proxy = useLossyProxy(sandbox, {
  lose: (method, path) => (loseToken && method === 'POST' && path === '/v1/oauth/token' ? 'drop' : false),
  before: async (method, path) => {
    seen.push(`${method} ${path.split('?')[0]}`);
    if (method === 'POST' && path === '/v1/oauth/token') {
      const stop = atToken;
      atToken = undefined;
      await stop?.();
    }
  },
});

/** Profile "px" logged in over OAuth through the proxy, its access token expired a minute ago. */
async function expiredSession() {
  const dir = tempDir('svc-refresh-stop-');
  dirs.push(dir);
  const store = new ConfigStore(dir);
  await store.setProfileValues('px', { base_url: proxy().url });
  const session = await sandboxSession(sandbox());
  const credential = {
    ...session,
    token_url: `${proxy().url}/v1/oauth/token`,
    expires_at: new Date(Date.now() - 60_000).toISOString(),
  };
  await store.setCredential('px', credential);
  const env = { SVC_CONFIG_DIR: dir, NO_COLOR: '1' };
  return { store, env, credential };
}

async function refreshStats(): Promise<{ ok: number; reuse: number; revoked: number }> {
  const stats = (await call(sandbox(), 'GET', '/_sandbox/oauth/stats')).body;
  return {
    ok: stats.grants['refresh_token ok'] ?? 0,
    reuse: stats.grants['refresh_token reuse_detected'] ?? 0,
    revoked: stats.families_revoked,
  };
}

describe('a stop during a token refresh', () => {
  it('lets the refresh sent finish and saves its tokens, sends nothing more, and the next run goes on (exit 130, then 0)', async () => {
    const { store, env, credential } = await expiredSession();
    const before = await refreshStats();
    const controller = new AbortController();
    atToken = () => controller.abort();
    seen.length = 0;
    const r = await runInProcess(['-p', 'px', 'me'], env, { now: Date.now(), signal: controller.signal });
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(r.stderr).toBe(
      'warning: stopping once the session of profile "px" is refreshed and saved; interrupt again to stop now, at the risk of losing the login\n' +
        'error: interrupted while the session of profile "px" was being refreshed: svc let the refresh finish, and its new tokens were saved, so the login is kept; nothing more was sent; run the command again\n',
    );
    // The refresh made, its rotated tokens kept; the command itself never sent.
    expect(seen).toEqual(['POST /v1/oauth/token']);
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
    const saved = store.credential('px');
    expect(saved?.refresh_token).not.toBe(credential.refresh_token);
    expect(saved?.access_token).not.toBe(credential.access_token);
    // The next run (any job on the profile) uses them: no reuse, no family revoked.
    const next = await runInProcess(['-p', 'px', 'me', '--json'], env, { now: Date.now() });
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).id).toBeTruthy();
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
  });

  it('a refresh not stopped leaves nothing on the command’s signal (one signal per refresh stayed listed on it, Node 20)', async () => {
    const { env } = await expiredSession();
    const controller = new AbortController();
    seen.length = 0;
    const r = await runInProcess(['-p', 'px', 'me', '--json'], env, {
      now: Date.now(),
      signal: controller.signal,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual(['POST /v1/oauth/token', 'GET /v1/me']);
    expect(held(controller.signal)).toEqual({ dependants: 0, listeners: 0 });
  });

  it('the binary, sent SIGTERM as its refresh reaches the server: the same (spawned)', async () => {
    const { store, env, credential } = await expiredSession();
    const before = await refreshStats();
    seen.length = 0;
    const live = spawnSvc(['-p', 'px', 'me'], env);
    // The answer waits until svc has taken the signal (its warning), so the stop is mid-request.
    atToken = async () => {
      live.child.kill('SIGTERM');
      await live.waitForStderr(/stopping once/);
    };
    const r = await live.done;
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(r.stderr).toBe(
      'warning: stopping once the session of profile "px" is refreshed and saved; interrupt again to stop now, at the risk of losing the login\n' +
        'error: interrupted while the session of profile "px" was being refreshed: svc let the refresh finish, and its new tokens were saved, so the login is kept; nothing more was sent; run the command again\n',
    );
    expect(seen).toEqual(['POST /v1/oauth/token']);
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
    expect(store.credential('px')?.refresh_token).not.toBe(credential.refresh_token);
  });

  it('a stop before the refresh is sent: the refresh token is not spent, nothing is sent (exit 130)', async () => {
    const { store, env, credential } = await expiredSession();
    const before = await refreshStats();
    const controller = new AbortController();
    controller.abort();
    seen.length = 0;
    const r = await runInProcess(['-p', 'px', 'me'], env, { now: Date.now(), signal: controller.signal });
    expect([r.code, r.stdout]).toEqual([130, '']);
    expect(r.stderr).toBe(
      'error: interrupted before the session of profile "px" was refreshed: its refresh token was not used, so the login is kept; nothing more was sent; run the command again\n',
    );
    expect(seen).toEqual([]);
    expect(await refreshStats()).toEqual(before);
    // The same tokens (bound to the origin they were used for, as any first use binds them).
    expect(store.credential('px')).toEqual({ ...credential, origin: proxy().url });
  });

  it('a second stop abandons the refresh at once, saying the login may be lost and how to recover', async () => {
    const { env } = await expiredSession();
    const controller = new AbortController();
    const said: string[] = [];
    const exits: number[] = [];
    // The binary's handler (src/cli.ts main), its exit and stderr played.
    const press = interruptHandler({
      abort: () => controller.abort(),
      exit: (code) => exits.push(code),
      write: (text) => said.push(text),
      render: (error) => renderError(error, { json: false, debug: false }),
    });
    atToken = () => {
      press();
      press();
    };
    const r = await runInProcess(['-p', 'px', 'me'], env, { now: Date.now(), signal: controller.signal });
    // The in-process run goes on past the played exit.
    expect(r.code).toBe(130);
    expect(exits).toEqual([130]);
    expect(said.join('')).toBe(
      'error: interrupted again, so svc stopped at once while the session of profile "px" was being refreshed, after the request was sent: if the platform refreshed it, its new tokens are lost, and the stored refresh token is spent, so the login may be lost; run `svc -p px login`: the next svc on this profile does not send that refresh token again (the platform may have spent it, and a second use revokes the login)\n',
    );
  });

  // locks22 #4: the platform refreshed, the answer was abandoned by the second stop; a job waiting
  // on the credentials lock then sent the spent refresh token: reuse, the login's family revoked.
  it('after a refresh abandoned by a second stop, the next run on the profile does not send the spent refresh token: it says why (exit 3)', async () => {
    const { store, env, credential } = await expiredSession();
    const before = await refreshStats();
    const controller = new AbortController();
    const press = interruptHandler({
      abort: () => controller.abort(),
      exit: () => {},
      write: () => {},
      render: (error) => renderError(error, { json: false, debug: false }),
    });
    // The sandbox refreshes the session; its answer never comes back (the run has gone).
    loseToken = true;
    atToken = () => {
      press();
      press();
    };
    await runInProcess(['-p', 'px', 'me'], env, { now: Date.now(), signal: controller.signal });
    loseToken = false;
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
    expect(store.credential('px')?.refresh_token).toBe(credential.refresh_token);
    // The waiting job: it takes the lock next and finds the stored, spent, refresh token.
    seen.length = 0;
    const next = await runInProcess(['-p', 'px', 'me'], env, { now: Date.now() });
    expect([next.code, next.stdout]).toEqual([3, '']);
    expect(next.stderr).toMatch(
      /^error: the session of profile "px" is not refreshed: svc process \d+ sent its refresh at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ and was stopped at once before the answer came, so the platform may have spent the stored refresh token; svc does not send it again \(a refresh token used twice makes the platform revoke the login\); run `svc -p px login` again\n$/,
    );
    expect(seen).toEqual([]);
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
  });

  // locks23 #3: a process killed (SIGKILL, an OOM kill, a power cut) once its refresh was sent runs
  // nothing on its way out, so the second stop's note was never written: the next run sent the
  // spent refresh token, the platform took it as stolen and revoked the login's family.
  it('after a refresh whose process was killed (SIGKILL) once it was sent, the next run does not send the spent refresh token: it says what happened (exit 3)', async () => {
    const { store, env, credential } = await expiredSession();
    const before = await refreshStats();
    seen.length = 0;
    const live = spawnSvc(['-p', 'px', 'me'], env);
    // Killed as its token request reaches the platform, which then refreshes the session.
    atToken = async () => {
      live.child.kill('SIGKILL');
      await live.done;
    };
    const killed = await live.done;
    expect([killed.code, killed.stdout, killed.stderr]).toEqual([null, '', '']);
    // The platform has refreshed (rotated) the session: its answer had no one to go to.
    for (let poll = 0; poll < 1_000 && (await refreshStats()).ok === before.ok; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
    expect(store.credential('px')?.refresh_token).toBe(credential.refresh_token);
    // The next run on the profile: the stored refresh token is spent.
    seen.length = 0;
    const next = await runInProcess(['-p', 'px', 'me'], env, { now: Date.now() });
    expect([next.code, next.stdout]).toEqual([3, '']);
    expect(next.stderr).toMatch(
      new RegExp(
        `^error: the session of profile "px" is not refreshed: svc process ${live.child.pid} sent its refresh at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ and never saved the answer \\(it was killed, or could not write it\\), so the platform may have spent the stored refresh token; svc does not send it again \\(a refresh token used twice makes the platform revoke the login\\); run \`svc -p px login\` again\n$`,
      ),
    );
    expect(seen).toEqual([]);
    expect(await refreshStats()).toEqual({ ...before, ok: before.ok + 1 });
  });
});
