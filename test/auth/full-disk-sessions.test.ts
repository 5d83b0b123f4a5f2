/**
 * Ending a session on a full disk (review s9, 1): `svc logout` and `svc profiles rm` revoke the
 * session at the server, then write the files. They prove first that the files can be written
 * (the store's ensureWritable), so a full disk changes nothing anywhere; and a disk that fills up
 * after that proof is said as it is: the session was revoked, the file still holds it, and how
 * to clean up. The full disk is played through the store's disk seam (test/helpers/disk.ts).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess, startInProcess } from '../helpers/context.js';
import { fillableDisk } from '../helpers/disk.js';
import { consent, consentBrowser, sandboxSession } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Profile "work" logged in to the sandbox over OAuth, and the environment of a run that uses it. */
async function workProfile() {
  const dir = tempDir('svc-full-session-');
  dirs.push(dir);
  const store = new ConfigStore(dir);
  await store.setProfileValues('work', { base_url: sandbox().url });
  const credential = await sandboxSession(sandbox());
  await store.setCredential('work', credential);
  await store.setActiveProfile('work');
  const env = { SVC_CONFIG_DIR: dir, SVC_MAX_RETRIES: '0', NO_COLOR: '1' };
  return { store, env, credential };
}

const alive = async (token: string) => (await call(sandbox(), 'GET', '/v1/me', { token })).status === 200;

describe.each([
  ['svc logout', ['-p', 'work', 'logout'], 'credentials', 'svc -p work logout --no-revoke'],
  ['svc profiles rm', ['profiles', 'rm', 'work', '--yes'], 'credentials', 'svc profiles rm work --no-revoke'],
])('%s on a full disk', (_what, argv, file, cleanUp) => {
  it('with no room at all: nothing is revoked and nothing changes (exit 1)', async () => {
    const { store, env, credential } = await workProfile();
    const { disk, full } = fillableDisk();
    full.reserve = full.write = true;
    const r = await runInProcess(argv, env, { now: Date.now(), disk });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `error: the session of profile "work" was not ended: ${join(env.SVC_CONFIG_DIR, `${file}.json`)} cannot be written (ENOSPC: no space left on device, write); nothing was changed, at the server or here; make room on its disk (or make it writable), then run the command again\n`,
    );
    expect(await alive(credential.access_token)).toBe(true);
    expect(store.credential('work')).toEqual(credential);
    expect(store.hasProfile('work')).toBe(true);
  });

  it('filling up after the proof: says the session was revoked and the file still holds it, and the clean-up works', async () => {
    const { store, env, credential } = await workProfile();
    const { disk, full } = fillableDisk();
    full.write = true;
    const r = await runInProcess(argv, env, { now: Date.now(), disk });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `error: the session of profile "work" was revoked at ${sandbox().url}, but cannot write ${join(env.SVC_CONFIG_DIR, `${file}.json`)}: ENOSPC: no space left on device, write; it still holds the revoked credential; ` +
        `make room on its disk (or make it writable), then run \`${cleanUp}\` to remove it\n`,
    );
    expect(await alive(credential.access_token)).toBe(false);
    expect(store.credential('work')).toEqual(credential);
    // Scripts read its code: the same again (the server takes a revoked token's revocation), as --json gives it.
    const json = await runInProcess([...argv, '--json'], env, { now: Date.now(), disk });
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'config_write', exit_code: 1 });
    full.write = false;
    // The command the hint names (--yes: nobody is here to be asked).
    const again = await runInProcess([...cleanUp.split(' ').slice(1), '--yes'], env, {
      now: Date.now(),
      disk,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(store.credential('work')).toBeUndefined();
  });

  it('--no-revoke on a disk that fills up after the proof: the write error as it is, nothing revoked', async () => {
    const { store, env, credential } = await workProfile();
    const { disk, full } = fillableDisk();
    full.write = true;
    const r = await runInProcess([...argv, '--no-revoke'], env, { now: Date.now(), disk });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toBe(
      `error: cannot write ${join(env.SVC_CONFIG_DIR, `${file}.json`)}: ENOSPC: no space left on device, write; make room on its disk (or make it writable), then run the command again; nothing was changed\n`,
    );
    expect(await alive(credential.access_token)).toBe(true);
    expect(store.credential('work')).toEqual(credential);
  });
});

