// Past 300 lines: a secret file's life (made, proven, recorded, taken over, written or removed)
// is one rule; splitting its record from its handle would put the take-over check in two files.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SvcError, UsageError } from '../errors.js';
import { type Heir, makeDirectories } from './directories.js';
import { fileErrorReason } from './input.js';
import { writeOwnFile } from './output-file.js';
import { judgeMark, type ProcessMark, thisProcess } from './processes.js';
import { secretProblem, UnusableSecretError } from './secret-form.js';
import { pathWord } from './shell-words.js';

export { secretProblem } from './secret-form.js';

/**
 * What the request a secret file waits for may make, recorded (in `records`, the state
 * directory) while it is in flight: a run killed then (SIGKILL, power loss) leaves the file
 * empty, and the next run names what may have been made, how to find it, and the idempotency
 * key that gets its secret; a re-run with that key fills the empty file, as `svc apply` does
 * with its --secret-dir (crash14 1).
 */
export interface SecretIntent {
  records: string;
  /** The request's idempotency key. */
  key: string;
  /** What may have been made: `an API key of acme-treasury`. */
  made: string;
  /** How to find it and undo it: `see it in: svc tenants api-keys ls acme-treasury (revoke it …)`. */
  find: string;
  /** The same command under the key, which gets the same answer, secret included. */
  rerun: string;
  /** Whom the record and the directories made for it are given to (root for $HOME's owner). */
  heir?: Heir;
}

/** The record: the intent, and the process that waits on it (its mark: is it still running?). */
type Recorded = Omit<SecretIntent, 'records' | 'heir'> & Partial<ProcessMark>;

/**
 * What a change made whose secret a file could not take (a full disk), for the words that say so:
 * `made` (`OAuth client cli_… was created`), `what` its secret is (`OAuth client cli_…'s secret`),
 * and `remedy` once the platform no longer answers with it (`get a new one with: …`).
 */
export interface Made {
  made: string;
  what: string;
  remedy: string;
  /** Until when the re-run gets the same secret (`before …Z (…)`); default `within 24 hours`. */
  until?: string;
  /** What the same re-run makes once the stored answer is gone: `a second OAuth client`, `a new rotation`. */
  anew?: string;
}

/**
 * A secret that arrived (its object was made, or its rotation) but could not be written to its
 * file (a full disk, a failed device): the file is not left behind, holding nothing or part of
 * it. Exit 1. With the Made and the SecretIntent of a single command, it says what exists, that
 * the secret was not saved, and the one way to get it: the same request under the same
 * idempotency key, whose stored answer holds the secret for 24 hours (README, "Idempotency");
 * svc apply says its own words (ascode/creations.ts).
 */
export class SecretNotSavedError extends SvcError {
  constructor(
    readonly path: string,
    readonly reason: string,
    lost?: { made: Made; intent: SecretIntent },
    /** What became of the file when svc did not make it (an earlier run's, taken over): `PATH is left as it was (empty), …`. */
    readonly left?: string,
  ) {
    super(
      'failure',
      `${
        lost
          ? `${lost.made.made}, but ${lost.made.what} could not be written to ${path}: ${reason}; the secret was not saved`
          : `cannot save a secret to ${path}: ${reason}`
      }${left === undefined ? '' : `; ${left}`}`,
      {
        code: 'secret_not_saved',
        ...(lost
          ? {
              hint: `make room (or fix ${path}), then run ${lost.intent.rerun} ${lost.made.until ?? 'within 24 hours'}: the platform answers it with the same secret, and makes nothing new${lost.made.anew ? ` (after that, the same command makes ${lost.made.anew}, and says nothing of it)` : ''}; after that, ${lost.made.remedy}`,
            }
          : {}),
      },
    );
  }
}

export const recordPath = (records: string, path: string) =>
  join(records, `${createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32)}.json`);

function readRecord(records: string, path: string): Recorded | undefined {
  try {
    const record = JSON.parse(readFileSync(recordPath(records, path), 'utf8')) as Recorded & {
      path?: string;
    };
    return record.path === resolve(path) && typeof record.key === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The files this process has open for a secret (a SecretFile not yet written or discarded). */
const waiting = new Set<string>();

/**
 * Whether the run that recorded a file's intent still runs (judgeMark, the rule of the journal's
 * lock too): another process that runs, or, when the mark is this process's, a SecretFile of this
 * process still waiting on that file (two runs in one process). A record of another PID namespace
 * (another container sharing the state directory) is taken as running: its pid says nothing here,
 * and the refusal says what to do if it is not (`where` names the namespace). One of another boot
 * is not: a request does not outlive its machine's boot (a machine of the same name sharing the
 * directory, rerun with the same key, would write the same secret).
 */
function writer(record: Recorded, path: string): { runs: boolean; where: string } {
  const { pid } = record;
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 0) return { runs: false, where: '' };
  const judged = judgeMark({ ...record, pid }, waiting.has(resolve(path)));
  if (judged.runs === undefined)
    return judged.why === 'namespace'
      ? { runs: true, where: ' in another PID namespace (another container)' }
      : { runs: false, where: '' };
  return { runs: judged.runs, where: '' };
}

/** A regular file with nothing in it (one a killed run left before its secret arrived, or a stranger's). */
export function emptyFile(path: string): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size === 0;
  } catch {
    return false;
  }
}

