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
  return timeAtOffset(platform.serverClockOffsetMs, machineMs);
}

/**
 * platformTime's rule for an offset already in hand (HttpClient.serverClockOffsetMs): the
 * machine's time moved by it when it is more than CLOCK_SKEW_MS, else the machine's time. The
 * Context measures the relative times a terminal shows ("in 60 minutes") with it, so they agree
 * with what svc counted expiries from and with the status the platform gives.
 */
export function timeAtOffset(offsetMs: number | undefined, machineMs: number): number {
  if (offsetMs === undefined || Math.abs(offsetMs) <= CLOCK_SKEW_MS) return machineMs;
  return machineMs + offsetMs;
}
