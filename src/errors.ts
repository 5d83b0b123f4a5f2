/**
 * Every failure svc reports is an SvcError with a category. The category — and nothing else —
 * decides the exit code, through the one table below (the contract's "Exit codes").
 */

export type ErrorCategory =
  | 'failure'
  | 'usage'
  | 'auth'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'partial'
  | 'signature_mismatch'
  | 'signature_tolerance'
  | 'changes_pending'
  | 'interrupted'
  | 'stdout_closed';

export const EXIT_CODES: Readonly<Record<ErrorCategory, number>> = {
  failure: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  not_found: 5,
  conflict: 6,
  partial: 7,
  signature_mismatch: 8,
  signature_tolerance: 9,
  changes_pending: 10,
  interrupted: 130,
  stdout_closed: 141,
};

/** The category an HTTP status maps to; used for API errors so that status → exit code has one home. */
export function categoryForStatus(status: number): ErrorCategory {
  // 405: the method is not allowed on that path (a write to a read-only surface): the call is wrong.
  // 413, 414, 415: the request is too large or of a type the server does not take: the input is wrong.
  if (
    status === 400 ||
    status === 405 ||
    status === 413 ||
    status === 414 ||
    status === 415 ||
    status === 422
  )
    return 'usage';
  if (status === 401) return 'auth';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  return 'failure';
}

export interface SvcErrorOptions {
  /** A machine-readable code (the API's error code, or one of svc's own). */
  code?: string;
  /** What the user can do about it; rendered after the message. */
  hint?: string;
  cause?: unknown;
  /** The command has already said everything (e.g. a plan and its summary): only the exit code is left. */
  silent?: boolean;
  /**
   * Every fact of the failure, for machines: `--json`/`--ndjson` carry them in the error object's
   * `details` (a file's problems, `[{file, line, message}]`). A command prints them as text itself.
   */
  details?: unknown;
  /** `unknown`: the change this error is about may have been made all the same (SvcError.outcome). */
  outcome?: 'unknown';
}

export class SvcError extends Error {
  readonly category: ErrorCategory;
  readonly code: string | undefined;
  readonly hint: string | undefined;
  readonly silent: boolean;
  readonly details: unknown;
  readonly #outcome: 'unknown' | undefined;

  constructor(category: ErrorCategory, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.category = category;
    this.code = options.code;
    this.hint = options.hint;
    this.silent = options.silent === true;
    this.details = options.details;
    this.#outcome = options.outcome;
  }

  get exitCode(): number {
    return EXIT_CODES[this.category];
  }

  /**
   * `unknown`: a change that may have been made all the same (every answer to it lost or a 5xx; a
   * 2xx svc cannot read): `--json` says so (`"outcome": "unknown"`), as a bulk row does, so that a
   * script can tell it from a failure after which nothing changed; a command's own error about such
   * a change says it with the option. undefined for every other error.
   */
  get outcome(): 'unknown' | undefined {
    return this.#outcome;
  }
}

/** Bad flag, bad argument, unreadable or malformed input. Exit 2. */
export class UsageError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('usage', message, { code: 'usage', ...options });
  }
}

/** A config or credential file that cannot be read or parsed. Exit 2; the file is never reset. */
export class ConfigError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('usage', message, { code: 'config', ...options });
  }
}

/** No credential, or one the server rejected. Exit 3. */
export class AuthError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('auth', message, { code: 'unauthenticated', ...options });
  }
}

/** Something named locally (a profile, a setting) does not exist. Exit 5. */
export class NotFoundError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('not_found', message, { code: 'not_found', ...options });
  }
}

/** A bulk run finished and some items failed. Exit 7. */
export class PartialFailureError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('partial', message, { code: 'partial_failure', ...options });
  }
}

/**
 * `svc plan`: the live state differs from the file. Not a failure: the plan was printed and
 * nothing was changed; exit 10 tells CI that changes are pending. Silent (the plan said it all).
 */
export class ChangesPendingError extends SvcError {
  constructor(message: string) {
    super('changes_pending', message, { code: 'changes_pending', silent: true });
  }
}

/** Ctrl-C. Exit 130. */
export class InterruptedError extends SvcError {
  constructor(message = 'interrupted', options: SvcErrorOptions = {}) {
    super('interrupted', message, { code: 'interrupted', ...options });
  }
}

/**
 * Whether a lookup done only to say more (a count in a prompt, a better hint, the platform's
 * clock) may go on without its answer: the platform refused or could not answer. Ctrl-C still
 * stops the command, and an error that is no SvcError is a bug to surface.
 */
