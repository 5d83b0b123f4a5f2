/**
 * Expiry of a role grant: a duration (`30m`, `8h`, `7d`), an absolute ISO 8601 time, or `never`
 * (a permanent grant). Parsers return a message instead of throwing, so flags, file rows and
 * prompts can each put it in their own words. A bad value is repeated through quoted() (bounded:
 * its start, its end and its length when long), as every value an error echoes.
 */

import { quoted } from '../output/format.js';
import { isoSeconds, isoTime, UNIT_MS } from './time.js';

export type Expiry =
  | { kind: 'in'; ms: number; text: string }
  | { kind: 'at'; ms: number }
  | { kind: 'never' };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export const MAX_DURATION_DAYS = 365;
export const DURATION_FORMS = '30m, 8h, 7d';
/** parseDuration's grammar as a JSON Schema pattern (for editors); svc itself runs the parser. */
export const DURATION_PATTERN = '^\\s*(\\d+\\s*[mhdHD]|[Nn][Ee][Vv][Ee][Rr])\\s*$';

/**
 * `30m`, `8h`, `7d` (minutes, hours, days, at most 365 days), or `never`: the one grammar of
 * `--expires-in`, a bulk file's column and an access file's `expires_in`. `H` and `D` are read as
 * `h` and `d`; `M` is refused (minutes or months?).
 */
export function parseDuration(raw: string): Parsed<Expiry> {
  const text = raw.trim();
  if (text.toLowerCase() === 'never') return { ok: true, value: { kind: 'never' } };
  const match = /^(\d+)\s*([mhd])$/i.exec(text);
  if (match?.[2] === 'M') {
    // 6M reads as six months to most people; it was six minutes. The count as a number is
    // suggested (no leading zeros) only when svc takes it (review17c C4: not 0m, not past 365 days).
    const count = match[1]!.replace(/^0+(?=\d)/, '');
    const minutes = parseDuration(`${count}m`).ok
      ? `write ${count}m for minutes`
      : `minutes are m, from 1m to ${MAX_DURATION_DAYS * (UNIT_MS.d / UNIT_MS.m)}m`;
    return {
      ok: false,
      message: `${quoted(raw)}: M is not a unit; ${minutes} (months are not a unit: use days, e.g. 30d, or an end time)`,
    };
  }
  if (!match) {
    return {
      ok: false,
      message: `${quoted(raw)} is not a duration: use a whole number and m, h or d (${DURATION_FORMS}), or never`,
    };
  }
  const count = Number(match[1]);
  const unit = match[2]!.toLowerCase() as 'm' | 'h' | 'd';
  const ms = count * UNIT_MS[unit];
  if (ms <= 0) return { ok: false, message: `a duration must be longer than zero, got ${quoted(raw)}` };
  if (ms > MAX_DURATION_DAYS * UNIT_MS.d) {
    return {
      ok: false,
      message: `${quoted(raw)} is longer than ${MAX_DURATION_DAYS} days; give an end time (expires at) instead`,
    };
  }
  return { ok: true, value: { kind: 'in', ms, text: `${count}${unit}` } };
}

/**
 * An ISO 8601 / RFC 3339 time with a time zone (`Z` or an offset) that names a real moment (no
 * 30 February; isoTime, the reading of every time svc is given): the one time parser behind
 * every time flag and file time (--expires-at, --since, --until, an access file's expires_at). A
 * time without a zone is refused (the example shows the Z), never read in the machine's zone nor
 * guessed to be UTC: the user can say which (a server's zone-less time is UTC: serverTime).
 */
export function parseInstant(raw: string): Parsed<number> {
  const text = raw.trim();
  const time = isoTime(text);
  if (time?.zoned) return { ok: true, value: time.ms };
  // A leap second (RFC 3339 allows second 60) is an ISO 8601 time, but not one the platform takes.
  const leap = /^(.*[T ]\d{2}:\d{2}):60(?:[.,]\d+)?(Z|[+-][\d:]+)$/i.exec(text);
  if (leap && isoTime(`${leap[1]}:59${leap[2]}`) !== undefined) {
    return {
      ok: false,
      message: `${quoted(raw)} is a leap second (second 60), which the platform does not take; give ${leap[1]}:59${leap[2]} or the next second`,
    };
  }
  return {
    ok: false,
    message: `${quoted(raw)} is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)`,
  };
}

/**
 * An expiry at a time (parseInstant), not yet judged against the clock: whether it is in the past
 * is the platform's to say (pastExpiry, at platformTime), so a check that runs before the platform
 * has been asked leaves it for later.
 */
export function parseAt(raw: string): Parsed<Expiry> {
  const instant = parseInstant(raw);
  return instant.ok ? { ok: true, value: { kind: 'at', ms: instant.value } } : instant;
}

/**
 * The one rule of "in the past" for an expiry: a time at or before `nowMs`, which is the
 * platform's time (platformTime) wherever svc judges it. The message, or undefined when it is fine.
 */
export function pastExpiry(expiry: Expiry, nowMs: number): string | undefined {
  if (expiry.kind !== 'at' || expiry.ms > nowMs) return undefined;
  return `${isoSeconds(expiry.ms)} is in the past`;
}

/** An expiry at a time (parseInstant), in the future at `nowMs` (pastExpiry). */
export function parseTime(raw: string, nowMs: number): Parsed<Expiry> {
  const parsed = parseAt(raw);
  if (!parsed.ok) return parsed;
  const past = pastExpiry(parsed.value, nowMs);
  return past === undefined ? parsed : { ok: false, message: past };
}

/**
 * The time a run's durations count from (`ms`); `use()` gives it when a duration is counted from
 * it, so the command can say where it comes from (src/commands/platform-clock.ts) only then.
 */
export interface Anchor {
  readonly ms: number;
  use(): number;
}

/** The expires_at an expiry gives when counted from `anchorMs`; null for a permanent grant. */
export function expiresAt(expiry: Expiry, anchorMs: number): string | null {
  if (expiry.kind === 'never') return null;
  return isoSeconds(expiry.kind === 'in' ? anchorMs + expiry.ms : expiry.ms);
}

export function describeExpiry(expiry: Expiry): string {
  if (expiry.kind === 'never') return 'never';
  return expiry.kind === 'in' ? `in ${expiry.text}` : `at ${isoSeconds(expiry.ms)}`;
}
