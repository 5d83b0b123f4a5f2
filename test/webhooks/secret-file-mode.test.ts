/**
 * A secret file others can read is used with one warning naming it and `chmod 600`; one others can
 * write is refused (exit 2): whoever can write it chooses the secret (attack25b L4; ssh's rule).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onlyMemberIsOwner } from '../../src/config/private-group.js';
import { runInProcess, useTempDirs } from '../helpers/context.js';
import { needs } from '../helpers/needs.js';
import { useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-secret-mode-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dirs = useTempDirs();
const payload = join(dir, 'body.json');
const T = 1_700_000_000;
const secretFile = (name: string, mode: number) => {
  const path = join(dir, name);
  writeFileSync(path, 'whsec_abcdefghijklmnopqrstuvwxyz012345\n');
  chmodSync(path, mode);
  return path;
};
// Nothing listens here: a request would be exit 1, not the refusal tested.
const svc = (args: string[]) =>
  runInProcess(args, { ...dirs(), NO_COLOR: '1', SVC_BASE_URL: 'http://127.0.0.1:9' }, { now: T * 1000 });
const sign = (path: string) =>
  svc(['webhooks', 'sign', '--secret-file', path, '--payload', payload, '--at', String(T)]);

// Written before the tests, not when the file is collected (test/helpers/temp.ts).
beforeAll(() => {
  writeFileSync(payload, '{"id":"evt_1"}');
});

describe.skipIf(process.platform === 'win32')('a secret file others can reach', () => {
  it('0600: used without a word', async () => {
    const r = await sign(secretFile('own.secret', 0o600));
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/^t=1700000000,v1=[0-9a-f]{64}\n$/);
  });

  it('0644 and 0604: used, with one warning naming the file and chmod 600', async () => {
    const signed = (await sign(secretFile('own2.secret', 0o600))).stdout;
    for (const mode of [0o644, 0o604]) {
      const path = secretFile(`read-${mode.toString(8)}.secret`, mode);
      const r = await sign(path);
      expect(r).toEqual({
        code: 0,
        stdout: signed,
        stderr: `warning: --secret-file ${path} is readable by others (0${mode.toString(8)}); make it yours alone: chmod 600 ${path}\n`,
      });
    }
  });

  it('0666 and 0602: refused (exit 2), nothing signed; the hint says chmod 600 or umask 077 (review25d M4)', async () => {
    // A CI job under umask 0000 (GitLab Runner's docker and kubernetes executors) writes 0666.
    for (const mode of [0o666, 0o602]) {
      const path = secretFile(`write-${mode.toString(8)}.secret`, mode);
      const r = await sign(path);
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr:
          `error: --secret-file ${path} can be written by others (0${mode.toString(8)}): whoever can write it chooses the secret svc uses; svc did not use it; ` +
          `make it yours alone, \`chmod 600 ${path}\` (or write it under \`umask 077\`: a CI job run under umask 0000, GitLab Runner's docker and kubernetes executors' default, writes files 0666), and check that it holds your secret\n`,
      });
    }
  });

  it('--client-secret-file and --refresh-token-file are judged alike', async () => {
    const path = secretFile('client.secret', 0o666);
    const r = await svc([
      'oauth',
      'token',
      '--grant-type',
      'refresh_token',
      '--client-id',
      'cli_1',
      '--client-secret-file',
      path,
      '--refresh-token-stdin',
    ]);
    expect([r.code, r.stderr.split(';')[0]]).toEqual([
      2,
      `error: --client-secret-file ${path} can be written by others (0666): whoever can write it chooses the secret svc uses`,
    ]);
    const refresh = secretFile('refresh.token', 0o644);
    const client = secretFile('client2.secret', 0o600);
    const r2 = await svc([
      'oauth',
      'token',
      '--grant-type',
      'refresh_token',
      '--client-id',
      'cli_1',
      '--client-secret-file',
      client,
      '--refresh-token-file',
      refresh,
    ]);
    expect(r2.stderr).toContain(
      `warning: --refresh-token-file ${refresh} is readable by others (0644); make it yours alone: chmod 600 ${refresh}\n`,
    );
  });
});

/**
 * review25d M3: the rule was a second, weaker copy of the config store's: an ACL naming another
 * writer (the group bits are then its mask) passed as the owner's private group, and a file of
 * another user (who can write it) passed as 0600. Both are the store's rules now (ownership.ts).
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const refused = (path: string, words: string, hint: string) => ({
  code: 2,
  stdout: '',
  stderr: `error: --secret-file ${path} ${words}: whoever can write it chooses the secret svc uses; svc did not use it; ${hint}\n`,
});
needs('setfacl').describe('a secret file another user can write through an ACL', () => {
  // Another user (65534) and a private group of the owner's are root's to arrange.
  it.skipIf(process.platform === 'win32' || !root || !onlyMemberIsOwner(0, 0))(
    "0600 + setfacl -m u:nobody:rw, in the owner's private group: refused (exit 2)",
    async () => {
      const path = secretFile('acl.secret', 0o600);
      execFileSync('setfacl', ['-m', 'u:65534:rw', path]);
      expect(await sign(path)).toEqual(
        refused(
          path,
          'can be written by others (0660)',
          `make it yours alone, \`chmod 600 ${path}\`, and check that it holds your secret`,
        ),
      );
      // chmod 600 empties the ACL's mask: nobody's entry grants nothing, and the file is used.
      chmodSync(path, 0o600);
      expect((await sign(path)).code).toBe(0);
    },
  );
});

describe.skipIf(process.platform === 'win32' || !root)('a secret file of another user', () => {
  it('0600, owned by nobody (who can write it): refused (exit 2)', async () => {
    const path = secretFile('nobody.secret', 0o600);
    chownSync(path, 65534, 0);
    expect(await sign(path)).toEqual(
      refused(
        path,
        'belongs to another user (uid 65534), who can write it',
        'use a file of your own, 0600, and check that it holds your secret',
      ),
    );
  });
});
