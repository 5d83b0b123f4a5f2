import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Whether a group-writable file or directory is as safe as one only its owner can write: its group
 * has exactly one member, its owner (a user private group, as Debian, Ubuntu and Fedora give each
 * user, where a umask of 002 makes `~/.config` 0775). The rule of Debian's OpenSSH for StrictModes
 * (getgrgid, then every user whose primary group it is, then its listed members). Read from
 * /etc/passwd and /etc/group: a group only a directory service knows is not found there, and the
 * file is taken as writable by others (refused, as ssh without the patch does).
 */
export function onlyMemberIsOwner(
  gid: number,
  owner: number,
  files: { passwd: string; group: string } = { passwd: '/etc/passwd', group: '/etc/group' },
): boolean {
  const passwd = entries(files.passwd);
  const group = entries(files.group).find((fields) => Number(fields[2]) === gid);
  if (group === undefined) return false;
  let members = 0;
  for (const user of passwd) {
    if (Number(user[3]) !== gid) continue;
    members++;
    if (Number(user[2]) !== owner) return false;
  }
  const listed = (group[3] ?? '').split(',').filter(Boolean);
  if (listed.length > 0) {
    const name = passwd.find((user) => Number(user[2]) === owner)?.[0];
    if (listed.length > 1 || listed[0] !== name) return false;
    members++;
  }
  return members > 0;
}

/** The colon-separated lines of a passwd or group file; none when it cannot be read. */
function entries(path: string): string[][] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));
}

/**
 * Whether the group bits of `path`'s mode may be a POSIX ACL's mask rather than its group's (review17b
 * R17b-7): with an ACL (`setfacl -m u:bob:rwx`, ls's `+`) they say what the named users and groups
 * may do, so a one-member group tells nothing. Always of what `path` leads to (a linked config
 * directory is judged by its target, not the link's lrwxrwxrwx). Node reads no ACL, so, in order:
 *
 * - `getfacl --skip-base` (it follows links) prints nothing for a file with none;
 * - without getfacl (a system without the acl package, where a umask of 002 still makes `~/.config`
 *   0775), GNU coreutils' ls, which marks a file with an ACL by a `+` after its mode, asked with -L;
 *   only GNU's (`ls --version` names "GNU coreutils"): BusyBox's ls (Alpine, node:alpine images) has
 *   no ACL support and never prints `+`, so its answer tells nothing (review18 R18-1);
 * - otherwise, or when either fails, an ACL is assumed: the exception is not made, as ssh without
 *   Debian's patch makes none.
 */
export function mayHaveAcl(path: string): boolean {
  const run = (command: string, args: string[], operand = true) =>
    execFileSync(command, operand ? [...args, '--', path] : args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
  try {
    return run('getfacl', ['--skip-base', '--absolute-names', '--omit-header']).trim() !== '';
  } catch {
    // not installed, or it failed: ask GNU ls
  }
  try {
    if (!/\(GNU coreutils\)/.test(run('ls', ['--version'], false).split('\n')[0] ?? '')) return true;
    const mode = run('ls', ['-ldL']).split(' ')[0] ?? '';
    // `drwxrwx---` (10 characters): no ACL; `drwxrwx---+`: one; `drwxrwx---.` is an SELinux label only.
    return !/^[-dbcps][-rwxsStT]{9}\.?$/.test(mode);
  } catch {
    return true;
  }
}
