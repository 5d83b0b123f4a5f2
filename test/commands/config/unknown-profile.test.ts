/**
 * A profile named by -p or SVC_PROFILE that does not exist is the same error everywhere a command
 * reads it: `no profile named "X"` with a did-you-mean, exit 5, and nothing written; never "not
 * logged in" (whose fix would log in the active profile) nor a silent empty answer. Hints that
 * suggest a command keep the -p NAME the user gave.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runInProcess, startInProcess } from '../../helpers/context.js';
import { useTwoProfiles } from '../../helpers/profiles.js';

const env = useTwoProfiles();

describe('an unknown profile', () => {
  it.each([
    'auth status',
    'auth token',
    'config ls',
    'config get base_url',
    'config unset tenant',
    'logout',
    'me',
    'roles assign --file grants.csv',
    'roles revoke --file grants.csv',
  ])('svc -p stagng %s: no profile named, did you mean staging?, exit 5', async (command) => {
    const argv = command.split(' ');
    const before = readdirSync(env().SVC_CONFIG_DIR as string).sort();
    expect(await runInProcess(['-p', 'stagng', ...argv], env())).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: no profile named "stagng" (did you mean staging?); see `svc profiles ls`; create one with `svc -p stagng config set base_url URL` (or `svc -p stagng login --base-url URL`)\n',
    });
    expect(readdirSync(env().SVC_CONFIG_DIR as string).sort()).toEqual(before);
  });

  it('SVC_PROFILE is held to the same rule', async () => {
    const r = await runInProcess(['auth', 'status'], { ...env(), SVC_PROFILE: 'nope' });
    expect([r.code, r.stderr]).toEqual([
      5,
      'error: no profile named "nope" (from SVC_PROFILE) among your profiles; see `svc profiles ls`; create one with `svc -p nope config set base_url URL` (or `svc -p nope login --base-url URL`)\n',
    ]);
    // Said where the name came from, with the did-you-mean after it (as SVC_TENANT's error does).
    const typo = await runInProcess(['me'], { ...env(), SVC_PROFILE: 'stagng' });
    expect([typo.code, typo.stderr]).toEqual([
      5,
      'error: no profile named "stagng" (from SVC_PROFILE) among your profiles (did you mean staging?); see `svc profiles ls`; create one with `svc -p stagng config set base_url URL` (or `svc -p stagng login --base-url URL`)\n',
    ]);
    // -p wins over SVC_PROFILE: the flag's name is not said to come from the environment.
    const flag = await runInProcess(['-p', 'stagng', 'me'], { ...env(), SVC_PROFILE: 'nope' });
    expect(flag.stderr).toMatch(/^error: no profile named "stagng" \(did you mean staging\?\);/);
  });

  it('config set may create one', async () => {
    const r = await runInProcess(['-p', 'fresh', 'config', 'set', 'org', 'org_1'], env());
    expect([r.code, r.stderr]).toEqual([0, '✓ set org for profile "fresh" (a new profile)\n']);
  });
});

describe('hints keep the -p NAME given', () => {
  it('config get of an unset key says `svc -p staging config set …`', async () => {
    expect(await runInProcess(['-p', 'staging', 'config', 'get', 'org'], env())).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: org is not set for profile "staging"; set it with `svc -p staging config set org VALUE`\n',
    });
  });

  it('auth token of a profile with no credential says `svc -p staging login`', async () => {
    const r = await runInProcess(['-p', 'staging', 'auth', 'token'], env());
    expect([r.code, r.stderr]).toEqual([
      3,
      'error: not logged in: profile "staging" has no credential; run `svc -p staging login` (or `svc -p staging login --with-token`), or set SVC_TOKEN\n',
    ]);
  });
});

describe('a profile that exists but has no base URL', () => {
  it('svc -p NAME me: the suggested config set keeps -p NAME', async () => {
    const e = env();
    expect((await runInProcess(['-p', 'bare', 'config', 'set', 'org', 'o'], e)).code).toBe(0);
    const r = await runInProcess(['-p', 'bare', 'me'], e);
    expect([r.code, r.stderr]).toEqual([
      2,
      'error: no API base URL for profile "bare"; set its server with `svc -p bare config set base_url URL` (or `svc -p bare sandbox start` for a local sandbox), or pass --base-url / set SVC_BASE_URL\n',
    ]);
  });

  // examples16 E7: the first remedy was `svc sandbox start`, which configures "sandbox": the same
  // command failed the same way after it. Each remedy named now gives the named profile its server.
  it.each([
    ['-p fresh', ['-p', 'fresh'], {}],
    ['SVC_PROFILE=fresh', [], { SVC_PROFILE: 'fresh' }],
  ])('%s: the remedies name that profile, and the sandbox one fixes it', async (_how, flags, extra) => {
    const e = { ...env(), ...extra };
    expect((await runInProcess([...flags, 'config', 'set', 'org', 'o'], e)).code).toBe(0);
    const r = await runInProcess([...flags, 'me'], e);
    expect(r.code).toBe(2);
    const sandbox = /`svc (-p fresh sandbox start)`/.exec(r.stderr)?.[1];
    expect(sandbox, r.stderr).toBe('-p fresh sandbox start');
    const run = startInProcess([...sandbox!.split(' '), '--port', '0'], e);
    while (!/^Try /m.test(run.stdout()) && !run.ended())
      await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      const again = await runInProcess([...flags, 'me', '--json'], e);
      expect(again.code, again.stderr).toBe(0);
    } finally {
      run.interrupt();
      await run.done;
    }
  });
});