export function lookupMayFail(error: unknown): error is SvcError {
  // By category: a change Ctrl-C cut once it was sent (its outcome unknown) stops the command too.
  return error instanceof SvcError && error.category !== 'interrupted';
}

/** A lookup done only to say more: its answer, or undefined when it may fail and did (lookupMayFail). */
export async function optionalLookup<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
    return undefined;
  }
}

/**
 * A read made after the change was made, only to say more about it (keys it may stop, a name): its
 * answer, or `fallback` when it fails or Ctrl-C cuts it — the change stands and is said (exit 0),
 * never only "interrupted" as if nothing had happened. Unlike optionalLookup, Ctrl-C does not stop
 * the command here: there is nothing left to stop. An error that is no SvcError is a bug to surface.
 */
export async function readAfterChange<T>(read: Promise<T>, fallback: T): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return fallback;
  }
}

/**
 * stdout's reader went away while a command was changing things (`svc roles assign --file F |
 * head -1`): started items finished, nothing new was started. Exit 141, as a shell reports a
 * process killed by SIGPIPE, so the pipeline does not look like a success.
 */
export class StdoutClosedError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('stdout_closed', message, { code: 'stdout_closed', ...options });
  }
}

/**
 * A reader gone after every item of a bulk run was done, none failed (finish.ts onlyOutputCut):
 * still 141, the journal kept so the same command prints the results from it. `done`: the items
 * the run itself did (not skipped), for a verb's words after the run (a replay not followed).
 */
export class OutputCutError extends StdoutClosedError {
  constructor(
    message: string,
    readonly done: number,
    options: SvcErrorOptions = {},
  ) {
    super(message, options);
  }
}

/** What to do about a failed write to stdout (the hint of a StdoutFailedError that made no change). */
export const STDOUT_FAILED_HINT =
  'check where stdout goes (a full disk, a failed device), then run the command again';

/**
 * A write to stdout failed (ENOSPC on a full disk, EIO), not because its reader went away. Exit 1
 * (a failure, not the closed pipe's 141), with a message that says so: after a change, that the
 * change was made; in a bulk run, how far it got and how to resume.
 */
export class StdoutFailedError extends SvcError {
  constructor(message: string, options: SvcErrorOptions = {}) {
    super('failure', message, { code: 'stdout_failed', ...options });
  }
}

/**
 * Thrown when stdout's reader went away (`svc … | head -1`), or a write to it failed (`failure`:
 * ENOSPC, EIO). A closed pipe is not an error for the user when the command only reads (the
 * process ends quietly with exit 0); a failed write always is. src/cli.ts turns either into the
 * error that says what happened (StdoutClosedError, StdoutFailedError).
 */
export class ClosedPipeError extends Error {
  /** The code of a write to stdout that failed (ENOSPC, EIO); undefined when the reader went away. */
  readonly failure: string | undefined;

  constructor(failure?: string) {
    super(failure === undefined ? 'stdout closed' : `cannot write to stdout (${failure})`);
    this.name = 'ClosedPipeError';
    this.failure = failure;
  }
}

/**
 * What a command whose stdout closed (`failure` undefined) or failed says: whether a change was
 * made, and what to do (`onlyCopy`: what was lost with the output, when it was shown only there).
 */
export function stdoutError(
  failure: string | undefined,
  change: string | undefined,
  onlyCopy?: string,
): SvcError {
  const lost = onlyCopy ?? 'its output was lost; check the result before running the command again';
  if (failure === undefined) {
    return new StdoutClosedError(`stdout closed, but the change was made: ${change}`, { hint: lost });
  }
  const what = `cannot write to stdout (${failure})`;
  if (change !== undefined) {
    return new StdoutFailedError(`${what}, but the change was made: ${change}`, { hint: lost });
  }
  return new StdoutFailedError(what, { hint: STDOUT_FAILED_HINT });
}

/**
 * The error of an output stdout did not take, for a command whose outcome `message` says (the
 * tokens are stored, the login is saved): 141 when the reader went away (`failure` undefined), 1
 * when a write failed (a full disk), as a closed stdout's and a failed write's are everywhere.
 */
export function unprintedError(failure: string | undefined, message: string, hint: string): SvcError {
  return failure === undefined
    ? new StdoutClosedError(message, { hint })
    : new StdoutFailedError(message, { hint });
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof ClosedPipeError) return error.failure === undefined ? 0 : EXIT_CODES.failure;
  if (error instanceof SvcError) return error.exitCode;
  return EXIT_CODES.failure;
}

/** A one-line description of anything thrown, for places that must not print a stack. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
