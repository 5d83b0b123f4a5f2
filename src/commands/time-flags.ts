import { parseInstant, parseSpan, type SpanFlag } from '../api/expiry.js';
import { isoInstant, isoSeconds, serverTime, UNIT_MS } from '../api/time.js';
import { UsageError } from '../errors.js';
import { quoted } from '../output/format.js';

// The time flags every listing verb takes (--since, --until): an instant, a date, or a duration
// back from a time learnt later (the platform's clock: platform-clock.ts).

/**
 * The longest duration back a time flag takes (--since 36500d): a century covers any trail, and
 * much further back is no time the API takes (99999999d would be the year -271764).
 */
const MAX_AGO_DAYS = 36_500;

/** A time flag's durations, as parseSpan's months advice words them: 0m up to MAX_AGO_DAYS. */
const AGO: SpanFlag = {
  instead: 'a date',
  takes: (span) => span.ms <= MAX_AGO_DAYS * UNIT_MS.d,
  minutes: `up to ${MAX_AGO_DAYS * (UNIT_MS.d / UNIT_MS.m)}m`,
};

/** A time flag as given: an instant, or a duration back from a time learnt later (timeAt), and its text. */
export type TimeSpec = { at: string } | { agoMs: number; text: string };

/** --since and --until as given (timeSpec); see timeFlags. */
export interface TimeFlags {
  since: TimeSpec | undefined;
  until: TimeSpec | undefined;
}

/**
 * --since/--until: an ISO 8601 time with a zone (the parser --expires-at uses: a time without a
 * zone is refused, not read in the machine's zone), a date alone (00:00Z that day), or a duration
 * back from now such as 2h or 7d (up to MAX_AGO_DAYS), whose "now" the command chooses: the
 * platform's clock for what the platform timed (svc audit ls, durationAnchor).
 */
export function timeSpec(flag: string, raw: unknown): TimeSpec | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  // The one duration grammar (parseSpan: `1H` as `1h`, `6M` refused with the months advice).
  const ago = parseSpan(text, AGO);
  if (ago !== undefined) {
    if (!ago.ok) throw new UsageError(`${flag} ${ago.message}`);
    const agoMs = ago.value.ms;
    if (!AGO.takes(ago.value)) {
      throw new UsageError(
        `${flag} ${quoted(text)} is too far back; give a duration up to ${MAX_AGO_DAYS}d (100 years), or an ISO 8601 time`,
      );
    }
    return { agoMs, text: ago.value.text };
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const day = parseInstant(`${text}T00:00:00Z`);
    // A day the calendar has not (2027-02-29) is said as parseInstant says it of the date.
    if (!day.ok) throw new UsageError(`${flag} ${(parseInstant(text) as { message: string }).message}`);
    return { at: isoSeconds(day.value) };
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]/i.test(text)) {
    const instant = parseInstant(text);
    if (!instant.ok) throw new UsageError(`${flag} ${instant.message}`);
    return { at: isoInstant(instant.value) };
  }
  throw new UsageError(
    `${flag} takes an ISO 8601 time (2026-01-15T09:30:00Z) or a duration back from now (30m, 2h, 7d), got ${quoted(text)}`,
  );
}

/** The instant a time flag names when "now" is `nowMs`. */
export function timeAt(spec: TimeSpec, nowMs: number): string {
  return 'at' in spec ? spec.at : isoSeconds(nowMs - spec.agoMs);
}

/**
 * --since and --until as given (timeSpec), their durations counted later (timesAt): two instants
 * are in order or not whatever the clock, so they are refused here, before any I/O. Durations are
 * judged once counted on the platform's clock (timesAt), so the refusal names the instants the
 * command would have used.
 */
export function timeFlags(flags: Record<string, unknown>): TimeFlags {
  const since = timeSpec('--since', flags.since);
  const until = timeSpec('--until', flags.until);
  if (since && until && 'at' in since && 'at' in until) timeRange(since.at, until.at);
  return { since, until };
}

/** --since and --until as instants, their durations counted back from `nowMs`; refused when not in order. */
export function timesAt(
  { since, until }: TimeFlags,
  nowMs: number,
): { since: string | undefined; until: string | undefined } {
  const times = { since: since && timeAt(since, nowMs), until: until && timeAt(until, nowMs) };
  timeRange(times.since, times.until);
  return times;
}

/** The flags of `times` given as durations, as a warning names them ("--since and --until were"); undefined: none. */
export function durationsGiven({ since, until }: TimeFlags): string | undefined {
  const flags = (
    [
      ['--since', since],
      ['--until', until],
    ] as const
  )
    .filter(([, spec]) => spec !== undefined && 'agoMs' in spec)
    .map(([flag]) => flag);
  if (flags.length === 0) return undefined;
  return `${flags.join(' and ')} ${flags.length > 1 ? 'were' : 'was'}`;
}

/** Refuses a --since that is not before its --until. */
function timeRange(since: string | undefined, until: string | undefined): void {
  if (since && until && serverTime(since) >= serverTime(until)) {
    throw new UsageError(`--since (${since}) must be before --until (${until})`);
  }
}
