/**
 * fix-store17 #1/#2: group-writable is writable by nobody else when the group's only member is the
 * owner (a user private group under umask 002: `~/.config` 0775 on Debian, Ubuntu, Fedora), as
 * Debian's ssh judges StrictModes; any other member, or a group not found, is someone else.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mayHaveAcl, onlyMemberIsOwner } from '../../src/config/private-group.js';
import { runInProcess } from '../helpers/context.js';
import { needs } from '../helpers/needs.js';
import { tempDir, useTempDir } from '../helpers/temp.js';

const dir = useTempDir('svc-groups-', () => {
  writeFileSync(
    files.passwd,
    [
      'root:x:0:0:root:/root:/bin/bash',
      'alice:x:1000:1000::/home/alice:/bin/bash',
      'bob:x:1001:1001::/home/bob:/bin/bash',
      'carol:x:1002:1001::/home/carol:/bin/bash',
      'svc:x:1003:1003::/home/svc:/bin/sh',
    ].join('\n'),
  );
  writeFileSync(
    files.group,
    [
      'root:x:0:',
      'alice:x:1000:',
      'bob:x:1001:',
      'svc:x:1003:alice',
      'team:x:2000:alice,bob',
      'empty:x:2001:',
      'solo:x:2002:alice',
    ].join('\n'),
  );
});
const files = { passwd: join(dir, 'passwd'), group: join(dir, 'group') };

describe('a group whose only member is the owner', () => {
  it.each([
    ['alice’s private group', 1000, 1000, true],
    ['a group listing only its owner', 2002, 1000, true],
    ['the private group of someone else', 1000, 1001, false],
    ['a primary group two users share', 1001, 1001, false],
    ['a group that also lists another user', 1003, 1003, false],
    ['a team group', 2000, 1000, false],
    ['a group with no member at all', 2001, 1000, false],
    ['a group not in the file', 4242, 1000, false],
  ])('%s: %s', (_what, gid, owner, only) => {
    expect(onlyMemberIsOwner(gid, owner, files)).toBe(only);
  });

  it('is no one’s when the files cannot be read', () => {
    expect(onlyMemberIsOwner(1000, 1000, { passwd: join(dir, 'none'), group: join(dir, 'none') })).toBe(
      false,
    );
  });
});

/**
 * review17b R17b-7: with a POSIX ACL the group bits of the mode are the ACL's mask, not the group's:
 * another user named in the ACL (`setfacl -m u:65534:rwx`) showed as "group-writable, the owner's
 * private group" and the store was trusted (and chmod-ed, "readable by others"). A file with an ACL
 * gets no private-group exception: refused as writable by others, never chmod-ed.
 */
const root = typeof process.getuid === 'function' && process.getuid() === 0;
const acl = needs('setfacl');
acl.describe('a store another user can write through an ACL', () => {
  // Another user (65534) and a private group of the owner's are root's to arrange.
  describe.skipIf(!root || !onlyMemberIsOwner(0, 0))('as root, in the private group of root', () => {
    it('is refused, exit 2, named writable by others, its mode and ACL left alone', async () => {
      const top = tempDir('svc-acl-');
      try {
        const config = join(top, 'cfg');
        mkdirSync(config, { mode: 0o700 });
        const file = join(config, 'config.json');
        writeFileSync(
          file,
          '{"profiles":{"default":{"base_url":"http://127.0.0.1:9"}},"active_profile":"default"}',
          {
            mode: 0o600,
          },
        );
        execFileSync('setfacl', ['-m', 'u:65534:rwx', config]);
        const env = { SVC_CONFIG_DIR: config, SVC_STATE_DIR: join(top, 's'), SVC_CACHE_DIR: join(top, 'c') };
        const r = await runInProcess(['config', 'get', 'base_url'], env);
        expect(r).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: the config directory ${config} is writable by others (mode 0770), so svc will not keep credentials in it; check what is in it, then \`chmod 700 ${config}\`, or point SVC_CONFIG_DIR at a private directory of your own; svc changed nothing\n`,
        });
        expect((statSync(config).mode & 0o777).toString(8)).toBe('770');
        // review18 R18-1: reached through a link and judged without getfacl (GNU ls alone on PATH),
        // the directory is the link's target: `ls -ld LINK` shows the link's lrwxrwxrwx, no `+`.
        const link = join(top, 'linked-cfg');
        symlinkSync(config, link);
        vi.stubEnv('PATH', lsOnlyPath(top));
        try {
          const l = await runInProcess(['config', 'get', 'base_url'], { ...env, SVC_CONFIG_DIR: link });
          expect(l).toEqual({
            code: 2,
            stdout: '',
            stderr: `error: the config directory ${link} is writable by others (mode 0770), so svc will not keep credentials in it; check what is in it, then \`chmod 700 ${link}\`, or point SVC_CONFIG_DIR at a private directory of your own; svc changed nothing\n`,
          });
        } finally {
          vi.unstubAllEnvs();
        }
        expect((statSync(config).mode & 0o777).toString(8)).toBe('770');
        execFileSync('setfacl', ['-b', config]);
        chmodSync(config, 0o700);
        execFileSync('setfacl', ['-m', 'u:65534:rw', file]);
        const f = await runInProcess(['config', 'get', 'base_url'], env);
        expect(f).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: ${file} is a file that others can write (mode 0660), so svc will not read or write profiles through it; check what is in it (another user could have changed it), then \`chmod 600 ${file}\`; svc changed nothing\n`,
        });
      } finally {
        rmSync(top, { recursive: true, force: true });
      }
    });
  });
});

