/**
 * A file a command writes for the user at a path the user names (`svc export -o`, `svc plan
 * --out`): whole or not at all, never through a link, never into another user's pipe or device,
 * svc's own stdout written through its descriptor; and what a failed write is (a usage error, a
 * failure, stdout's closed pipe). The writes themselves (replaceWhole, writeAll) are output-file.ts's.
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { ClosedPipeError, SvcError, UsageError } from '../errors.js';
import { fileErrorReason } from './input.js';
import { replaceWhole, sleepSync, writeAll } from './output-file.js';
import { statUnlessMissing } from './path-stat.js';
import { uid } from './processes.js';

function streamWord(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}

/** A path that names a descriptor of this process: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. */
const NAMED_DESCRIPTOR = new RegExp(
  `^/(?:dev/(stdout|stderr)|dev/fd/(\\d+)|proc/(?:self|${process.pid})/fd/(\\d+))$`,
);

function sameFile(fd: number, stat: Stats): boolean {
  try {
    const open = fstatSync(fd);
    return open.dev === stat.dev && open.ino === stat.ino;
  } catch {
    return false; // not open
  }
}

/**
 * The descriptor of svc's own that `path` is: one it names (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N, when open), or svc's stdout or stderr when `path` is the same pipe, socket or
 * device. Handed to svc by whoever started it (a pipe root made for a container or a cron job,
 * `sudo svc … | jq`, journald's socket), not found at a path: svc writes to it whoever owns it, as
 * it writes its stdout (review17b R17b-5), through the descriptor itself (a socket cannot be
 * opened by name; a file given as stdout keeps its offset and `>>`).
 */
export function ownDescriptor(path: string): number | undefined {
  const named = NAMED_DESCRIPTOR.exec(resolve(path));
  if (named !== null) {
    const fd = named[1] === 'stdout' ? 1 : named[1] === 'stderr' ? 2 : Number(named[2] ?? named[3]);
    const stat = statUnlessMissing(path);
    return stat !== undefined && sameFile(fd, stat) ? fd : undefined;
  }
  const stat = statUnlessMissing(path);
  if (stat === undefined || stat.isFile() || stat.isDirectory()) return undefined;
  return [1, 2].find((fd) => sameFile(fd, stat));
}

/** Why svc must not write into `stat` (no regular file), or undefined when it is the user's own. */
function streamProblem(stat: Stats): string | undefined {
  const me = uid();
  if (me === undefined || stat.uid === me || (stat.uid === 0 && stat.isCharacterDevice())) return undefined;
  return `is ${streamWord(stat)} that belongs to another user (uid ${stat.uid})`;
}

const refusedStream = (flag: string, path: string, problem: string) =>
  new UsageError(`${flag} ${path} ${problem}, so svc will not write into it`, {
    code: 'output_owner',
    hint: 'give a path of your own (a file that is not there yet, in a directory only you can write); nothing was written',
  });

/**
 * Whether `path` is something that is no regular file (`/dev/null`, `/dev/stdout`, the user's own
 * named pipe), which svc writes into as it is: renamed over, it would be replaced by a regular
 * file (as root, /dev/null itself). Such a thing that another user owns (their named pipe in a
 * shared directory, their terminal) is refused before anything is written: what svc writes would
 * go to them. A root's device (/dev/null) is the system's, not another user's; svc's own
 * descriptor (ownDescriptor: `-o /dev/stdout`) is svc's whoever made it.
 */
export function writesInto(path: string, flag: string): boolean {
  return lookedAt(flag, path, () => {
    if (ownDescriptor(path) !== undefined) return true;
    const existing = statUnlessMissing(path);
    if (!existing || existing.isFile() || existing.isDirectory()) return false;
    const problem = streamProblem(existing);
    if (problem !== undefined) throw refusedStream(flag, path, problem);
    return true;
  });
}

/**
 * What is at an output path, looked at before writing: a path under a file (ENOTDIR) or one svc
 * may not look into (EACCES) is the path given, said with its flag (exit 2: review21c F6), never
 * the system's refusal of a stat.
 */
function lookedAt<T>(flag: string, path: string, look: () => T): T {
  try {
    return look();
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw writeFailed(flag, path, error, 'its directory does not exist');
  }
}

/**
 * A file a command writes for the user (`svc export -o`, `svc plan --out`): whole or not at all —
 * a temporary file beside it, renamed over it (replaceWhole) — so an interrupted write never
 * leaves half a document behind, and a link or another user's file there is replaced, never
 * written through. `flag` names the option in the error. The file is created 0600 whatever the
 * umask, whether or not svc saw a secret in it (a webhook URL's `?token=`): a URL secret under a
 * name and of a shape no rule knows is still one, and an access file another user could write
 * (0666 under umask 000) could be given grants before `svc apply` reads it (attack25b L5).
 * A path that is no regular file is written into as it is, and only when it is the user's own
 * (writesInto; checked again on what was opened). Returns whether svc made the file (false: it
 * wrote into a pipe or a device, whose mode is not svc's). `pause` blocks between polls for a
 * named pipe's reader (the run's clock: ctx.clock.sleepSync).
 */