/** The refusal of an empty file there already: what an earlier run may have made, and its key. */
function leftEmpty(path: string, flag: string, intent: SecretIntent): UsageError {
  const record = readRecord(intent.records, path);
  const running = record && writer(record, path);
  // Its writer still running (review16e E8): not "stopped". With this command's key (review17 F6),
  // it is the same request: that run writes the secret; another path gets the same answer.
  if (record && running?.runs) {
    return new UsageError(
      `${flag} ${path} is empty: another svc run (pid ${record.pid}${running.where}) may still be waiting for its secret to write it there (${record.made} may be being made)`,
      {
        hint:
          record.key === intent.key
            ? `wait for it to end: it writes the secret to ${path}; if pid ${record.pid} is no svc run, run the same command with another ${flag} path (the same --idempotency-key gets the same secret)`
            : `choose another path for this command; if pid ${record.pid} is no svc run, an earlier run was stopped: to get its secret into ${path}, re-run with: ${record.rerun} (the platform keeps the answer for 24 hours); or ${record.find}, then remove ${path}`,
      },
    );
  }
  if (record) {
    return new UsageError(
      `${flag} ${path} is empty: an earlier svc run was stopped before its secret arrived, and ${record.made} may have been made`,
      {
        hint: `to get its secret into ${path}, re-run with: ${record.rerun} (the platform keeps the answer for 24 hours); or ${record.find}, then remove ${path}`,
      },
    );
  }
  return new UsageError(
    `${flag} ${path} is empty: if an earlier svc run was stopped before its secret arrived, ${intent.made} may have been made`,
    { hint: `${intent.find}; then remove ${path}, or choose a new path` },
  );
}

/**
 * A file for a secret that is shown only once. It is created (mode 0600, never over an
 * existing file) before the request that returns the secret, so a bad path fails before the
 * secret exists; if the request fails, the empty file is removed again. A process killed with no
 * handler (SIGKILL, power loss) leaves it empty: with a SecretIntent, the next run names it as
 * such (what may have been made, the key to re-run with) and a re-run with that key fills it.
 */
export class SecretFile {
  readonly path: string;
  #handle: FileHandle | undefined;

  #record: string | undefined;
  readonly #intent: SecretIntent | undefined;
  /** Made by this run (removed again when nothing is written), or an earlier run's taken over (left). */
  readonly #made: boolean;

  private constructor(
    path: string,
    handle: FileHandle,
    made: boolean,
    record?: string,
    intent?: SecretIntent,
  ) {
    this.path = path;
    this.#handle = handle;
    this.#made = made;
    this.#record = record;
    this.#intent = intent;
    waiting.add(resolve(path));
  }

  /** The record of a file done with (written, or removed): nothing is in flight for it. */
  #forget(): void {
    waiting.delete(resolve(this.path));
    if (this.#record) rmSync(this.#record, { force: true });
    this.#record = undefined;
  }