acl.describe('mayHaveAcl', () => {
  it('is false for a file without an ACL, true with one, by getfacl or else by ls, and true when neither can be run', () => {
    const top = tempDir('svc-acl-');
    try {
      const file = join(top, 'f');
      writeFileSync(file, '');
      expect(mayHaveAcl(file)).toBe(false);
      execFileSync('setfacl', ['-m', `u:${root ? 65534 : process.getuid!()}:rw`, file]);
      expect(mayHaveAcl(file)).toBe(true);
      // Without getfacl (no acl package), GNU ls's `+` tells: a PATH with ls alone.
      vi.stubEnv('PATH', lsOnlyPath(top));
      try {
        expect(mayHaveAcl(file)).toBe(true);
        execFileSync('/usr/bin/env', ['PATH=/usr/bin:/bin', 'setfacl', '-b', file]);
        expect(mayHaveAcl(file)).toBe(false);
        // Neither: an ACL is assumed.
        vi.stubEnv('PATH', join(top, 'no-such-bin'));
        expect(mayHaveAcl(file)).toBe(true);
      } finally {
        vi.unstubAllEnvs();
      }
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});

acl.describe('mayHaveAcl without getfacl (review18 R18-1)', () => {
  it('assumes an ACL when ls is not GNU coreutils’ (BusyBox’s never prints `+`)', () => {
    const top = tempDir('svc-acl-');
    try {
      const file = join(top, 'f');
      writeFileSync(file, '');
      execFileSync('setfacl', ['-m', `u:${root ? 65534 : process.getuid!()}:rw`, file]);
      // BusyBox's ls: no --version, and a mode without `+` whatever the ACL.
      const busybox = join(top, 'busybox-bin');
      mkdirSync(busybox);
      writeFileSync(
        join(busybox, 'ls'),
        [
          '#!/bin/sh',
          'case "$1" in --version) echo "ls: unrecognized option: version" >&2; exit 1;; esac',
          'echo "-rw-rw----    1 root     root             0 Nov 25 17:00 $3"',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      vi.stubEnv('PATH', busybox);
      try {
        expect(mayHaveAcl(file)).toBe(true);
      } finally {
        vi.unstubAllEnvs();
      }
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });

  it('asks GNU ls about a link’s target, not the link', () => {
    const top = tempDir('svc-acl-');
    try {
      const real = join(top, 'real');
      mkdirSync(real, { mode: 0o770 });
      const link = join(top, 'link');
      symlinkSync(real, link);
      execFileSync('setfacl', ['-m', `u:${root ? 65534 : process.getuid!()}:rwx`, real]);
      vi.stubEnv('PATH', lsOnlyPath(top));
      try {
        expect(mayHaveAcl(link)).toBe(true);
        execFileSync('/usr/bin/env', ['PATH=/usr/bin:/bin', 'setfacl', '-b', real]);
        expect(mayHaveAcl(link)).toBe(false);
      } finally {
        vi.unstubAllEnvs();
      }
    } finally {
      rmSync(top, { recursive: true, force: true });
    }
  });
});

/** A directory under `top` holding this machine's ls alone (no getfacl): the PATH of a system without the acl package. */
function lsOnlyPath(top: string): string {
  const lsOnly = join(top, 'ls-only');
  mkdirSync(lsOnly, { recursive: true });
  const ls = join(lsOnly, 'ls');
  try {
    symlinkSync(execFileSync('sh', ['-c', 'command -v ls'], { encoding: 'utf8' }).trim(), ls);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return lsOnly;
}
