// What svc says of a secret file others can read or write (attack25b L4), as ssh says of a key.
import { accessSync, constants, type Stats } from 'node:fs';
import { othersCanRead, othersCanWrite, ownedBy } from '../config/ownership.js';
import { UsageError } from '../errors.js';
import { uid } from './processes.js';
import { pathWord } from './shell-words.js';

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/**
 * A secret file (`--secret-file`, `--client-secret-file`, `--refresh-token-file`) as svc opened
 * it, judged as ssh judges a private key, by the config store's own rules (config/ownership.ts):
 * - another user's (not the user's own, nor root's: ownedBy), or writable by others (othersCanWrite:
 *   the mode, a group of more members than its owner, an ACL naming anyone else: review25d M3):
 *   refused (exit 2) before it is used: whoever can write it chooses the secret svc signs,
 *   verifies or logs in with, so a "valid" from `webhooks verify` or a login as the client would
 *   not be true. A CI job run under umask 0000 (GitLab Runner's docker and kubernetes executors)
 *   writes its files 0666 and is refused too (review25d M4): the hint says `chmod 600 F`, or
 *   `umask 077` before writing it;
 * - readable by others (othersCanRead): used, with one warning line naming the file and
 *   `chmod 600` (svc makes every secret file it writes 0600): refusing would stop every CI job
 *   whose secret is mounted 0644 (a Kubernetes secret volume's default), which a warning does not.
 *   On a read-only mount (onReadOnlyMount), where chmod fails, the line says to make it so where
 *   it is made instead.
 * Only regular files (a FIFO, `<(pass show …)`, or a device is the user's own pipe); not on
 * Windows, whose modes say nothing of this.
 */
export function judgeSecretFile(flag: string, path: string, info: Stats, warn: (line: string) => void): void {
  if (process.platform === 'win32' || !info.isFile()) return;
  const me = uid();
  const fix = `chmod 600 ${pathWord(path)}`;
  if (me !== undefined && !ownedBy(info, me)) {
    throw new UsageError(
      `${flag} ${path} belongs to another user (uid ${info.uid}), who can write it: whoever can write it chooses the secret svc uses; svc did not use it`,
      {
        code: 'secret_file_exposed',
        hint: 'use a file of your own, 0600, and check that it holds your secret',
      },
    );
  }
  if (othersCanWrite(info, path)) {
    throw new UsageError(
      `${flag} ${path} can be written by others (${octal(info.mode)}): whoever can write it chooses the secret svc uses; svc did not use it`,
      {
        code: 'secret_file_exposed',
        hint:
          info.mode & 0o002
            ? `make it yours alone, \`${fix}\` (or write it under \`umask 077\`: a CI job run under umask 0000, GitLab Runner's docker and kubernetes executors' default, writes files 0666), and check that it holds your secret`
            : `make it yours alone, \`${fix}\`, and check that it holds your secret`,
      },
    );
  }
  if (!othersCanRead(info, path)) return;
  warn(
    onReadOnlyMount(path)
      ? `${flag} ${path} is readable by others (${octal(info.mode)}) and on a read-only mount, where chmod cannot change it; make it yours alone where it is made (0600 or 0400; a Kubernetes secret volume: its defaultMode)`
      : `${flag} ${path} is readable by others (${octal(info.mode)}); make it yours alone: ${fix}`,
  );
}

/**
 * Whether `path` is on a read-only mount, where `chmod 600` fails (EROFS): a Kubernetes secret
 * volume, root's files 0644 by default. access(W_OK) answers EROFS only once the caller may
 * otherwise write the file (root, or its owner with u+w: the mount is asked last), so false is
 * "not known to be read-only": a file of 0444 of the user's own on such a mount still gets
 * `chmod 600`, which fails there with the system's word for why.
 */
function onReadOnlyMount(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}
