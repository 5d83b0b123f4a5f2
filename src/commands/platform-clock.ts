import { type Anchor, type Expiry, pastExpiry } from '../api/expiry.js';
import type { Journal } from '../bulk/journal.js';
import type { Context } from '../context.js';
import { lookupMayFail, UsageError } from '../errors.js';
import { timeSpan } from '../output/format.js';
import { CLOCK_SKEW_MS, platformTime } from '../platform/clock.js';
import type { Platform } from '../platform/index.js';
import type { CallOptions } from '../platform/transport.js';
import { durationsGiven, type TimeFlags, timesAt } from './time-flags.js';

/** What an access file's durations are, in runAnchor's warning (svc plan, svc apply -f). */
export const ACCESS_FILE_DURATIONS = 'durations (expires_in) were';

/** Whole seconds: the API's times have second precision. */
const wholeSeconds = (compute: () => number) => Math.floor(compute() / 1000) * 1000;

/**
 * The anchor of a run that started at `machineMs` on this machine's clock: the platform's time
 * then (platformTime), or what `keep` makes of it (a bulk run's journal keeps its first start's,
 * so a resumed run counts from the same time). The first use() says, in one stderr line, that
 * `what` (e.g. "--expires-in was") counted from the platform's time when it differs from this
 * machine's by more than CLOCK_SKEW_MS; nothing is said when no duration is counted. `nowOffsetMs`,
 * for a resumed run, is how far the platform's clock is off now: said beside the first start's
 * when the two differ (the warning is of the clocks as they are, not as they were).
 */
export function runAnchor(
  ctx: Context,
  platform: Platform,
  machineMs: number,
  what: string,
  keep: (compute: () => number) => number = wholeSeconds,
  nowOffsetMs?: number,
): Anchor {
  const ms = keep(() => platformTime(platform, machineMs));
  let said = false;
  return {
    ms,
    use() {
      const offset = ms - machineMs;
      const now = nowOffsetMs ?? offset;
      if (!said && (Math.abs(offset) > CLOCK_SKEW_MS || Math.abs(now) > CLOCK_SKEW_MS)) {
        said = true;
        ctx.out.warn(
          Math.abs(now - offset) <= CLOCK_SKEW_MS
            ? `the platform's clock is ${gap(offset)} this machine's; ${what} counted from the platform's time`
            : `the platform's clock is ${gap(now)} this machine's (${gap(offset).replace(/ (of|with)$/, '')} when the run first started); ${what} counted from the platform's time then`,
        );
      }
      return ms;
    },
  };
}

/** How far the platform's clock is from this machine's, before "this machine's": "7 h ahead of". */
function gap(offsetMs: number): string {
  if (Math.abs(offsetMs) <= CLOCK_SKEW_MS) return 'in step with';
  return `${timeSpan(offsetMs)} ${offsetMs > 0 ? 'ahead of' : 'behind'}`;
}

/**
 * Learns the platform's clock when no answer the command had (a role lookup) told it yet: one
 * cheap GET /v1/me. Without it (no Date header, the look refused), this machine's clock is used.
 */
export async function learnPlatformClock(platform: Platform, options?: CallOptions): Promise<void> {
  if (platform.serverClockOffsetMs !== undefined) return;
  try {
    await platform.me.get(options);
  } catch (error) {
    if (!lookupMayFail(error)) throw error;
  }
}

/**
 * The time a duration counts from, forward (a single grant's --expires-in) or back (svc audit ls
 * --since 2h): runAnchor now, on the platform's clock, the one grants expire and entries are
 * timed on; `what` names the flags counted ("--since was").
 */
export async function durationAnchor(ctx: Context, platform: Platform, what: string): Promise<number> {
  await learnPlatformClock(platform);
  return runAnchor(ctx, platform, ctx.clock.now(), what, (compute) => compute()).use();
}

/**
 * --since/--until as instants for one command (svc audit ls, svc webhooks dlq ls): what they
 * filter is timed on the platform's clock, so a duration counts back from the platform's time
 * (durationAnchor: said once when it is off this machine's).
 */
export async function resolveTimes(
  ctx: Context,
  platform: Platform,
  times: TimeFlags,
): Promise<{ since: string | undefined; until: string | undefined }> {
  const durations = durationsGiven(times);
  const now = durations === undefined ? ctx.clock.now() : await durationAnchor(ctx, platform, durations);
  return timesAt(times, now);
}

/**
 * The time a bulk run's durations count back from (replay --dlq --since 2h): the anchor its
 * journal keeps, so a resumed run and its dry run take the instants its first run took; a new
 * run's is the platform's time now (runAnchor, said once when it is off this machine's: for a
 * resumed run, as it is now and, when it differs, as it was at the first start). `what` names the
 * flags counted ("--since was").
 */
export async function journalAnchor(
  ctx: Context,
  platform: Platform,
  journal: Journal,
  what: string,
): Promise<number> {
  const { resumed, startedAtMs } = journal.run;
  await learnPlatformClock(platform);
  const machineMs = resumed ? startedAtMs : ctx.clock.now();
  return runAnchor(
    ctx,
    platform,
    machineMs,
    what,
    (compute) => journal.anchor(compute),
    resumedOffsetMs(ctx, platform, journal),
  ).use();
}

/**
 * How far the platform's clock is off this machine's now, for a resumed run (undefined for a new
 * one, or when no answer told it): its warning says the clocks as they are, not only as they were
 * at its first start (attack22 F4).
 */
function resumedOffsetMs(ctx: Context, platform: Platform, journal: Journal): number | undefined {
  if (!journal.run.resumed || platform.serverClockOffsetMs === undefined) return undefined;
  const now = ctx.clock.now();
  return platformTime(platform, now) - now;
}

/**
 * The anchor of a bulk run that grants for spans (roles assign --file, svc apply -f): runAnchor
 * over the journal's, with the gap said as it is now for a resumed run (resumedOffsetMs).
 */
export function grantRunAnchor(ctx: Context, platform: Platform, journal: Journal, what: string): Anchor {
  return runAnchor(
    ctx,
    platform,
    journal.run.startedAtMs,
    what,
    (compute) => journal.anchor(compute),
    resumedOffsetMs(ctx, platform, journal),
  );
}

/** The time a single grant's --expires-in counts from (durationAnchor). */
export async function expiryAnchor(ctx: Context, platform: Platform, expiry: Expiry): Promise<number> {
  if (expiry.kind !== 'in') return ctx.clock.now();
  return durationAnchor(ctx, platform, '--expires-in was');
}

/**
 * Refuses an --expires-at (of a single grant, or the default of a --file's rows) that is in the
 * past at the platform's time (pastExpiry at platformTime), as a file's expires_at column is: the
 * platform's clock is the one grants expire on, so it is judged once that clock is known, before
 * anything is changed.
 */
export async function refusePastExpiresAt(
  ctx: Context,
  platform: Platform,
  expiry: Expiry | undefined,
): Promise<void> {
  if (expiry?.kind !== 'at') return;
  await learnPlatformClock(platform);
  const past = pastExpiry(expiry, platformTime(platform, ctx.clock.now()));
  if (past !== undefined) {
    throw new UsageError(`--expires-at ${past}`, {
      hint: 'give a later time, or --expires-in DURATION (e.g. 8h)',
    });
  }
}
