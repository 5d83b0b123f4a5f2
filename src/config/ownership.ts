import { lstatSync, realpathSync, type Stats, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { uid } from '../system/processes.js';
import { shellWord } from '../system/shell-words.js';
import { systemErrorWords } from '../system/system-errors.js';
import { mayHaveAcl, onlyMemberIsOwner } from './private-group.js';
import { homeOwner, realHome, realOrSelf, rootLeft } from './root-left.js';

/**
 * Who may touch the credential store and the state directory's journals, checked as ssh's
 * StrictModes checks ~/.ssh: the directory and its files must be the user's own (or root's, as ssh
 * accepts: root can write anything anyway, and a system-managed link into /nix/store is root's),
 * and the directory writable by nobody else. Another user's directory, a shared one others can
 * write (sticky /tmp, a setgid team directory) is refused (exit 2) and never chmod-ed: another
 * user could have planted `credentials.json` (or a journal) as a link to a file of theirs, and
 * making the directory 0700 would take /tmp from everyone. A file (or the target of a link)
 * another user owns, or a root's file others can write, is refused too: svc would write the
 * credential into it, trust its base_url, or take its rows as done.
 *
 * One rule for what others can write, as ssh's: the directory, config.json, credentials.json (and a
 * journal) that another user can write is refused, the user's own too, and never chmod-ed: they
 * may already have changed it (a base_url pointed at their server, a journal's rows marked done),
 * and a chmod would hide that; the user checks it, then runs the `chmod` the hint names. What
 * others can only read cannot have been changed by them: the directory and credentials.json are
 * made private, with one warning (config.json holds no secret and is left as it is).
 *
 * The directories above are checked too, as ssh does from the file up to the home directory: each
 * must be the user's own or root's and writable by nobody else, except a root-owned sticky one
 * (/tmp: nobody else can rename or remove what is in it); up to and including $HOME when the path
 * is under it, else up to the one under /. So are those above the target of a config.json or
 * credentials.json link (a dotfile manager's): its directory decides who can swap the file.
 */

export const octal = (mode: number): string => `0${(mode & 0o7777).toString(8)}`;

export function statOrUndefined(stat: (path: string) => Stats, path: string): Stats | undefined {
  try {
    return stat(path);
  } catch (error) {
    // Under a file (ENOTDIR) nothing is there either: making it says what is in the way.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw rootLeft(path, error, 'read') ?? new ConfigError(`cannot read ${path}: ${systemErrorWords(error)}`);
  }
}

/** Why svc must not keep credentials in a directory of this stat, or undefined. */
function directoryProblem(stat: Stats, me: number, path: string): string | undefined {
  if (!ownedBy(stat, me)) return `belongs to another user (uid ${stat.uid})`;
  // Judged by who can write it, as any directory: sticky or setgid that others can only read
  // (2755, inherited from a parent) lets no one plant a file, and is tightened like 0755.
  const shared = othersCanWrite(stat, path);
  if (shared && stat.mode & 0o1000) return `is a shared directory (mode ${octal(stat.mode)}, sticky)`;
  if (shared && stat.mode & 0o2000) return `is a shared directory (mode ${octal(stat.mode)}, setgid)`;
  if (shared) return `is writable by others (mode ${octal(stat.mode)})`;
  return undefined;
}

/**
 * Whether anyone but its owner can write `path`: others, or a group of more members than its owner
 * (a user private group under a umask of 002 lets nobody else in: private-group.ts, as Debian's
 * ssh), or anyone a POSIX ACL names (the group bits are then its mask: R17b-7).
 */
export function othersCanWrite(stat: Stats, path: string): boolean {
  return othersMay(stat, path, 0o002);
}

/** Whether anyone but its owner can read `path`: othersCanWrite's rule for the read bits. */
export function othersCanRead(stat: Stats, path: string): boolean {
  return othersMay(stat, path, 0o004);
}

function othersMay(stat: Stats, path: string, bit: 0o002 | 0o004): boolean {
  if (stat.mode & bit) return true;
  if ((stat.mode & (bit << 3)) === 0) return false;
  return !onlyMemberIsOwner(stat.gid, stat.uid) || mayHaveAcl(path);
}

/**
 * The user's own, or root's (as ssh accepts). Run as root, also the owner's of $HOME: root runs for
 * the user whose home it is (`sudo -E`, a CI job container whose HOME the runner's uid owns), as
 * sshd lets root and the user own the files it reads for that user; what a third user owns, or can
 * write, is still refused (review17b R17b-8).
 */
export const ownedBy = (stat: Stats, me: number): boolean =>
  stat.uid === me || stat.uid === 0 || (me === 0 && stat.uid === homeOwner());

/**
 * Refuses a directory svc keeps its files in (`what`: "the config directory", "the journals
 * directory") when it is another user's or others can write it; `variable` is where the user
 * points svc elsewhere. Its stat, when it is a directory, for the caller to go on with.
 */
export function refuseSharedDirectory(
  dir: string,
  what: string,
  purpose: string,
  variable: string,
  code: string,
): Stats | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  const above = unsafeParent(dirname(resolve(dir)));
  if (above !== undefined) {
    throw new ConfigError(
      `${what} ${dir} is in ${above.path}, which ${above.problem}, so svc will not ${purpose}`,
      {
        code,
        hint: `${parentFix(above)}, or point ${variable} at a private directory of your own (\`mkdir -m 700 DIR\`); svc changed nothing`,
      },
    );
  }
  const stat = statOrUndefined(statSync, dir);
  if (stat === undefined || !stat.isDirectory()) return undefined; // svc makes it 0700; a file is refused elsewhere
  const problem = directoryProblem(stat, me, dir);
  if (problem === undefined) return stat;
  throw new ConfigError(`${what} ${dir} ${problem}, so svc will not ${purpose}`, {
    code,
    hint:
      stat.uid === me && !(stat.mode & 0o3000)
        ? `check what is in it, then \`chmod 700 ${shellWord(dir)}\`, or point ${variable} at a private directory of your own; svc changed nothing`
        : `point ${variable} at a private directory of your own (\`mkdir -m 700 DIR\`); svc changed nothing`,
  });
}

