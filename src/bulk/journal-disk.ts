import { fchownSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { heirOf } from '../config/store-directory.js';
import { SvcError } from '../errors.js';
import { fileErrorReason } from '../system/input.js';
import { writeAll } from '../system/output-file.js';
import { pathWord } from '../system/shell-words.js';

/**
 * How a journal's lines reach its disk: a seam so a test can play a disk that fills up mid-run (a
 * tmpfs cannot be mounted in a test); svc itself always uses realJournalDisk.
 */
export interface JournalDisk {
  /**
   * Opens `path` to append to (`a`: a journal svc has checked, journal.ts) or to create only if
   * absent (`wx`: a new journal, never through a link; a lock), made 0600 if new (and, run as
   * root in a directory of $HOME's owner, theirs: heirOf); throws the system error.
   */
  open(path: string, flag: 'a' | 'wx'): number;
  /** Writes all of `text` to `fd` (also a file kept beside the journal); throws the system error (a part may have been written). */
  write(fd: number, text: string): void;
  /** Removes a journal whose run is over (absent: done); throws the system error (a read-only disk). */
  remove(path: string): void;
}

export const realJournalDisk: JournalDisk = {
  open: (path, flag) => {
    const fd = openSync(path, flag, 0o600);
    // Made new by root in a directory of $HOME's owner (`sudo -E`, a CI container): given to them,
    // as the config store's files are (heirOf), so their own next run can read and resume it.
    const heir = flag === 'wx' ? heirOf(dirname(path)) : undefined;
    if (heir !== undefined) fchownSync(fd, heir.uid, heir.gid);
    return fd;
  },
  // A plain write(2): once it returns the line is the kernel's, so even SIGKILL cannot lose it.
  // A short write (a disk filling up) is followed by one for the rest, which says why it failed.
  write: (fd, text) => writeAll(fd, text),
  remove: (path) => rmSync(path, { force: true }),
};

/**
 * A journal (or the plan kept beside it) that cannot be written: a full disk, a read-only one.
 * Exit 1, the OS error in words and the file; what was made and what to do is said by the run.
 * One the file's permissions refuse (`denied`), found before anything is sent, is
 * said as a path svc cannot use is instead (operation.ts beforeSending: exit 2).
 */
export class JournalWriteError extends SvcError {
  /** `what` (e.g. `the journal PATH`) could not be written, and the OS's reason in words. */
  static of(what: string, error: unknown): JournalWriteError {
    return new JournalWriteError(what, `${what} could not be written: ${fileErrorReason(error)}`, error);
  }

  private constructor(
    /** The file in words: `the journal PATH`, `the journal's plan PATH`. */
    readonly what: string,
    message: string,
    cause: unknown,
    hint?: string,
  ) {
    super('failure', message, { code: 'journal_unwritable', cause, ...(hint ? { hint } : {}) });
  }

  /** Whether the file's permissions refused it (EACCES, EPERM: a 0400 journal), not its disk. */
  get denied(): boolean {
    const code = (this.cause as NodeJS.ErrnoException | undefined)?.code;
    return code === 'EACCES' || code === 'EPERM';
  }

  /** The same error, what the run made said after it (`; nothing was applied`) and how to go on. */
  said(tail: string, hint: string): JournalWriteError {
    return new JournalWriteError(this.what, `${this.message}${tail}`, this.cause, hint);
  }
}

/**
 * A journal that changed between the run's reading it and its first write (someone else wrote,
 * replaced or made it: svc holds the journal's lock, so it was no svc run of this operation).
 * Nothing is wrong with the disk: exit 2, journal_changed, and nothing is sent (the run checks it
 * before sending: Journal.start). `appeared`: a new run's journal, absent when svc looked.
 */
export class JournalChangedError extends SvcError {
  constructor(
    readonly path: string,
    appeared: boolean,
    tail = '',
  ) {
    super(
      'usage',
      `the journal ${path} ${appeared ? 'was made after svc looked for it (someone else made it)' : 'changed after svc read it (someone else wrote or replaced it)'}, so svc will not record this run in it${tail}`,
      {
        code: 'journal_changed',
        hint: `see what is there now with \`ls -l ${pathWord(path)}\`; run the same command again to read it anew, or pass another --journal`,
      },
    );
    this.#appeared = appeared;
  }

  readonly #appeared: boolean;

  /** The same error, what the run made said after it (`; nothing was granted`). */
  said(tail: string): JournalChangedError {
    return new JournalChangedError(this.path, this.#appeared, tail);
  }
}