  static async create(path: string, flag = '--secret-file', intent?: SecretIntent): Promise<SecretFile> {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.chmod(0o600);
      await provenRoom(handle, path, flag, true);
      return new SecretFile(path, handle, true, intent && record(path, intent), intent);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && intent && emptyFile(path)) {
        // The run that left it, re-run with its key: the answer fills the file it made. Only once
        // that run is gone (review17 F6): while it runs, the file is its own to fill.
        const left = readRecord(intent.records, path);
        if (left?.key === intent.key && !writer(left, path).runs) {
          const handle = await open(path, 'r+');
          await handle.chmod(0o600);
          await provenRoom(handle, path, flag, false);
          const recorded = record(path, intent) ?? recordPath(intent.records, path);
          return new SecretFile(path, handle, false, recorded, intent);
        }
        throw leftEmpty(path, flag, intent);
      }
      if (code === 'EEXIST') {
        // Never "remove the old file first": for a rotation it may be the only copy of the secret
        // still in force, lost if the rotation then fails (attack25a F10).
        throw new UsageError(`${flag} ${path} already exists; svc never overwrites a secret file`, {
          hint: 'choose a new path; keep the old file until the new secret is in use (it may hold the one in force now)',
        });
      }
      throw new UsageError(
        `cannot create ${flag} ${path}: ${fileErrorReason(error, 'its directory does not exist')}`,
      );
    }
  }

  /**
   * Writes the secret. Anything but a usable secret (secretProblem: none, null, blank, masked,
   * padded, …) is refused: the file is removed and the command fails (exit 1), so a secret file
   * never holds `undefined`, `***` or `" "`; with `made`, in words that say what was made and the
   * remedy (UnusableSecretError). The file holds the secret's bytes and nothing else, for
   * every kind (sig13 8): a webhook signing secret is an HMAC key, and the stripe package and
   * Python's `open().read()` take a final newline as part of it; a client secret or API key read
   * that way would send the newline too. svc's own readers still take one final newline
   * (system/secret-text.ts), for files people write.
   * A write that fails (a full disk) throws SecretNotSavedError: with `made` (what the change
   * made) and the file's SecretIntent, in words that name it and the re-run that gets the secret.
   */
  async write(secret: unknown, field = 'secret', made?: Made): Promise<void> {
    const problem = secretProblem(secret);
    if (problem !== undefined) {
      await this.discard();
      if (made)
        throw new UnusableSecretError(
          made.made,
          field,
          problem,
          `nothing was written to ${this.path}`,
          made.remedy,
        );
      throw new SvcError(
        'failure',
        `the server's answer has no usable ${field} (${problem}); nothing was written to ${this.path}`,
        {
          code: 'bad_response',
          hint: 'check whether the change was made (e.g. list it) before trying again',
        },
      );
    }
    const handle = this.#handle;
    if (!handle) throw new Error('secret file already closed');
    this.#handle = undefined;
    try {
      await handle.writeFile(String(secret), 'utf8');
    } catch (error) {
      const intent = this.#intent;
      const lost = made && intent ? { made, intent } : undefined;
      if (this.#made) {
        // A full disk: the file this run made holds nothing (or part of the secret); it goes.
        await handle.close().catch(() => {});
        await unlink(this.path).catch(() => {});
        this.#forget();
        throw new SecretNotSavedError(this.path, fileErrorReason(error), lost);
      }
      // An earlier run's empty file, taken over: never removed. It is left as that run left it
      // (what part of the secret got in taken out), with its record, for the re-run to fill.
      const emptied = await handle.truncate(0).then(
        () => undefined,
        (failed: unknown) => fileErrorReason(failed),
      );
      await handle.close().catch(() => {});
      waiting.delete(resolve(this.path));
      throw new SecretNotSavedError(
        this.path,
        fileErrorReason(error),
        lost,
        emptied === undefined
          ? `${this.path} is left as it was (empty), for the re-run with the same key to fill`
          : `${this.path} could not be emptied again (${emptied}) and may hold part of the secret: empty it (\`: > ${pathWord(this.path)}\`) before the re-run with the same key`,
      );
    }
    await handle.close();
    this.#forget();
  }

  /**
   * Nothing was written (the request failed): a file this run made is removed, with its record;
   * an earlier run's empty file it took over is left as it was, and its record with it (review17
   * F6), so the next run still names the key whose re-run fills it.
   */
  async discard(): Promise<void> {
    const handle = this.#handle;
    if (!handle) return;
    this.#handle = undefined;
    await handle.close().catch(() => {});
    if (this.#made) {
      await unlink(this.path).catch(() => {});
      this.#forget();
    } else {
      waiting.delete(resolve(this.path));
    }
  }
}

/** Room for any secret the platform returns (a few hundred bytes), and more: one disk block. */
const ROOM = 4096;

/**
 * Proves, before the request that returns the secret, that the disk has room for it: writes a
 * block of zeros into the new file, syncs, and empties it again. A disk already full (the common
 * case) is then refused before anything is made (exit 2), not after; a disk that fills up in
 * between still fails the write after, said by SecretNotSavedError. The file is removed when
 * svc made it (`made`), and left as it was (empty) otherwise.
 */
async function provenRoom(handle: FileHandle, path: string, flag: string, made: boolean): Promise<void> {
  try {
    // Every byte: a write that took part of the block (a disk filling up) is followed by one for
    // the rest, which fails ENOSPC; its count ignored, a short write passed as room proved.
    const zeros = Buffer.alloc(ROOM);
    for (let at = 0; at < ROOM; ) at += (await handle.write(zeros, at, ROOM - at, at)).bytesWritten;
    await handle.sync();
    await handle.truncate(0);
  } catch (error) {
    await handle.truncate(0).catch(() => {});
    await handle.close().catch(() => {});
    if (made) await unlink(path).catch(() => {});
    throw new UsageError(`cannot write to ${flag} ${path}: ${fileErrorReason(error)}`, {
      hint: 'make room, or choose a path on another disk; nothing was sent',
    });
  }
}

/** Records what the file waits for; best effort (a record not written only makes a message vaguer). */
function record(path: string, intent: SecretIntent): string | undefined {
  const { records, heir, ...rest } = intent;
  const file = recordPath(records, path);
  try {
    makeDirectories(records, 0o700, heir);
    writeOwnFile(
      file,
      `${JSON.stringify({ path: resolve(path), ...rest, ...thisProcess() })}\n`,
      0o600,
      heir?.(records),
    );
    return file;
  } catch {
    return undefined;
  }
}
