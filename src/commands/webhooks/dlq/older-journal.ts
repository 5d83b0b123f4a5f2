/**
 * A resumed run whose journal an earlier svc wrote (no platform_started_at): where its first start
 * was on the platform's clock, the one the queue's entries are timed on (RunWindow.forRun).
 */
import type { Journal } from '../../../bulk/journal.js';
import { CLOCK_SKEW_MS } from '../../../platform/clock.js';
import type { Platform } from '../../../platform/index.js';
import { learnPlatformClock } from '../../platform-clock.js';

/**
 * The platform's start of a run whose journal an earlier svc wrote (no platform_started_at): its
 * anchor when that is a minute or more from its start, as svc took the platform's clock then;
 * undefined when the two were under a minute apart (the anchor is this machine's then).
 */
export function platformAnchor(journal: Journal): number | undefined {
  const anchorMs = journal.anchor(() => journal.run.startedAtMs);
  return Math.abs(anchorMs - journal.run.startedAtMs) >= CLOCK_SKEW_MS ? anchorMs : undefined;
}

/**
 * A resumed run whose journal an earlier svc wrote (no platform_started_at) with its anchor on
 * this machine's clock (platformAnchor: none on the platform's): the earliest its start could
 * have been on the platform's clock, so that it never takes an entry dead-lettered after it
 * started, whichever way this machine's clock was off: the earlier of it and it converted by how
 * far the platform's clock is off this machine's now (the Date header of an answer; a minute
 * without one). Entries after that, up to the minute after the anchor, it may have counted: said.
 */
export async function olderStart(
  platform: Platform,
  journal: Journal,
): Promise<{ startMs: number; machineMs: number }> {
  const anchorMs = journal.anchor(() => journal.run.startedAtMs);
  await learnPlatformClock(platform);
  const offset = platform.serverClockOffsetMs ?? -CLOCK_SKEW_MS;
  const behind = Math.max(-CLOCK_SKEW_MS, Math.min(0, offset));
  return { startMs: Math.floor((anchorMs + behind) / 1000) * 1000, machineMs: anchorMs };
}
