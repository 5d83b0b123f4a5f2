// The errors of a bulk run that stopped before its end: halted (no later item could succeed),
// its journal not written, its items not read further.
import { isoSeconds } from '../api/time.js';
import { AuthError, PartialFailureError, SvcError } from '../errors.js';
import type { ApiError } from '../http/errors.js';
import type { JournalWriteError } from './journal-disk.js';
import { callerRefused, connectionRefused, waitsBeyondCap } from './judge.js';
import { n, runAgain, seconds, type Words } from './run-words.js';
import type { BulkSummary } from './summary.js';

/**
 * The error that stopped reading a run's items, saying how far the run got and how to resume;
 * its class, code, answer and exit code are kept (as the listing's "incomplete" words are).
 */
export function unreadError(error: unknown, of: string, resume: string): unknown {
  if (!(error instanceof SvcError)) return error;
  const hint = error.hint ? `${error.hint}; then ${resume}` : resume;
  return Object.assign(error, { message: `stopped after ${of}: ${error.message}`, hint });
}

/**
 * The error of a run halted because its journal could not be written (a full disk): how far it
 * got, the changes made that the journal lacks (ok rows, `not_journaled`), exit 1; the re-run
 * finds those done on the platform and does the rest.
 */
export function unjournaled(
  error: JournalWriteError,
  verb: Words,
  summary: BulkSummary,
  of: string,
  resume: string,
) {
  const lacking = summary.unjournaled ?? 0;
  const made = lacking > 0 ? `, ${n(lacking)} of them ${verb.words.done} but not journaled` : '';
  return error.said(
    `; stopped after ${of}${made}`,
    `make room on its disk, then ${resume}${lacking > 0 ? '; it finds what was not journaled done' : ''}`,
  );
}

/**
 * The error of a run halted because no later item could succeed (the credential is gone, rejected
 * or someone else's): its own words, exit 3, its hint followed by how to resume; a rate limit
 * asking for a longer wait than svc makes: exit 7, when to run it again. A verb's own
 * reason (BulkVerb.halts) is its error as it is.
 */
export function halted(error: unknown, resume: string, journal: string, of: string, left: boolean): SvcError {
  // Said only when some were left (review24e L3: "stopped after 1 of 1 … not started").
  const notSent = (what: string) => (left ? `; the ${what} not started were not sent` : '');
  const wait = waitsBeyondCap(error);
  if (wait !== undefined) {
    // The platform asked for a longer quiet than svc waits: the rest was not sent into it.
    return new PartialFailureError(
      `stopped after ${of}: the platform rate-limits this run and asks for a wait of ${seconds(wait.askedMs)} s, longer than svc waits by itself (${seconds(wait.capMs)} s)${notSent('rows')}`,
      {
        code: 'rate_limited',
        hint: runAgain(`after ${isoSeconds(wait.until)} to resume`, journal),
        cause: error,
      },
    );
  }
  if (connectionRefused(error)) {
    // The platform is not listening: nothing more was sent into refused connections.
    return new SvcError(
      'failure',
      `stopped after ${of}: ${(error as SvcError).message}, so the platform is not reachable now${notSent('items')}`,
      {
        code: 'connection_refused',
        hint: `once the platform answers again (is the server running? check --base-url and your network or proxy settings), ${resume}`,
        cause: error,
      },
    );
  }
  if (callerRefused(error)) {
    // The caller lost the right to do this (a role revoked mid-run): the rest was not sent into it.
    const refusal = error as ApiError;
    return new SvcError(
      'forbidden',
      `stopped after ${of}: the platform refused an item because the caller's roles do not allow it now (${refusal.message})${left ? '; an item that needs the same permission would be refused alike, so the items not started were not sent' : ''}`,
      {
        code: refusal.code ?? 'insufficient_role',
        hint: `once the caller holds a role that allows it (ask a tenant_admin), ${resume}: the items refused are tried again`,
        cause: error,
      },
    );
  }
  const svc = error instanceof SvcError ? error : undefined;
  // The verb's own reason (BulkVerb.halts): its words and hint say how to go on.
  if (svc && svc.category !== 'auth') return svc;
  const hint = svc?.hint ? `${svc.hint}, then ${resume}` : resume;
  return new AuthError(svc?.message ?? String(error), {
    code: svc?.code ?? 'unauthenticated',
    hint,
    cause: error,
  });
}
