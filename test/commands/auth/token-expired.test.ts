// attack18a F2: `svc auth token` promises a valid access token. One svc knows has expired (a JWT's
// `exp` passed: a `login --with-token` token, or SVC_TOKEN) is refused, exit 3, with the fix, as
// `auth status` refuses it: never printed with exit 0 for curl to be told 401.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { advanceClock, call, requestCount, sandboxNow, useSandboxContext } from '../../helpers/sandbox.js';

const svc = useSandboxContext({}, { tenant: false });
let env: Record<string, string | undefined> = {};
beforeEach(() => {
  const config = mkdtempSync(join(svc.env().SVC_STATE_DIR!, '..', 'config-'));
  env = { SVC_TOKEN: undefined, SVC_BASE_URL: undefined, SVC_TENANT: undefined, SVC_CONFIG_DIR: config };
});

describe('svc auth token of an expired token', () => {
  it('a token stored by login --with-token, expired since: exit 3 and the login hint, nothing on stdout', async () => {
    const short = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: 60 });
    const login = await svc.run(['-p', 'exp', '--base-url', svc.sandbox().url, 'login', '--with-token'], {
      env,
      stdin: `${short.token}\n`,
    });
    expect(login.code).toBe(0);
    // Live: printed.
    const live = await svc.run(['-p', 'exp', 'auth', 'token'], { env, now: Date.now() });
    expect([live.code, live.stdout]).toEqual([0, `${short.token}\n`]);
    // Two minutes later (on the platform's clock, the one it expires on, and svc's): expired.
    await advanceClock(svc.sandbox(), 120);
    const r = await svc.run(['-p', 'exp', 'auth', 'token'], { env, now: Date.now() + 120_000 });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: the access token of profile "exp" expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; svc prints no token the platform will refuse; run `svc -p exp login` \(or `svc -p exp login --with-token`\), or set SVC_TOKEN\n$/,
    );
  });

  it('SVC_TOKEN expired: exit 3, saying so, with the SVC_TOKEN fix', async () => {
    const expired = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: -60 });
    const r = await svc.run(['auth', 'token'], {
      env: { ...env, SVC_TOKEN: expired.token, SVC_BASE_URL: svc.sandbox().url },
      now: await sandboxNow(svc.sandbox()),
    });
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toMatch(
      /^error: SVC_TOKEN expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; svc prints no token the platform will refuse; SVC_TOKEN overrides any stored login: unset it, or set it to a valid token\n$/,
    );
    const json = await svc.run(['auth', 'token', '--json'], {
      env: { ...env, SVC_TOKEN: expired.token, SVC_BASE_URL: svc.sandbox().url },
      now: await sandboxNow(svc.sandbox()),
    });
    expect([json.code, json.stdout]).toEqual([3, '']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'token_expired', exit_code: 3 });
  });

  it('an API key (no expiry svc can read) is printed as before', async () => {
    const r = await svc.run(['auth', 'token'], {
      env: { ...env, SVC_TOKEN: 'svc_sk_notreallyakey0123456789', SVC_BASE_URL: svc.sandbox().url },
    });
    expect([r.code, r.stdout]).toEqual([0, 'svc_sk_notreallyakey0123456789\n']);
  });

  // attack22 F2: `exp` is judged on the platform's clock (one GET /v1/me tells it), as every
  // expiry svc judges; this machine's clock hours off neither refuses a live token nor passes a dead one.
  it("judges exp on the platform's clock: this machine 3 h ahead prints a live token; the platform 3 h ahead refuses it", async () => {
    const token = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: 3600 }).token;
    const run = (now: number) =>
      svc.run(['auth', 'token'], { env: { ...env, SVC_TOKEN: token, SVC_BASE_URL: svc.sandbox().url }, now });
    const ahead = await run((await sandboxNow(svc.sandbox())) + 3 * 3_600_000);
    expect(ahead).toEqual({ code: 0, stdout: `${token}\n`, stderr: '' });

    const machine = await sandboxNow(svc.sandbox());
    await advanceClock(svc.sandbox(), 3 * 3600);
    const behind = await run(machine);
    expect([behind.code, behind.stdout]).toEqual([3, '']);
    expect(behind.stderr).toMatch(
      /^error: SVC_TOKEN expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ on the platform's clock \(3 h ahead of this machine's\); svc prints no token the platform will refuse; SVC_TOKEN overrides any stored login: unset it, or set it to a valid token\n$/,
    );
  });

  it("says the judgement is this machine's clock's when the platform cannot be asked", async () => {
    const expired = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: -60 });
    const r = await svc.run(['auth', 'token'], {
      env: { ...env, SVC_TOKEN: expired.token, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_MAX_RETRIES: '0' },
      now: await sandboxNow(svc.sandbox()),
    });
    expect([r.code, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toMatch(
      /^error: SVC_TOKEN expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ on this machine's clock \(the platform's could not be read\); svc prints no token that has expired; SVC_TOKEN overrides any stored login: unset it, or set it to a valid token\n$/,
    );
  });
});

describe('svc auth token asks the platform its clock once, briefly', () => {
  it('a 503 to the clock lookup is not retried: no retry notice, judged on this machine’s clock (review22c F2)', async () => {
    const live = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: 3600 });
    const faults = await call(svc.sandbox(), 'PUT', '/_sandbox/faults', {
      body: { fail_rate: 1, fail_status: 503 },
    });
    expect(faults.status, faults.text).toBe(200);
    try {
      const before = await requestCount(svc.sandbox());
      const r = await svc.run(['auth', 'token'], {
        env: { ...env, SVC_TOKEN: live.token, SVC_BASE_URL: svc.sandbox().url },
        now: Date.now(),
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `${live.token}\n`, '']);
      // One attempt: the lookup's 503 is not retried (before: the client's retries, up to minutes on a slow platform).
      expect((await requestCount(svc.sandbox())) - before).toBe(1);
    } finally {
      await call(svc.sandbox(), 'PUT', '/_sandbox/faults', { body: { fail_rate: 0 } });
    }
  });

  // review22d F3: the case review22c F2 described, a platform that takes the lookup and does not
  // answer. The run's request timers are the test's: the bound is what the lookup's timer was set
  // to, and it ends the run when fired; no time passes (before, SVC_TIMEOUT's 600 s, then retries).
  it('a clock lookup the platform does not answer is given up at 5 s (its timer, fired): judged on this machine’s clock', async () => {
    const live = svc.sandbox().issueToken('usr_admin', { expiresInSeconds: 3600 });
    const held = svc.sandbox().faults.hold((method, url) => method === 'GET' && url.startsWith('/v1/me'));
    const timers: Array<{ ms: number; expire: () => void }> = [];
    const clock = {
      now: () => Date.now(),
      timer: (ms: number, expire: () => void) => {
        timers.push({ ms, expire });
        return () => {};
      },
    };
    try {
      const run = svc.run(['auth', 'token'], {
        env: { ...env, SVC_TOKEN: live.token, SVC_BASE_URL: svc.sandbox().url, SVC_TIMEOUT: '600' },
        clock,
      });
      await held.arrived;
      expect(timers.map((t) => t.ms)).toEqual([5_000]);
      timers[0]!.expire();
      expect(await run).toEqual({ code: 0, stdout: `${live.token}\n`, stderr: '' });
      // Given up, not retried: no other request's timer was set.
      expect(timers).toHaveLength(1);
    } finally {
      for (const timer of timers) timer.expire();
      held.release();
    }
  });
});