/** A directory above svc's files that another user could replace them through, and why. */
export interface UnsafeParent {
  path: string;
  problem: string;
  /** The user's own: `chmod go-w` fixes it (another user's or root's is the user's to leave). */
  own: boolean;
  /** Another user owns it: closing it to others changes nothing (R17b-4). */
  theirs?: boolean;
}

/**
 * The first directory from `dir` up (resolved through links, as ssh's realpath) that another user
 * owns or can write, but for a root-owned sticky one (/tmp); up to $HOME (included) when `dir` is
 * under it, else up to the one under /. A part that does not exist yet is skipped: svc makes it.
 */
export function unsafeParent(dir: string): UnsafeParent | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  let at = resolve(dir);
  while (at !== dirname(at) && statOrUndefined(lstatSync, at) === undefined) at = dirname(at);
  at = realOrSelf(at);
  const home = realHome();
  for (; at !== dirname(at); at = dirname(at)) {
    const stat = statOrUndefined(statSync, at);
    // Only a directory is judged by its mode: a file or device in the way (a device's 0666 is
    // normal) is said by what makes the directory (notADirectory, or mkdir's ENOTDIR).
    if (stat === undefined || !stat.isDirectory()) continue;
    if (!ownedBy(stat, me))
      return { path: at, problem: `belongs to another user (uid ${stat.uid})`, own: false, theirs: true };
    const sticky = (stat.mode & 0o1000) !== 0 && stat.uid === 0;
    if (othersCanWrite(stat, at) && !sticky) {
      return { path: at, problem: `others can write (mode ${octal(stat.mode)})`, own: stat.uid === me };
    }
    if (at === home) break;
  }
  return undefined;
}

