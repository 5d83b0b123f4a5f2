/**
 * Ending a session on a full disk (review s9, 1): `svc logout` and `svc profiles rm` revoke the
 * session at the server, then write the files. They prove first that the files can be written
 * (the store's ensureWritable), so a full disk changes nothing anywhere; and a disk that fills up
 * after that proof is said as it is: the session was revoked, the file still holds it, and how
 * to clean up. The full disk is played through the store's disk seam (test/helpers/disk.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../src/config/store.js';
import { runInProcess } from '../helpers/context.js';
import { fillableDisk } from '../helpers/disk.js';
import { sandboxSession } from '../helpers/oauth.js';
import { call, useSandbox } from '../helpers/sandbox.js';

const sandbox = useSandbox();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Profile "work" logged in to the sandbox over OAuth, and the environment of a run that uses it. */
async function workProfile() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-full-session-'));
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
    full.write = false;
    // The command the hint names (--yes: nobody is here to be asked).
    const again = await runInProcess([...cleanUp.split(' ').slice(1), '--yes'], env, {
      now: Date.now(),
      disk,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(store.credential('work')).toBeUndefined();
  });
});
