import { describeError, SvcError } from '../errors.js';
import {
  ApiError,
  answerOf,
  ConnectionError,
  doubtAfterLostAnswer,
  OutcomeUnknownError,
  refusalAfterLostAnswer,
} from '../http/errors.js';
import { AcceptedUnreadError, doneUnread, IdempotencyInProgressError } from '../platform/errors.js';
import type { BulkResult } from './item.js';

/**
 * How a bulk run judges an item's error (./runner.ts): whether the server's answer is definite,
 * whether the change may have been made all the same, whether no later item can succeed, and
 * what the item's result line says of it.
 */

/** A server's answer about this attempt that will not change if the same request is sent again. */
export function definiteRefusal(error: unknown): boolean {
  if (error instanceof UndoneSinceError) return true;
  return (
    error instanceof ApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408 &&
    error.status !== 429 &&
    !(error instanceof IdempotencyInProgressError)
  );
}

/** A failed item's `error`, as its result line says it. */
export function failure(error: unknown): NonNullable<BulkResult['error']> {
  const answer = answerOf(error);
  if (answer) {
    return {
      code: answer.code ?? 'api_error',
      // An unknown outcome's says so (`…, so the outcome is unknown: …`); a refusal to the retry of
      // an attempt whose answer was lost, that the attempt may have acted (the single verb's words).
      message: refusalAfterLostAnswer(error) ?? (error as SvcError).message,
      status: answer.status,
      ...(answer.requestId ? { request_id: answer.requestId } : {}),
      ...(doubtAfterLostAnswer(error) !== undefined ? { lost_answer: doubtAfterLostAnswer(error) } : {}),
      // Where to look for the right id, as the single verb's error says it (`svc users ls`).
      ...(answer.hint ? { hint: answer.hint } : {}),
    };
  }
  if (error instanceof AcceptedUnreadError && error.against !== undefined) {
    // Its answer says it was not done, in words svc cannot take as the platform's (review19b F7):
    // never "most likely made".
    return {
      code: error.code ?? 'invalid_response',
      message: `the server accepted the request (HTTP ${error.status}) but ${error.message}, so the outcome is unknown: check on the platform whether it was made`,
      status: error.status,
    };
  }
  if (error instanceof AcceptedUnreadError) {
    return {
      code: error.code ?? 'invalid_response',
      message: `the server accepted the change (HTTP ${error.status}) but svc cannot read what it made: ${error.message}, so the outcome is unknown: the platform most likely made this change`,
      status: error.status,
    };
  }
  // What to do about this item (a change not so now, a check that could not be made): the row's
  // detail says it after the message.
  if (error instanceof ItemError)
    return {
      code: error.code ?? error.category,
      message: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
    };
  if (error instanceof SvcError) return { code: error.code ?? error.category, message: error.message };
  return { code: 'unexpected', message: describeError(error) };
}

/**
 * The item's change may have been made: no answer to it said what became of it (no answer, a
 * dropped connection after sending, a 5xx: the HTTP client's rule, answerLeavesOutcomeUnknown; a
 * request of its key the server was still processing when svc stopped waiting), or the server
 * accepted it (2xx) with an answer svc cannot read what was made from (the platform boundary's
 * rule, AcceptedUnreadError): never a failure, whose hint would send the user to fix the file.
 */
export function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof OutcomeUnknownError ||
    error instanceof NotShownYetError ||
    error instanceof CheckStoppedError ||
    (error instanceof AcceptedUnreadError && !doneUnread(error))
  );
}

/**
 * No later item can succeed either: the credential is gone, rejected, or someone else's (exit 3);
 * the caller's roles no longer allow the operation (callerRefused, exit 4); or the platform's rate
 * limit asks for a longer wait than svc makes (waitBeyondCap): every row sent before it ends would
 * be refused the same.
 */
export function haltsTheRun(error: unknown): boolean {
  return (
    (error instanceof SvcError && error.category === 'auth') ||
    callerRefused(error) ||
    connectionRefused(error) ||
    waitsBeyondCap(error) !== undefined
  );
}

/**
 * The platform (or the proxy to it) refused the connection, after the HTTP client's retries: it is
 * not listening, so nothing reached it, and every later item would be refused alike (attack24b F4:
 * a restarted platform, and svc went on starting rows, each refused after its retries). The run
 * stops; the rows not started are left to resume.
 */
