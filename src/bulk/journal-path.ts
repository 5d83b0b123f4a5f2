// Where a journal lives and whether svc may use what is there: the ownership rule of the config
// store (ownership.ts) applied to a journal, the files kept beside it and its directory.
import { fstatSync, realpathSync, rmSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ownFileProblem, parentFix, refuseSharedDirectory, unsafeParent } from '../config/ownership.js';
import { stateDir } from '../config/paths.js';
import { UsageError } from '../errors.js';
import { fileErrorReason } from '../system/input.js';
import { lstatUnlessMissing, statUnlessMissing } from '../system/path-stat.js';
import { uid } from '../system/processes.js';
import { pathWord } from '../system/shell-words.js';

/**
 * A journal decides which rows a run reports done and which idempotency keys it reuses: one that
 * is not the user's (nor root's), or a link to such a file, is never read, whatever its first
 * line claims (ownership.ts, the config store's rule).
 */
export function refuseForeign(path: string, what = `journal ${path}`, purpose = 'resume it'): void {
  const problem = ownFileProblem(path);
  if (problem === undefined) return;
  // Another user's (or root's) name in a sticky directory of another's (/tmp) cannot be removed by
  // the user: the fix is to go elsewhere (review17b R17b-6).
  const me = uid();
  const sticky = statUnlessMissing(dirname(path));
  const theirs =
    lstatUnlessMissing(path)?.uid !== me &&
    sticky !== undefined &&
    (sticky.mode & 0o1000) !== 0 &&
    sticky.uid !== me;
  // A link (another user's, or to what is not the user's) is shown, not followed: `cat` would read
  // whatever it points to (a named pipe hangs, /dev/zero never ends).
  const see = lstatUnlessMissing(path)?.isSymbolicLink()
    ? problem.chmod === undefined
      ? `see where it points with \`ls -l ${pathWord(path)}\``
      : `see what it holds with \`cat ${pathWord(problem.chmod)}\``
    : `see what it holds with \`cat ${pathWord(path)}\``;
  const fix =
    problem.chmod !== undefined
      ? `if it is as your run left it, \`chmod 600 ${pathWord(problem.chmod)}\``
      : problem.parent !== undefined
        ? `${parentFix(problem.parent)}, or remove the link (\`rm ${pathWord(path)}\`)`
        : theirs
          ? "it is another user's: pass another --journal (in a directory only you can write)"
          : `if you did not put it there, remove it (\`rm ${pathWord(path)}\`)`;
  throw new UsageError(`${what} ${problem.said}, so svc will not ${purpose}`, {
    code: 'journal_owner',
    hint: `${see}; ${fix} and run the command again; svc changed nothing`,
  });
}

/**
 * Removes `path` when the user may; one that cannot be removed (another user's, put in a sticky
 * directory such as /tmp since) is theirs and stays.
 */
export function removeIfAllowed(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // theirs to remove
  }
}

/** What is at a journal's path, followed through a link (the user's own: refuseForeign), or undefined. */
export function foundAt(path: string): Stats | undefined {
  try {
    return statUnlessMissing(path);
  } catch {
    return undefined; // unreadable: said when it is read
  }
}

/**
 * A `--journal` path's directory and those above it follow the store's rule for what is above it
 * (ownership.ts, unsafeParent): one another user can write (but root's sticky /tmp) or owns could
 * have a journal swapped in under the run. Refused before anything is made there.
 */
export function refuseUnsafeJournalDirectory(path: string): void {
  const above = unsafeParent(dirname(resolve(path)));
  if (above === undefined) return;
  throw new UsageError(
    `--journal ${path} is in ${above.path}, which ${above.problem}, so svc will not resume or record a run in it`,
    {
      code: 'journal_owner',
      hint: `${parentFix(above)}, or give a --journal in a directory only you can write; svc changed nothing`,
    },
  );
}

/**
 * The state directory's journals directory (`dir`) is refused when another user owns it or others
 * can write it: anyone who can put a file there can write a journal that says a run's rows are done.
 */
export function refuseSharedJournals(dir: string): void {
  refuseSharedDirectory(
    dir,
    'the journals directory',
    'resume or record a run in it',
    'SVC_STATE_DIR',
    'journal_owner',
  );
}

/**
 * Why a journal's path could not be used, in words (fileErrorReason's, not Node's `ENAMETOOLONG:
 * name too long, lstat '…'` with the path a second time): a file in the middle of the path
 * (ENOTDIR) is said as such.
 */