/**
 * What to do about an unsafe parent: the chmod of the user's own; another user's (which may be
 * closed to others already) taken over when it is the user's to take; root's that others can write
 * closed by root. The caller adds "or go elsewhere".
 */
export function parentFix(parent: UnsafeParent): string {
  if (parent.own) return `check what is in it, then \`chmod go-w ${shellWord(parent.path)}\``;
  if (parent.theirs) return `\`chown\` it to you if it is yours to take`;
  return `ask its owner to close it to others`;
}

/**
 * Why `path` (config.json or credentials.json) must not be read or replaced: it is, or links to,
 * something another user owns, or a link to nothing (a write would make the file wherever it
 * points), or a link another user made (they choose where it points). Something else that is no
 * file (a directory) is named by the read that fails. Undefined when it is fine or absent. A link
 * of the user's own (or root's) to the user's own file (a dotfile manager's) is fine.
 */
export function ownFileProblem(path: string): FileProblem | undefined {
  const me = uid();
  if (me === undefined) return undefined;
  const link = statOrUndefined(lstatSync, path);
  if (link === undefined) return undefined;
  // Whoever owns the link decides where it points: another user's, planted in a sticky directory,
  // would have svc write the user's own file (review17b R17b-2).
  if (link.isSymbolicLink() && !ownedBy(link, me))
    return { said: `is a symbolic link another user (uid ${link.uid}) made` };
  const target = link.isSymbolicLink() ? statOrUndefined(statSync, path) : link;
  const real = link.isSymbolicLink() ? realTarget(path) : path;
  const what = link.isSymbolicLink() ? `is a symbolic link to ${real}, which` : 'is a file that';
  if (target === undefined) return { said: `is a symbolic link to something that does not exist` };
  if (!ownedBy(target, me)) return { said: `${what} belongs to another user (uid ${target.uid})` };
  if (target.uid !== me && othersCanWrite(target, real)) {
    return { said: `${what} belongs to root and others can write it (mode ${octal(target.mode)})` };
  }
  // The user's own that others can write: they may have changed it; a chmod would hide it.
  if (othersCanWrite(target, real))
    return { said: `${what} others can write (mode ${octal(target.mode)})`, chmod: real };
  if (!link.isSymbolicLink()) return undefined;
  // The target's directories are checked as the store's own are (fix-store18 #4): one another user
  // can write lets them swap the target for a file of theirs under the link.
  const above = unsafeParent(dirname(real));
  if (above === undefined) return undefined;
  return {
    said: `is a symbolic link to ${real}, which is in ${above.path}, which ${above.problem}`,
    parent: above,
  };
}

/**
 * Why a file must not be used (`said`); the file to `chmod 600` once checked, when it is the user's
 * own; the directory above a link's target that is the problem, when that is it.
 */
export interface FileProblem {
  said: string;
  chmod?: string;
  parent?: UnsafeParent;
}

function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return 'something';
  }
}

export function ownFileRefusal(path: string, problem: FileProblem): ConfigError {
  // config.json holds profiles, no credential: logging in again would not bring them back.
  const profiles = basename(path) === 'config.json';
  return new ConfigError(
    `${path} ${problem.said}, so svc will not read or write ${profiles ? 'profiles' : 'credentials'} through it`,
    {
      code: 'config_owner',
      hint:
        problem.chmod !== undefined
          ? `check what is in it (another user could have changed it), then \`chmod 600 ${shellWord(problem.chmod)}\`; svc changed nothing`
          : problem.parent !== undefined
            ? `${parentFix(problem.parent)}, or remove the link (\`rm ${shellWord(path)}\`)${profiles ? '' : ' and log in again'}; svc changed nothing`
            : `remove it (\`rm ${shellWord(path)}\`) if you did not put it there${profiles ? '' : ', then log in again'}; svc changed nothing`,
    },
  );
}
