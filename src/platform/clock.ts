import type { Platform } from './index.js';

/** How far the platform's clock and this machine's may differ before svc counts from the platform's. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * Grants expire on the platform's clock, so durations (--expires-in, a bulk file's or an access
 * file's expires_in) count from the platform's time, an expires_at is in the past at it
 * (pastExpiry), and dry runs judge what is live at it, when
 * it differs from this machine's by more than a minute (a machine whose clock is wrong, a sandbox
 * whose clock was moved). The platform's time comes from the Date header of an answer the command
 * already had (HttpClient keeps the offset); without one (no Date header), this machine's clock
 * is used.
 */
export function platformTime(platform: Platform, machineMs: number): number {
  const offset = platform.serverClockOffsetMs;
  if (offset === undefined || Math.abs(offset) <= CLOCK_SKEW_MS) return machineMs;
  return machineMs + offset;
}
