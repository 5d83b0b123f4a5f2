import { describeError, SvcError } from '../errors.js';
import { ApiError, answerOf, OutcomeUnknownError } from '../http/errors.js';
import { AcceptedUnreadError, IdempotencyInProgressError } from '../platform/errors.js';
import type { BulkResult } from './runner.js';

/**
 * How a bulk run judges an item's error (./runner.ts): whether the server's answer is definite,
 * whether the change may have been made all the same, whether no later item can succeed, and
 * what the item's result line says of it.
 */

/** A server's answer about this attempt that will not change if the same request is sent again. */
export function definiteRefusal(error: unknown): boolean {
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
      // An unknown outcome's says so (`…, so the outcome is unknown: …`).
      message: (error as SvcError).message,
      status: answer.status,
      ...(answer.requestId ? { request_id: answer.requestId } : {}),
      // Where to look for the right id, as the single verb's error says it (`svc users ls`).
      ...(answer.hint ? { hint: answer.hint } : {}),
    };
  }
  if (error instanceof AcceptedUnreadError) {
    return {
      code: error.code ?? 'invalid_response',
      message: `the server accepted the change (HTTP ${error.status}) but svc cannot read what it made: ${error.message}, so the outcome is unknown: the platform most likely made this change`,
      status: error.status,
    };
  }
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
  return error instanceof OutcomeUnknownError || (error instanceof AcceptedUnreadError && !error.done);
}

/**
 * The item's change is done though svc could not read the answer: a DELETE answered 200 or 204
 * (AcceptedUnreadError's `done`: the reference shows no body for a DELETE).
 */
export function doneUnread(error: unknown): error is AcceptedUnreadError {
  return error instanceof AcceptedUnreadError && error.done;
}

/**
 * No later item can succeed either: the credential is gone, rejected, or someone else's (exit 3);
 * or the platform's rate limit asks for a longer wait than svc makes (waitBeyondCap): every row
 * sent before it ends would be refused the same.
 */
export function haltsTheRun(error: unknown): boolean {
  return (error instanceof SvcError && error.category === 'auth') || waitsBeyondCap(error) !== undefined;
}

/** The wait a 429 asks for when it is longer than svc makes by itself (ApiError.waitBeyondCap). */
export function waitsBeyondCap(error: unknown): ApiError['waitBeyondCap'] {
  return error instanceof ApiError && error.status === 429 ? error.waitBeyondCap : undefined;
}

/**
 * A dry run's check of an item that the server did not answer (a 5xx or 429 after the retries, no
 * answer, a timeout): the item may be fine, and the real run may well make it. Planned `unknown`,
 * never `fail` (exploratory test s12, scale12 M1).
 */
export function notChecked(error: unknown): boolean {
  return error instanceof SvcError && error.category === 'failure' && !definiteRefusal(error);
}
