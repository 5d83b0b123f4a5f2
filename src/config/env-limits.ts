import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { quoted } from '../output/format.js';
import type { Env } from '../output/io.js';
import { decimal } from './decimal.js';

/** The request limits read from flags and SVC_* variables: the timeout, retries, answer size. */

export function parseTimeout(globals: GlobalOptions, env: Env): number {
  const raw = globals.timeout ?? env.SVC_TIMEOUT;
  if (raw === undefined || raw === '') return 30_000;
  const seconds = decimal(raw, 'number');
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    const from = globals.timeout === undefined ? 'SVC_TIMEOUT' : '--timeout';
    throw new UsageError(
      `${from} must be a number of seconds, more than 0 and at most 3600, got ${quoted(raw)}`,
    );
  }
  return seconds * 1000;
}

/**
 * SVC_COMPLETION_TIMEOUT: the limit of one TAB-time question (`svc __complete`), in seconds, a
 * tenant lookup and every page included: 1.5 s unset, for a TAB press that must not hang; a user
 * on a slow link or a loaded machine gives it more (at most 60 s). A bad value is refused like
 * SVC_TIMEOUT's; at TAB time that refusal offers nothing (stderr would land in the prompt).
 */
export function parseCompletionTimeout(env: Env): number {
  const raw = env.SVC_COMPLETION_TIMEOUT;
  if (raw === undefined || raw === '') return 1500;
  const seconds = decimal(raw, 'number');
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 60) {
    throw new UsageError(
      `SVC_COMPLETION_TIMEOUT must be a number of seconds, more than 0 and at most 60, got ${quoted(raw)}`,
    );
  }
  return seconds * 1000;
}

export function parseMaxRetries(env: Env): number | undefined {
  const raw = env.SVC_MAX_RETRIES;
  if (raw === undefined || raw === '') return undefined;
  const n = decimal(raw, 'integer');
  if (!Number.isInteger(n) || n < 0 || n > 20) {
    throw new UsageError(`SVC_MAX_RETRIES must be an integer from 0 to 20, got ${quoted(raw)}`);
  }
  return n;
}

/** SVC_MAX_RESPONSE_BYTES: the cap on one answer's size, in bytes (default in http/response.ts). */
export function parseMaxResponseBytes(env: Env): number | undefined {
  const raw = env.SVC_MAX_RESPONSE_BYTES;
  if (raw === undefined || raw === '') return undefined;
  const n = decimal(raw, 'integer');
  if (!Number.isSafeInteger(n) || n < 1024) {
    throw new UsageError(
      `SVC_MAX_RESPONSE_BYTES must be a whole number of bytes from 1024 to ${Number.MAX_SAFE_INTEGER}, got ${quoted(raw)}`,
      { hint: 'e.g. SVC_MAX_RESPONSE_BYTES=268435456 for 256 MiB (the default is 64 MiB)' },
    );
  }
  return n;
}
