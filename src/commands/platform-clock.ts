import type { Expiry } from '../api/expiry.js';
import type { Context } from '../context.js';
import { lookupMayFail } from '../errors.js';
import { timeSpan } from '../output/format.js';
import type { Platform } from '../platform/index.js';

/** How far the platform's clock and this machine's may differ before svc counts from the platform's. */
export const CLOCK_SKEW_MS = 60_000;

/**
 * The time a relative expiry (--expires-in) is counted from. Grants expire on the platform's
 * clock, so when it differs from this machine's by more than a minute (a machine whose clock is
 * wrong, a sandbox whose clock was moved) the platform's time is used, and one stderr line says
 * so. The platform's time comes from the Date header of an answer this command already had (a
 * role lookup), else from one cheap GET /v1/me; without it (no Date header, the look refused),
 * this machine's clock is used, as before.
 */
export async function expiryAnchor(ctx: Context, platform: Platform, expiry: Expiry): Promise<number> {
  if (expiry.kind !== 'in') return ctx.clock.now();
  if (platform.serverClockOffsetMs === undefined) {
    try {
      await platform.me.get();
    } catch (error) {
      if (!lookupMayFail(error)) throw error;
    }
  }
  const offset = platform.serverClockOffsetMs;
  if (offset === undefined || Math.abs(offset) <= CLOCK_SKEW_MS) return ctx.clock.now();
  ctx.out.warn(
    `the platform's clock is ${timeSpan(offset)} ${offset > 0 ? 'ahead of' : 'behind'} this machine's; --expires-in was counted from the platform's time`,
  );
  return ctx.clock.now() + offset;
}
