/**
 * A directory variable under /proc, where mkdir answers ENOENT although the parent exists: Node's
 * recursive mkdirSync loops on that forever at full CPU, deaf to SIGTERM (its loop is
 * synchronous). Spawned, so a hang is killed (SIGKILL at the spawn helper's 30 s) instead of hanging
 * the suite; not at 8 s, which a spawned svc on a loaded machine can need just to start (session 29).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../helpers/sandbox.js';
import { sandboxEnv, svc, tempConfigDir } from '../helpers/svc.js';

const proc = existsSync('/proc/self');
const dir = tempConfigDir();
const sandbox = useSandbox();
const env = sandboxEnv(sandbox);

describe.skipIf(!proc)('a directory under /proc (skipped: this system has no /proc)', () => {
  it('SVC_CONFIG_DIR: one line naming the directory and the fix, exit 2, at once', async () => {
    const r = await svc(['config', 'set', 'base_url', 'http://127.0.0.1:1'], {
      env: { SVC_CONFIG_DIR: '/proc/svc-no-such-dir', SVC_STATE_DIR: `${dir}-state` },
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: cannot create config directory \/proc\/svc-no-such-dir: ENOENT[^\n]*; set SVC_CONFIG_DIR to a writable directory\n$/,
    );
  });

  it('SVC_STATE_DIR: a bulk run says it cannot make its journal, exit 2, at once', async () => {
    const r = await svc(['roles', 'revoke', '--file', '-'], {
      env: { ...env, SVC_STATE_DIR: '/proc/svc-no-such-dir' },
      input: 'user,role\nusr_viewer,tenant_reviewer\n',
    });
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toMatch(
      /^error: cannot create the journal's directory \/proc\/svc-no-such-dir\/journals: no such file; pass --journal PATH in a writable directory, or set SVC_STATE_DIR; svc changed nothing\n$/,
    );
  });

  it('SVC_CACHE_DIR: the command runs; a cache that cannot be written only costs speed', async () => {
    const r = await svc(['profiles', 'ls'], {
      env: { SVC_CONFIG_DIR: dir, SVC_CACHE_DIR: '/proc/svc-no-such-dir' },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});