export function connectionRefused(error: unknown): boolean {
  if (!(error instanceof ConnectionError) || error.mayHaveArrived) return false;
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    if ((cause as { code?: unknown }).code === 'ECONNREFUSED') return true;
    cause = cause.cause;
  }
  return false;
}

/**
 * A refusal of the caller, not of the item: 403 `insufficient_role`, the platform's answer when the
 * caller's live roles lack the operation's own permission (docs/openapi.json x-error-codes; an
 * item's own reach, a role holding more than the caller does, is `insufficient_permission`). A
 * role revoked from the caller during a run (attack24b F3) made every later row 403 and svc sent
 * them all; now the run stops, the rows not started left to resume once the caller may again.
 */
export function callerRefused(error: unknown): boolean {
  return error instanceof ApiError && error.status === 403 && error.code === 'insufficient_role';
}

/** The wait a 429 asks for when it is longer than svc makes by itself (ApiError.waitBeyondCap). */
export function waitsBeyondCap(error: unknown): ApiError['waitBeyondCap'] {
  return error instanceof ApiError && error.status === 429 ? error.waitBeyondCap : undefined;
}

/**
 * An item's error whose hint is about that item (what to do about this row or step), so its result
 * line carries it (failure); other errors' hints are about the whole run or command, said apart.
 */
export class ItemError extends SvcError {}

/**
 * An item the platform answered from its record of an earlier request of its key (a resumed run's
 * row, or a retry's after a lost answer), whose change is not so now: a revocation whose user holds
 * the role again, a grant revoked since (review19d F5). The stored answer is true of then, and the
 * same key is answered with it again, so the item is failed as refused (journaled as an attempt:
 * the same command sends a new key, which makes the change anew), never counted done. Worded by
 * storedBy.
 */
export class UndoneSinceError extends ItemError {
  constructor(message: string, hint: string) {
    super('conflict', message, { code: 'changed_since', hint });
  }
}

/**
 * An item the platform answered from its record whose change the reads of what holds now do not
 * show yet, after reading again through a lag (src/system/lagging-reads.ts): a grant not listed, a
 * revocation whose very assignment is still listed held (review20 F6). A server's reads may lag
 * behind its writes, so this is neither done nor undone since: the outcome is unknown (not
 * journaled; the same command sends the same key, is answered the same, and reads again).
 */
export class NotShownYetError extends ItemError {
  constructor(message: string, hint: string) {
    super('failure', message, { code: 'not_shown_yet', hint });
  }
}

/**
 * An item the platform answered from its record (its change made), whose read of what holds now a
 * stop left unsent (nothing new is sent after a stop, src/http/client.ts): made, whether it is
 * still so not read. Like NotShownYetError, neither done nor undone since: the outcome is unknown,
 * never "failed" (review22a F3); not journaled, so the resumed run asks again and reads then.
 */
export class CheckStoppedError extends ItemError {
  constructor(message: string, hint: string) {
    super('interrupted', message, { code: 'interrupted', hint });
  }
}

/**
 * Who made the change a stored answer (`Idempotent-Replayed`) tells of, as far as svc knows: in a
 * resumed run, the run it resumes (or, after a lost answer, this run's lost attempt); in a new
 * run, the attempt whose answer was lost, or a request of the key svc did not make in this run.
 */
export function storedBy(resumed: boolean, afterLostAnswer: boolean): string {
  if (resumed)
    return `by the earlier run this one resumes${afterLostAnswer ? ' (or by an attempt of this run whose answer was lost)' : ''}`;
  return afterLostAnswer
    ? 'by an attempt of this run whose answer was lost'
    : 'by an earlier request of its idempotency key';
}

/**
 * A dry run's check the server answered in words svc does not know (an assignment status, review19
 * F3): the item could not be checked, as one the server did not answer, and a dry run again is
 * answered the same (finishDryRun says so).
 */
export class UnknownWordsError extends SvcError {
  constructor(message: string) {
    super('failure', message, { code: 'unknown_status' });
  }
}

/**
 * A dry run's check of an item that the server did not answer (a 5xx or 429 after the retries, no
 * answer, a timeout): the item may be fine, and the real run may well make it. Planned `unknown`,
 * never `fail` (exploratory test s12, scale12 M1).
 */
export function notChecked(error: unknown): boolean {
  return error instanceof SvcError && error.category === 'failure' && !definiteRefusal(error);
}
