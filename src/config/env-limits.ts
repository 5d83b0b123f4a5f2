import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import type { Env } from '../output/io.js';

/** The request limits read from flags and SVC_* variables: the timeout, retries, answer size. */

export function parseTimeout(globals: GlobalOptions, env: Env): number {
  const raw = globals.timeout ?? env.SVC_TIMEOUT;
  if (raw === undefined || raw === '') return 30_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    const from = globals.timeout === undefined ? 'SVC_TIMEOUT' : '--timeout';
    throw new UsageError(
      `${from} must be a number of seconds, more than 0 and at most 3600, got ${JSON.stringify(raw)}`,
    );
  }
  return seconds * 1000;
}

export function parseMaxRetries(env: Env): number | undefined {
  const raw = env.SVC_MAX_RETRIES;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 20) {
    throw new UsageError(`SVC_MAX_RETRIES must be an integer from 0 to 20, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** SVC_MAX_RESPONSE_BYTES: the cap on one answer's size, in bytes (default in http/response.ts). */
export function parseMaxResponseBytes(env: Env): number | undefined {
  const raw = env.SVC_MAX_RESPONSE_BYTES;
  if (raw === undefined || raw === '') return undefined;
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1024) {
    throw new UsageError(
      `SVC_MAX_RESPONSE_BYTES must be a whole number of bytes, at least 1024, got ${JSON.stringify(raw)}`,
      { hint: 'e.g. SVC_MAX_RESPONSE_BYTES=268435456 for 256 MiB (the default is 64 MiB)' },
    );
  }
  return n;
}