export function writeFileWhole(
  path: string,
  text: string,
  flag: string,
  pause: (ms: number) => void = sleepSync,
): boolean {
  const descriptor = lookedAt(flag, path, () => ownDescriptor(path));
  const into = descriptor === undefined && writesInto(path, flag);
  if (descriptor !== undefined) {
    try {
      writeAll(descriptor, text);
    } catch (error) {
      throw writeFailed(flag, path, error, 'it is closed', descriptor === 1);
    }
    return false;
  }
  if (into) {
    let fd: number | undefined;
    try {
      // Never created here (no O_CREAT): what is opened is what was checked, checked again.
      fd = openForReader(path, pause);
      const opened = fstatSync(fd);
      const problem = opened.isFile() ? 'was replaced by a regular file' : streamProblem(opened);
      if (problem !== undefined) throw refusedStream(flag, path, problem);
      writeAll(fd, text);
      return false;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENXIO')
        throw new UsageError(
          `cannot write ${flag} ${path}: no process opened this named pipe for reading within 10 s`,
          {
            hint: 'start what reads it first (or give a regular file), then run the command again',
          },
        );
      throw writeFailed(flag, path, error, 'it cannot be opened');
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  try {
    replaceWhole(path, [text], { mode: 0o600 });
    return true;
  } catch (error) {
    throw writeFailed(flag, path, error, 'its directory does not exist');
  }
}

/** How long a named pipe's reader is waited for: one started beside svc (`gzip < p & svc … -o p`) has opened it by then. */
const READER_WAIT_MS = 10_000;

/**
 * Opens what `path` is for writing, never created (no O_CREAT: what is opened is what was
 * checked). O_NONBLOCK, so a named pipe nobody reads is not waited on forever, past Ctrl-C and
 * SIGTERM (review21d R21d-3): its reader is waited for READER_WAIT_MS (ENXIO until it opens),
 * then refused; writeAll waits out a full pipe (EAGAIN).
 */
function openForReader(path: string, pause: (ms: number) => void): number {
  const flags = constants.O_WRONLY | (constants.O_NOCTTY ?? 0) | constants.O_NONBLOCK;
  for (let waited = 0; ; waited += 50) {
    try {
      return openSync(path, flags);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO' || waited >= READER_WAIT_MS) throw error;
      pause(50);
    }
  }
}

/** Errors of a write under way, not of the path asked for: the place it goes failed or was full. */
const WRITE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO']);

/** What to do about an output file whose write failed (as STDOUT_FAILED_HINT says of stdout). */
const OUTPUT_FAILED_HINT = 'check where it goes (a full disk, a failed device), then run the command again';

/**
 * An output file given by path whose reader closed it before all was written (a named pipe, a
 * process substitution): a failure of that file, named (review21b R21b-3), never stdout's.
 */
export class OutputReaderGoneError extends SvcError {
  constructor(
    readonly flag: string,
    readonly path: string,
  ) {
    super(
      'failure',
      `cannot write ${flag} ${path}: its reader closed the pipe before all of it was written`,
      {
        code: 'output_failed',
        hint: 'keep the reader of that pipe open until svc ends (or give a regular file), then run the command again',
      },
    );
  }
}

/**
 * The error of a write to an output file that failed (attack21b F1, F2): its reader gone (EPIPE)
 * is stdout's closed pipe only when the file is this process's stdout (`-o /dev/stdout | head`):
 * src/cli.ts ends a listing quietly and a command with a declared outcome (a plan's changes
 * pending) with it; of any other pipe (a named pipe) the file is named (OutputReaderGoneError);
 * a full disk or a failed device is a failure (exit 1), as stdout's is; anything else (no such
 * directory, no permission, another user's file) is the path given, a usage error (exit 2).
 */
function writeFailed(flag: string, path: string, error: unknown, missing: string, stdout = false): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EPIPE') return stdout ? new ClosedPipeError() : new OutputReaderGoneError(flag, path);
  const message = `cannot write ${flag} ${path}: ${fileErrorReason(error, missing)}`;
  if (code !== undefined && WRITE_FAILURES.has(code))
    return new SvcError('failure', message, { code: 'output_failed', hint: OUTPUT_FAILED_HINT });
  return new UsageError(message);
}
