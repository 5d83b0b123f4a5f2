import { isoSeconds } from '../api/time.js';
import { timeSpan } from '../output/format.js';
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
 * The platform's time at this machine's `machineMs` as the latest answer's Date header says it,
 * however small the difference (no CLOCK_SKEW_MS let pass), to the second: a time to set beside
 * the platform's own times (a grant's assigned_at), server time with server time; undefined
 * before any Date. Asked after the answer (a retry's 409), it puts a time taken before the first
 * attempt on the clock of that answer. The Date header is whole seconds, so this is at most a
 * second and the answer's transit early.
 */
export function serverClockTime(platform: Platform, machineMs: number): string | undefined {
  const offset = platform.serverClockOffsetMs;
  return offset === undefined ? undefined : isoSeconds(machineMs + offset);
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

/**
 * timeAtOffset's inverse: a time on the server's clock (`serverMs`, a JWT's `exp`) as this machine's
 * clock reads it, by the same rule (moved only when the clocks are more than CLOCK_SKEW_MS apart).
 */
export function machineTimeAtOffset(offsetMs: number | undefined, serverMs: number): number {
  if (offsetMs === undefined || Math.abs(offsetMs) <= CLOCK_SKEW_MS) return serverMs;
  return serverMs - offsetMs;
}

/**
 * What a resumed run's first line adds when the grants it still has to make count `spans` from its
 * first start (`anchorMs`, kept in its journal: README, the requests are the first run's, keys and
 * all) and that start is more than CLOCK_SKEW_MS behind the platform's time `nowMs`: how much sooner
 * each grant made now ends than its span from now, and the way to the full span (attack22 F4: a
 * 1 h row resumed 40 minutes later was granted for 20 minutes without a word).
 */
export function shortenedSpans(
  anchorMs: number,
  nowMs: number,
  spans: string,
  journalPath: string,
): string | undefined {
  const late = nowMs - anchorMs;
  if (late <= CLOCK_SKEW_MS) return undefined;
  return `the grants still to make count ${spans} from that start (${isoSeconds(anchorMs)} on the platform's clock, ${timeSpan(late)} ago), so each ends ${timeSpan(late)} sooner than its span from now; for the full span, remove the journal ${journalPath} and run the command again`;
}
