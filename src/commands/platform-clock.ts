import type { Expiry } from '../api/expiry.js';
import type { Context } from '../context.js';
import { lookupMayFail } from '../errors.js';
import { timeSpan } from '../output/format.js';
import type { Platform } from '../platform/index.js';

/** How far the platform's clock and this machine's may differ before svc counts from the platform's. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * Grants expire on the platform's clock, so durations (--expires-in, a bulk file's or an access
 * file's expires_in) count from the platform's time when it differs from this machine's by more
 * than a minute (a machine whose clock is wrong, a sandbox whose clock was moved). The platform's
 * time comes from the Date header of an answer the command already had (HttpClient keeps the
 * offset); without one (no Date header), this machine's clock is used, as before.
 */
export function platformTime(platform: Platform, machineMs: number): number {
  const offset = platform.serverClockOffsetMs;
  if (offset === undefined || Math.abs(offset) <= CLOCK_SKEW_MS) return machineMs;
  return machineMs + offset;
}

/**
 * The time a run's durations count from: `ms`, the platform's time when the run (first) started
 * at `machineMs` on this machine's clock. `use()` gives it for counting a duration; the first use
 * says, in one stderr line, that `what` (e.g. "--expires-in was") counted from the platform's
 * time when the two differ by more than CLOCK_SKEW_MS. Nothing is said when no duration is counted.
 */
export interface Anchor {
  readonly ms: number;
  use(): number;
}

export function anchorAt(ctx: Context, ms: number, machineMs: number, what: string): Anchor {
  let said = false;
  return {
    ms,
    use() {
      const offset = ms - machineMs;
      if (!said && Math.abs(offset) > CLOCK_SKEW_MS) {
        said = true;
        ctx.out.warn(
          `the platform's clock is ${timeSpan(offset)} ${offset > 0 ? 'ahead of' : 'behind'} this machine's; ${what} counted from the platform's time`,
        );
      }
      return ms;
    },
  };
}

/** Makes sure the platform's clock is known: one cheap GET /v1/me when no answer has told it yet. */
export async function learnPlatformClock(platform: Platform): Promise<void> {
  if (platform.serverClockOffsetMs !== undefined) return;
  try {
    await platform.me.get();
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
  }
}

/** The time a single grant's --expires-in counts from (see platformTime and anchorAt). */
export async function expiryAnchor(ctx: Context, platform: Platform, expiry: Expiry): Promise<number> {
  if (expiry.kind !== 'in') return ctx.clock.now();
  await learnPlatformClock(platform);
  const now = ctx.clock.now();
  return anchorAt(ctx, platformTime(platform, now), now, '--expires-in was').use();
}
