/**
 * brief fixfs 4: a secret file readable by others on a read-only mount (a Kubernetes secret
 * volume: root's, 0644 by default) was told `chmod 600 F`, which fails there (EROFS). svc asks the
 * kernel (access W_OK answers EROFS for a file the caller could otherwise write: root, or its
 * owner) and words the advice for it. Spawned: the mount is made in a mount namespace of its own
 * (`unshare -rm`, no root needed; skipped where the kernel does not allow it).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/system/run.js';
import { BIN } from '../helpers/svc.js';
import { useTempDir } from '../helpers/temp.js';

// Made before the tests and removed after them (never at collection: a file filtered out or
// skipped would leave it behind).
const work = useTempDir('svc-secret-ro-', (dir) => {
  mkdirSync(join(dir, 'mounted'));
  mkdirSync(join(dir, 'home'));
});
const mounted = join(work, 'mounted');
const secret = join(mounted, 'webhook-secret');
const payload = join(work, 'body.json');
const home = join(work, 'home');

/** Runs `argv` with `dir` bound read-only over itself, in a mount namespace of its own. */
const readOnlyAt = (dir: string, argv: string[]) =>
  runProcess(
    'unshare',
    [
      '-rm',
      'sh',
      '-c',
      'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"',
      'sh',
      dir,
      ...argv,
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        SVC_CONFIG_DIR: join(home, 'config'),
        SVC_STATE_DIR: join(home, 'state'),
        SVC_CACHE_DIR: join(home, 'cache'),
        NO_COLOR: '1',
      },
      timeoutMs: 60_000,
    },
  );
const readOnly = (argv: string[]) => readOnlyAt(mounted, argv);

// Whether the kernel lets this user bind and remount read-only in a namespace of its own, asked
// at collection of a directory that exists then (TMPDIR itself, bound only in that namespace,
// which ends with `true`), not of `mounted`, made in beforeAll.
const canMount = await (async () => {
  try {
    return (await readOnlyAt(tmpdir(), ['true'])).code === 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!canMount || process.platform !== 'linux')(
  'a secret file readable by others on a read-only mount (skipped: `unshare -rm` cannot bind-mount here)',
  () => {
    it('0644: used, the warning says chmod cannot change it there, not `chmod 600`', async () => {
      writeFileSync(secret, 'whsec_abcdefghijklmnopqrstuvwxyz012345\n');
      chmodSync(secret, 0o644);
      writeFileSync(payload, '{"id":"evt_1"}');
      const sign = ['webhooks', 'sign', '--secret-file', secret, '--payload', payload, '--at', '1700000000'];
      const r = await readOnly([process.execPath, BIN, ...sign]);
      expect([r.code, r.stderr]).toEqual([
        0,
        `warning: --secret-file ${secret} is readable by others (0644) and on a read-only mount, where chmod cannot change it; make it yours alone where it is made (0600 or 0400; a Kubernetes secret volume: its defaultMode)\n`,
      ]);
      expect(r.stdout).toMatch(/^t=1700000000,v1=[0-9a-f]{64}\n$/);
    });
  },
);
