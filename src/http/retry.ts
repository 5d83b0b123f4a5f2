/**
 * When and how long to retry. Connection failures, 408, 429, 502, 503 and 504 are retried for
 * every method (every change carries an idempotency key, so a retry cannot apply twice); 500
 * only for safe methods. Delays: the server's Retry-After when it gives one (seconds or an HTTP date,
 * at most `retryAfterCapMs`), otherwise exponential backoff with full jitter.
 */
import { isSafeMethod } from './options.js';

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

const ALWAYS_RETRIED = new Set([408, 429, 502, 503, 504]);

export function isRetryableStatus(method: string, status: number): boolean {
  return ALWAYS_RETRIED.has(status) || (status === 500 && isSafeMethod(method));
}

/** Milliseconds to wait according to a Retry-After value, or undefined when it is absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date (RFC 9110 §5.6.7) names a weekday or month; anything else is unreadable.
  if (!/[a-z]{3}/i.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
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