// The same for an OAuth login (review s9, 1): the code exchange opens a session at the server, so
// svc proves first that it can store it; a disk that fills up after that proof is said as it is.
// Each way of opening one: the browser login, the device login (whose polls may each open it) and
// `svc oauth authorize --save`.
describe.each([
  ['svc login', 'login', ['-p', 'work', 'login', '--client-id', 'svc-cli'], 'svc -p work login'],
  [
    'svc login --device',
    'device',
    ['-p', 'work', 'login', '--device', '--client-id', 'svc-cli'],
    'svc -p work login',
  ],
  [
    'svc oauth authorize --save',
    'authorize',
    ['-p', 'work', 'oauth', 'authorize', '--client-id', 'svc-cli', '--public', '--save'],
    'the command',
  ],
] as const)('%s on a full disk', (_what, flow, argv, again) => {
  const stats = async () => (await call(sandbox(), 'GET', '/_sandbox/stats')).body as Record<string, number>;
  const count = (s: Record<string, number>, prefix: string) =>
    Object.entries(s)
      .filter(([key]) => key.startsWith(prefix))
      .reduce((sum, [, n]) => sum + n, 0);

  async function login(full: { reserve: boolean; write: boolean }) {
    const dir = tempDir('svc-full-login-');
    dirs.push(dir);
    const fillable = fillableDisk();
    Object.assign(fillable.full, full);
    const before = await stats();
    const browser = consentBrowser();
    const env = { SVC_CONFIG_DIR: dir, SVC_BASE_URL: sandbox().url, SVC_MAX_RETRIES: '0', NO_COLOR: '1' };
    // A real clock: the device login polls every second (the interval set below) until approved.
    const live = startInProcess([...argv], env, { browser, disk: fillable.disk });
    if (flow === 'device' && !full.reserve) {
      const [, page] = await live.waitForStderr(/\(or open (\S+)\)\n/);
      if (!full.reserve) expect((await consent(page!)).status).toBe(200);
    }
    const r = await live.done;
    await browser.settled().catch(() => undefined);
    const after = await stats();
    return {
      r,
      dir,
      /** The browser tab's last words (none for the device flow, which has no loopback). */
      page: browser.pages.map((p) => /<h1>(.*)<\/h1><p>(.*)<\/p>/.exec(p.text)?.slice(1).join(': ')),
      exchanges: count(after, 'POST /v1/oauth/token ') - count(before, 'POST /v1/oauth/token '),
      opened: count(after, 'POST /v1/oauth/token 200') - count(before, 'POST /v1/oauth/token 200'),
      codes:
        count(after, 'POST /v1/oauth/device_authorization ') -
        count(before, 'POST /v1/oauth/device_authorization '),
      revocations: count(after, 'POST /v1/oauth/revoke ') - count(before, 'POST /v1/oauth/revoke '),
      stored: new ConfigStore(dir).credential('work'),
    };
  }

  beforeAll(() => {
    sandbox().state.oauth.devices.intervalSeconds = 1;
  });

  /** What the tab the browser is left on says of the step that failed (a device login has none). */
  const failedPage = (step: string) =>
    flow === 'device'
      ? []
      : [
          `${flow === 'login' ? 'Login failed' : 'Authorization failed'}: svc could not finish: ${step}. See your terminal for why and what to do.`,
        ];

  // Before the login page or the code is shown (review21c F5: `login --device` showed its code and
  // waited for the user, who approved, before it found that nothing could be stored).
  it('with no room at all: refused before a page or a code is shown, no tokens asked for (exit 1)', async () => {
    const { r, dir, exchanges, codes, stored, page } = await login({ reserve: true, write: true });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      1,
      '',
      `error: the login was not completed: ${join(dir, 'credentials.json')} cannot be written (ENOSPC: no space left on device, write); no tokens were asked for, so no session was opened and nothing was changed; make room on its disk (or make it writable), then run ${again === 'the command' ? again : `\`${again}\``} again\n`,
    ]);
    expect([exchanges, codes, stored, page]).toEqual([0, 0, undefined, []]);
  });

  it('filling up after the proof: the new session is revoked at once and svc says so (exit 1)', async () => {
    const { r, dir, opened, revocations, stored, page } = await login({ reserve: false, write: true });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr.split('\n').at(-2)).toBe(
      `error: the server opened a session, but cannot write ${join(dir, 'credentials.json')}: ENOSPC: no space left on device, write; svc revoked that session at ${sandbox().url}, so nothing holds it and nothing was changed here; make room on its disk (or make it writable), then run ${again === 'the command' ? again : `\`${again}\``} again`,
    );
    expect([opened, revocations, stored]).toEqual([1, 1, undefined]);
    expect(page).toEqual(failedPage('the tokens could not be stored'));
  });
});
