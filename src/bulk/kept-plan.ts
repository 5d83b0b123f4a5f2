import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { heirOf, makeStoreDirectories } from '../config/store-directory.js';
import { UsageError } from '../errors.js';
import { fileErrorReason } from '../system/input.js';
import { replaceWhole } from '../system/output-file.js';
import { pathWord } from '../system/shell-words.js';
import { type JournalDisk, JournalWriteError } from './journal-disk.js';
import { refuseForeign, removeIfAllowed } from './journal-path.js';

/**
 * The files a run keeps beside its journal (`JOURNAL` + a suffix: the plan an apply works from,
 * `.plan.json`), and the sha256 of each, which the journal records (Journal.keepBeside) so that a
 * resumed run takes back only what svc wrote for it.
 */
export class KeptPlans {
  /** The sha256 of each file kept beside the journal, by its suffix. */
  readonly #digests = new Map<string, string>();

  constructor(
    private readonly journal: string,
    private readonly disk: JournalDisk,
  ) {}

  get size(): number {
    return this.#digests.size;
  }

  /** The digests as the journal writes them (`kept` of its first line). */
  digests(): Record<string, string> {
    return Object.fromEntries(this.#digests);
  }

  /** Notes the digests of a `kept` object of the journal (keep's), ignoring anything else. */
  note(kept: unknown): void {
    if (kept === null || typeof kept !== 'object') return;
    for (const [suffix, digest] of Object.entries(kept))
      if (typeof digest === 'string') this.#digests.set(suffix, digest);
  }

  /**
   * Writes a file beside the journal (`path` + `suffix`, 0600), in parts (`chunks`), before
   * anything is sent: e.g. the plan an apply works from. Written as the config store writes
   * (replaceWhole: a new file renamed into place, never through a link), after the same ownership
   * check as the journal's own (another user's file there is refused, journal_owner). Returns its
   * sha256, for the journal to record (Journal.keepBeside), so that read() takes back only what
   * svc wrote. Throws JournalWriteError (or the refusal).
   */
  keep(suffix: string, chunks: Iterable<string>): string {
    const path = `${this.journal}${suffix}`;
    refuseForeign(path, `the plan kept beside journal ${this.journal}, ${path},`, 'write or read it');
    let digest: string;
    try {
      makeStoreDirectories(dirname(path));
      const owner = heirOf(dirname(path));
      digest = replaceWhole(path, chunks, {
        mode: 0o600,
        ...(owner === undefined ? {} : { owner }),
        write: (fd, text) => this.disk.write(fd, text),
      });
    } catch (error) {
      // Nothing is sent after this: an earlier run's file would only mislead a re-run. One that
      // cannot be removed (another user's, put there since) must not hide why (review17b R17b-1).
      removeIfAllowed(path); // one left is refused by readBeside
      throw JournalWriteError.of(`the journal's plan ${path}`, error);
    }
    this.#digests.set(suffix, digest);
    return digest;
  }

  /**
   * What keep() wrote beside the journal for this run (an earlier process's, read back), or
   * undefined when there is none. Refused (exit 2, nothing sent) when another user owns it or it
   * is not byte for byte what svc wrote for this run (the journal records its sha256): anyone who
   * can write the journal's directory could otherwise have svc apply a plan of theirs with the
   * user's credential, its digest computed anew.
   */
  read(suffix: string): Buffer | undefined {
    const path = `${this.journal}${suffix}`;
    const what = `the plan kept beside journal ${this.journal}, ${path},`;
    refuseForeign(path, what, 'apply it');
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new UsageError(`cannot read ${what.slice(0, -1)}: ${fileErrorReason(error)}`);
    }
    const recorded = this.#digests.get(suffix);
    if (recorded !== undefined && createHash('sha256').update(bytes).digest('hex') === recorded) return bytes;
    const why =
      recorded === undefined
        ? 'is not recorded in the journal (an earlier svc, or not svc, put it there)'
        : 'is not what svc wrote there for this run';
    throw new UsageError(`${what} ${why}, so svc will not apply it`, {
      code: 'journal_plan_changed',
      hint: `if you did not change it, someone else did; to plan anew from your file, remove both (\`rm ${pathWord(this.journal)} ${pathWord(path)}\`) and run the command again; nothing was applied`,
    });
  }

  /**
   * Removes the files kept beside the journal for this run (keep(), or read back by
   * read()): after a run with nothing left to resume. A file there that svc did not write
   * (refused) is left alone; one that cannot be removed stays (it is the user's own).
   */
  remove(): void {
    for (const suffix of this.#digests.keys()) {
      removeIfAllowed(`${this.journal}${suffix}`);
    }
  }
}
