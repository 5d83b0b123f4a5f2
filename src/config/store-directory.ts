import { chmodSync, type Stats, statSync } from 'node:fs';
import { makeDirectories } from '../system/directories.js';
import { uid } from '../system/processes.js';
import { shellWord } from '../system/shell-words.js';
import {
  octal,
  ownFileProblem,
  ownFileRefusal,
  refuseSharedDirectory,
  statOrUndefined,
} from './ownership.js';
import { mayHaveAcl, onlyMemberIsOwner } from './private-group.js';
import { homeOwner } from './root-left.js';

/**
 * The store's directory, by the rules of ownership.ts: checked before anything is read or written
 * there (checkStore), made and checked again right before a write (ensurePrivateDir), what svc makes
 * given to the user root runs for (heirOf), and what others can only read made private (tighten).
 */

/** The store's rule for its directory (refuseSharedDirectory in the store's words); its stat when it exists. */
const refuseStoreDirectory = (dir: string): Stats | undefined =>
  refuseSharedDirectory(
    dir,
    'the config directory',
    'keep credentials in it',
    'SVC_CONFIG_DIR',
    'config_owner',
  );

/**
 * Checks the store's directory and files before anything is read or written there; tightens a
 * directory or credentials.json of the user's own that others can read (saying so through `warn`).
 */
export function checkStore(
  dir: string,
  files: { config: string; credentials: string },
  warn: ((message: string) => void) | undefined,
): void {
  const stat = refuseStoreDirectory(dir);
  if (stat === undefined) return;
  for (const path of [files.config, files.credentials]) {
    const fileProblem = ownFileProblem(path);
    if (fileProblem !== undefined) throw ownFileRefusal(path, fileProblem);
  }
  tighten(dir, stat, 0o700, warn);
  const credentials = statOrUndefined(statSync, files.credentials);
  if (credentials !== undefined) tighten(files.credentials, credentials, 0o600, warn);
}

/**
 * The lock's directory step (config/lock.ts), right before a write: makes the store directory (0700)
 * when it is missing, then applies the store's rule to it whoever made it, as checkStore does (fix-store18
 * #2): the store's check may have found nothing there minutes before (a login waits for the browser),
 * and another svc, the user or another user (in /tmp) may have made it since. One others can write
 * is refused, never chmod-ed (they may have planted files in it); one others can only read or enter
 * is made 0700, said through `warn`. The parents are checked before anything is made.
 */
export function ensurePrivateDir(dir: string, warn: ((message: string) => void) | undefined): void {
  const posix = process.platform !== 'win32';
  // The parents before anything is made in them; once it is there, one check after says it all.
  if (posix && statOrUndefined(statSync, dir) === undefined) refuseStoreDirectory(dir);
  makeStoreDirectories(dir);
  const stat = posix ? refuseStoreDirectory(dir) : undefined;
  if (stat !== undefined) tighten(dir, stat, 0o700, warn);
}

/**
 * Whom svc gives what it makes in `dir` (fix-store18 #3): run as root in a directory of the owner
 * of $HOME (`sudo -E svc login`, a CI container whose HOME the runner's uid owns), that owner, as
 * root is there for them: a credentials.json left root's, 0600, the user's own runs could not read.
 * Undefined otherwise: what svc makes is its own.
 */
export function heirOf(dir: string): { uid: number; gid: number } | undefined {
  if (uid() !== 0) return undefined;
  const owner = homeOwner();
  if (owner === undefined || owner === 0) return undefined;
  const stat = statOrUndefined(statSync, dir);
  return stat?.uid === owner ? { uid: stat.uid, gid: stat.gid } : undefined;
}

/**
 * `mkdir -p` of the store's directory (or a journal's), 0700, each directory made given to heirOf
 * its parent (makeDirectories).
 */
export function makeStoreDirectories(dir: string): void {
  makeDirectories(dir, 0o700, heirOf);
}

/** Makes `path` private (`to`) when others, or its group, can read or enter it, saying what it was and why. */
function tighten(path: string, stat: Stats, to: number, warn: ((message: string) => void) | undefined): void {
  const current = stat.mode & 0o777;
  if ((current & 0o077) === 0) return;
  // Only the owner is in its group (a user private group): nobody else can read it now, but a user
  // added to the group later could (fix-store18 #1: it was said "readable by others").
  const groupOnly = (current & 0o007) === 0 && onlyMemberIsOwner(stat.gid, stat.uid) && !mayHaveAcl(path);
  const owner = stat.uid === uid() ? 'you' : `its owner (uid ${stat.uid})`;
  const was = groupOnly
    ? `${path} was open to its group (${octal(stat.mode)}), whose only member is ${owner}`
    : `${path} was ${current & 0o044 ? 'readable by' : 'open to'} others (${octal(stat.mode)})`;
  const why = groupOnly ? ' (a user added to the group later would get in)' : '';
  try {
    chmodSync(path, to);
    warn?.(`${was}; svc made it 0${to.toString(8)}, since it holds credentials${why}`);
  } catch (error) {
    warn?.(
      `${was} and svc could not tighten it (${(error as Error).message}); run \`chmod ${to.toString(8)} ${shellWord(path)}\``,
    );
  }
}
