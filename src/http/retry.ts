/**
 * When and how long to retry. A request that may be sent again (mayResend: a safe or idempotent
 * method, or a change under an idempotency key, which the platform applies once) is retried after
 * a connection failure, 408, 429, 502, 503 and 504, and after 500 when its method is safe. Any
 * other change (svc api's POST outside /v1 or to /_sandbox, a non-JSON --input, an OAuth form, a
 * PATCH without a key) is sent again only when the failure proves it was not acted on: a
 * connection that was never made, 408 or 429. A 5xx, a timeout or a dropped connection may come
 * after the server applied it, and a second attempt could apply it twice. Delays: the server's
 * Retry-After when it gives one (seconds or an HTTP date), otherwise exponential backoff with
 * full jitter; a Retry-After beyond `retryAfterCapMs` is not waited for (beyondCap): the request
 * fails at once, saying how long the server asked for.
 */

import { setMaxListeners } from 'node:events';
import { type LinkedSignal, linkedSignal } from '../system/linked-signal.js';
import { httpDate } from './http-date.js';
import { isSafeMethod } from './options.js';
import { answerAge } from './server-clock.js';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  retryAfterCapMs: 60_000,
};

const NOT_ACTED_ON = new Set([408, 429]);
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * Whether a request may be sent again after an attempt that may have reached the server: a safe
 * method, PUT or DELETE (idempotent, RFC 9110 §9.2.2), or a change that carries an idempotency key.
 */
export function mayResend(method: string, keyed: boolean): boolean {
  const upper = method.toUpperCase();
  return keyed || isSafeMethod(upper) || upper === 'PUT' || upper === 'DELETE';
}

export function isRetryableStatus(method: string, status: number, resendable = true): boolean {
  if (NOT_ACTED_ON.has(status)) return true;
  return resendable && (UNAVAILABLE.has(status) || (status === 500 && isSafeMethod(method)));
}

/** A Retry-After longer than svc waits by itself: waiting less and trying again cannot succeed. */
export function beyondCap(retryAfter: string | undefined, policy: RetryPolicy, nowMs: number): boolean {
  const asked = parseRetryAfter(retryAfter, nowMs);
  return asked !== undefined && asked > policy.retryAfterCapMs;
}

/**
 * The time a Retry-After given as an HTTP-date is measured from: the same answer's Date, since both
 * are the server's clock (RFC 9110 §10.2.3), plus its `Age` when a cache held it (its Date is that
 * long behind the server's clock, RFC 9111 §4.2.3, as server-clock.ts reads it: without it, svc
 * waited Age seconds longer); this machine's `nowMs` only when the answer has no readable Date.
 * An Age that is not delta-seconds adds nothing: the longer wait, never a sooner one. Measured
 * from this machine's clock, a server 5 h ahead asking for 3 s read as a 5 h wait (given up at
 * once), and one behind as none (attack22 F3).
 */
export function retryAfterBase(date: string | undefined, nowMs: number, age?: string): number {
  const answered = httpDate(date, nowMs);
  return Number.isNaN(answered) ? nowMs : answered + (answerAge(age) ?? 0) * 1000;
}

/**
 * Milliseconds to wait according to a Retry-After value, or undefined when it is absent or
 * unreadable; `nowMs` is the time an HTTP-date is measured from (retryAfterBase).
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date (RFC 9110 §5.6.7), read as GMT in each of its forms; anything else is unreadable.
  const date = httpDate(trimmed, nowMs);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * The delay before retry number `retry` (1-based). `random` is injectable so tests are exact.
 */
export function retryDelayMs(
  retry: number,
  retryAfter: string | undefined,
  policy: RetryPolicy,
  nowMs: number,
  random: () => number = Math.random,
): number {
  const fromServer = parseRetryAfter(retryAfter, nowMs);
  if (fromServer !== undefined) return Math.min(fromServer, policy.retryAfterCapMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * How long a mutating request waits when the server says its own earlier attempt (same
 * idempotency key) is still running (409 idempotency_request_in_progress): after a timeout,
 * the first attempt usually completes a moment later, and its stored answer is the result.
 */
export const IN_FLIGHT_WAIT = { maxWaits: 12, maxTotalMs: 60_000, minDelayMs: 100 };

/** The delay before in-flight wait number `wait` (1-based): Retry-After if given, else backoff. */
export function inFlightDelayMs(
  wait: number,
  retryAfter: string | undefined,
  policy: RetryPolicy,
  nowMs: number,
  random: () => number = Math.random,
): number {
  return Math.max(IN_FLIGHT_WAIT.minDelayMs, retryDelayMs(wait, retryAfter, policy, nowMs, random));
}

/**
 * A request's signal for a stop that lets an attempt already on the wire finish (its answer read,
 * within --timeout) but sends no other: at `stop`, a wait before a retry (a Retry-After, a 429's
 * pause, a wait on the request's own earlier attempt) ends at once, as for any request, and no
 * further attempt is sent; an attempt under way is not cut, since once sent it may be acted on and
 * its answer is what tells. A bulk run's rows (src/bulk/runner.ts) and a token refresh
 * (src/auth/refresh.ts) are sent so; every other request is cut on the wire by a stop.
 */
export function finishingSent(stop: AbortSignal): LinkedSignal {
  // Linked, not AbortSignal.any, which Node 20 keeps listed on `stop` for good: `end()` at the
  // run's or the refresh's end leaves nothing on the command's signal (src/system/linked-signal.ts).
  const requests = linkedSignal([stop]);
  // Every wait of a run's items listens to it: dozens at once is how bulk runs work, not a leak.
  setMaxListeners(0, requests.signal);
  finishing.set(requests.signal, { sent: 0 });
  return requests;
}

/**
 * What the requests of a finishingSent signal have done: attempts on the wire now (`sent`); of an
 * item's (finishingItem), whether a change of it may have been made (`changed`: `answered`, a 2xx
 * came; `maybe`, an attempt's answer was lost or an earlier one of its key was still running).
 */
export interface SentRequests {
  sent: number;
  changed?: 'answered' | 'maybe';
}

/** The signals made by finishingSent and finishingItem. */
const finishing = new WeakMap<AbortSignal, SentRequests>();

/** The attempts on the wire of a finishingSent signal's requests, undefined for another signal. */
export function attemptsOnTheWire(signal: AbortSignal | undefined): SentRequests | undefined {
  return signal === undefined ? undefined : finishing.get(signal);
}

/**
 * One item's requests under a finishingSent signal (a bulk row's): stopped with it, its attempts
 * counted in its, and its own note of a change that may have been made, so a stop before the
 * item's next request is said as what it is (src/bulk/runner.ts: made, or may be; never "nothing
 * was changed"). Of another signal, that signal itself. Linked, not AbortSignal.any: on Node 20
 * every signal that makes stays listed on its source for good (nodejs/node#55351), 55 MB at a
 * million rows; `end()`, once the item has ended, unlinks it (review23b L1).
 */
export function finishingItem(requests: AbortSignal): LinkedSignal {
  const all = finishing.get(requests);
  if (all === undefined) return { signal: requests, end: () => {} };
  const own = linkedSignal([requests]);
  finishing.set(own.signal, {
    get sent() {
      return all.sent;
    },
    set sent(count: number) {
      all.sent = count;
    },
  });
  return own;
}

/** How far a change of an item's requests (finishingItem) got, once one may have been made. */
export function changeMade(signal: AbortSignal): SentRequests['changed'] {
  return finishing.get(signal)?.changed;
}