export function journalPathReason(error: unknown): string {
  return (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    ? 'a part of its path is a file, not a directory'
    : fileErrorReason(error);
}

/** What to do about a path journalPathReason words. */
export function journalPathFix(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENAMETOOLONG') return 'give a shorter --journal path';
  if (code === 'ENOTDIR')
    return 'pass --journal PATH in a directory that exists or can be made, or set SVC_STATE_DIR';
  return 'pass --journal PATH in a writable directory, or set SVC_STATE_DIR';
}

/**
 * Why the name `path` is not to be removed at a run's end, or undefined: it is the journal file
 * this run wrote (`made`: its dev+ino), itself, or nothing is there. Never a link (rm removed the
 * link: `--journal /dev/stdout` removed the machine's, review25b H1), never anything but a regular
 * file, never a file put there since. Not a rule of /dev or /proc by name: a journal given there is
 * refused before it is made, and the default one under SVC_STATE_DIR=/dev/shm/… is a regular file
 * this run wrote, which left in place would make the next identical run print the old results and
 * send nothing (review25e M1). Said by the run as a journal it could not remove (leftJournal).
 */
export function notTheJournal(path: string, made: Stats | undefined): string | undefined {
  let at: Stats | undefined;
  try {
    at = lstatUnlessMissing(path);
  } catch (error) {
    return fileErrorReason(error);
  }
  if (at === undefined) return undefined;
  if (at.isSymbolicLink()) return 'it is a symbolic link, and svc removes only the file it wrote';
  if (made === undefined || !at.isFile() || at.dev !== made.dev || at.ino !== made.ino)
    return 'it is no longer the file this run wrote';
  return undefined;
}

/** What a path that is there but not a file or directory is, in words. */
function notAFile(found: Stats): string | undefined {
  if (found.isFIFO()) return 'is a named pipe (FIFO)';
  if (found.isSocket()) return 'is a socket';
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'is a device';
  return undefined;
}

/** Where to keep a journal instead of a path of the system's (/dev, /proc, /sys, svc's own output). */
const ELSEWHERE =
  'give a file path, e.g. --journal ./svc-journal.ndjson, or leave out --journal (svc keeps it in its state directory); svc changed nothing';

/**
 * The system's directory a path is in (`/dev`, `/proc`, `/sys`: sysfs's files stat as regular
 * and root may write many of them), as given or where its links lead, or undefined: a `--journal` there is refused before anything is made or written (review25b H1:
 * `--journal /dev/stdout` with stdout a file was written over the output, then /dev/stdout itself
 * removed; what keeps a removal from such a path is notTheJournal's rule, not this one).
 */
function systemDirectoryOf(path: string): string | undefined {
  const under = (at: string) => /^\/(dev|proc|sys)(\/|$)/.exec(at)?.[0].replace(/\/$/, '');
  const given = under(resolve(path));
  if (given !== undefined) return given;
  try {
    return under(realpathSync(path));
  } catch {
    try {
      return under(join(realpathSync(dirname(resolve(path))), basename(path)));
    } catch {
      return undefined; // nothing there to follow
    }
  }
}

/** Which of svc's standard streams (fd 0, 1, 2) `found` is the same file as (dev+ino), or undefined. */
function standardStream(found: Stats): string | undefined {
  const names = ['standard input', 'standard output', 'standard error'];
  for (const [fd, name] of names.entries()) {
    try {
      const stream = fstatSync(fd);
      if (stream.dev === found.dev && stream.ino === found.ino) return name;
    } catch {
      // closed: no file to be
    }
  }
  return undefined;
}

/**
 * A journal is a file: `--journal DIR`, or `DIR/` for a directory not made yet, is refused with
 * what to give instead, before anything is created; so is a named pipe (reading it waited for ever),
 * a socket or a device (/dev/null was refused with "chmod 600 /dev/null"), and a path that cannot
 * be looked at (too long, under a file, not permitted): one line with the reason, not Node's text.
 * So are `-` (it made a file named `-`), the same file as svc's stdin, stdout or stderr (a link to
 * /proc/self/fd/1 with stdout a file: the journal was written over the output) and a path under
 * /dev, /proc or /sys (review25b H1, L1-L3; /sys: session 26).
 * The state directory's own path (`given` false: no --journal) that cannot be looked at is said
 * where its directory is made (lockJournal), with the variable that moves it.
 */
export function refuseDirectory(path: string, given = true): void {
  if (given && path === '-') {
    throw new UsageError(
      '`-` is not a journal path; the journal is a file svc writes and reads back, not standard input or output',
      { code: 'journal_path', hint: ELSEWHERE },
    );
  }
  let found: Stats | undefined;
  try {
    found = statUnlessMissing(path);
  } catch (error) {
    if (!given) return;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot use --journal ${path}: ${journalPathReason(error)}`, {
      code: 'journal_path',
      hint:
        code === 'ELOOP'
          ? `its links lead back to themselves: remove the loop (\`ls -l ${pathWord(path)}\` shows where it points) or give another --journal; svc changed nothing`
          : `${journalPathFix(error)}; svc changed nothing`,
    });
  }
  const system = given ? systemDirectoryOf(path) : undefined;
  const other = found && notAFile(found);
  if (other !== undefined) {
    throw new UsageError(`--journal ${path} ${other}; the journal is a file`, {
      code: 'journal_path',
      hint:
        system !== undefined || other === 'is a device'
          ? ELSEWHERE
          : `give a file path, e.g. --journal ${pathWord(join(dirname(path), 'svc-journal.ndjson'))}; svc changed nothing`,
    });
  }
  const stream = given && found !== undefined ? standardStream(found) : undefined;
  if (stream !== undefined) {
    throw new UsageError(
      `--journal ${path} is svc's ${stream} (the same file); the journal is a file of its own`,
      {
        code: 'journal_path',
        hint: ELSEWHERE,
      },
    );
  }
  if (system !== undefined) {
    throw new UsageError(
      `--journal ${path} is under ${system}, which is the system's; the journal is a file of its own`,
      {
        code: 'journal_path',
        hint: ELSEWHERE,
      },
    );
  }
  const directory = found?.isDirectory() === true;
  const slash = /[\\/]$/.test(path);
  if (directory || slash) {
    const what = directory ? 'is a directory' : 'names a directory';
    throw new UsageError(`--journal ${path} ${what}; the journal is a file`, {
      hint: `give a file path, e.g. --journal ${pathWord(join(path, 'svc-journal.ndjson'))}`,
    });
  }
}

/**
 * Where a journal lives unless --journal says otherwise: under the user's state directory
 * ($XDG_STATE_HOME/svc/journals), named by the kind of run and a hash of what identifies it
 * (for instance the file's bytes, base URL and tenant), so re-running the same command finds it.
 */
export function defaultJournalPath(
  env: Readonly<Record<string, string | undefined>>,
  kind: string,
  operation: string,
): string {
  return join(stateDir(env), 'journals', `${kind}-${operation.slice(0, 16)}.ndjson`);
}
