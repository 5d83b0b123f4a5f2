/**
 * Expiry of a role grant: a duration (`30m`, `8h`, `7d`), an absolute ISO 8601 time, or `never`
 * (a permanent grant). Parsers return a message instead of throwing, so flags, file rows and
 * prompts can each put it in their own words. A bad value is repeated through quoted() (bounded:
 * its start, its end and its length when long), as every value an error echoes.
 */

import { quoted } from '../output/format.js';
import { type DurationUnit, isoSeconds, isoTime, UNIT_MS } from './time.js';

export type Expiry =
  | { kind: 'in'; ms: number; text: string }
  | { kind: 'at'; ms: number }
  | { kind: 'never' };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export const MAX_DURATION_DAYS = 365;
export const DURATION_FORMS = '30m, 8h, 7d';
/** parseDuration's grammar as a JSON Schema pattern (for editors); svc itself runs the parser. */
export const DURATION_PATTERN = '^\\s*(\\d+\\s*[mhdHD]|[Nn][Ee][Vv][Ee][Rr])\\s*$';

/** A span read by the one duration grammar (parseSpan): its milliseconds, unit and text (`30m`). */
export interface Span {
  ms: number;
  unit: DurationUnit;
  text: string;
}

/**
 * What a flag takes of parseSpan's grammar, for the months advice: `instead` ends it, what the flag
 * takes besides a duration ("an end time", "a date"); `takes` says whether the flag takes a span
 * (the `Nm` the advice would suggest); `minutes` is the flag's range in minutes, said when it does
 * not (review22b F4: --since was told the grant-expiry range, 1m to 525600m).
 */
export interface SpanFlag {
  instead: string;
  takes: (span: Span) => boolean;
  minutes: string;
}

/**
 * The one duration grammar of svc (attack22 F9): a whole number and a unit, `s`, `m`, `h` or `d`
 * (`30s`, `30m`, `8h`, `7d`), a space between them allowed, `S`, `H` and `D` read as `s`, `h` and
 * `d`; `M` is refused (minutes or months?), saying which. Each flag then judges the span with its
 * own bounds and units (parseDuration: a grant's expiry; timeSpec, src/commands/time-flags.ts:
 * --since/--until back from now), in its own words, and `flag` words the months advice with that
 * flag's bounds. Undefined: not of this grammar.
 */
export function parseSpan(raw: string, flag: SpanFlag): Parsed<Span> | undefined {
  const match = /^(\d+)\s*([smhd])$/i.exec(raw.trim());
  if (!match) return undefined;
  if (match[2] === 'M') {
    // 6M reads as six months to most people; it was six minutes. The count as a number is
    // suggested (no leading zeros) only when this flag takes it (review17c C4, review22b F4).
    const count = match[1]!.replace(/^0+(?=\d)/, '');
    const asMinutes = { ms: Number(count) * UNIT_MS.m, unit: 'm' as const, text: `${count}m` };
    const minutes = flag.takes(asMinutes) ? `write ${count}m for minutes` : `minutes are m, ${flag.minutes}`;
    return {
      ok: false,
      message: `${quoted(raw)}: M is not a unit; ${minutes} (months are not a unit: use days, e.g. 30d, or ${flag.instead})`,
    };
  }
  const count = Number(match[1]);
  const unit = match[2]!.toLowerCase() as DurationUnit;
  return { ok: true, value: { ms: count * UNIT_MS[unit], unit, text: `${count}${unit}` } };
}

/**
 * `30m`, `8h`, `7d` (minutes, hours, days, at most 365 days), or `never`: a grant's expiry, the
 * grammar of `--expires-in`, a bulk file's column and an access file's `expires_in` (parseSpan's,
 * whose seconds are refused in words: a grant's expiry is a time the platform keeps to the second,
 * and a grant of seconds ends before anyone can use it).
 */
export function parseDuration(raw: string): Parsed<Expiry> {
  const text = raw.trim();
  if (text.toLowerCase() === 'never') return { ok: true, value: { kind: 'never' } };
  const span = parseSpan(raw, GRANT_EXPIRY);
  if (span === undefined) {
    return {
      ok: false,
      message: `${quoted(raw)} is not a duration: use a whole number and m, h or d (${DURATION_FORMS}), or never`,
    };
  }
  if (!span.ok) return span;
  const problem = expiryProblem(span.value);
  if (problem !== undefined) return { ok: false, message: problem(quoted(raw)) };
  return { ok: true, value: { kind: 'in', ms: span.value.ms, text: span.value.text } };
}

/** What a grant's expiry does not take of a span, worded about the value as quoted; undefined: taken. */
function expiryProblem({ ms, unit }: Span): ((value: string) => string) | undefined {
  if (ms <= 0) return (value) => `a duration must be longer than zero, got ${value}`;
  if (unit === 's') {
    return (value) =>
      `${value}: a grant's expiry is not counted in seconds; use m, h or d (${DURATION_FORMS}), at least 1m`;
  }
  if (ms > MAX_DURATION_DAYS * UNIT_MS.d) {
    return (value) =>
      `${value} is longer than ${MAX_DURATION_DAYS} days; give an end time (expires at) instead`;
  }
  return undefined;
}

/** A grant's expiry (parseDuration) as parseSpan's months advice words it. */
const GRANT_EXPIRY: SpanFlag = {
  instead: 'an end time',
  takes: (span) => expiryProblem(span) === undefined,
  minutes: `from 1m to ${MAX_DURATION_DAYS * (UNIT_MS.d / UNIT_MS.m)}m`,
};

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
  const problem = instantProblem(text);
  return {
    ok: false,
    message:
      problem === undefined
        ? `${quoted(raw)} is not an ISO 8601 time with a time zone (e.g. 2026-01-15T09:30:00Z)`
        : `${quoted(raw)} ${problem}`,
  };
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** An ISO 8601 date and time read loosely: each field as written, to name the one that is wrong. */
const LOOSE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:([T ])(\d{2}):(\d{2})(?::(\d{2})((?:[.,]\d+)?))?(\s*)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * What is wrong with a time that has the shape of an ISO 8601 time but is not one svc takes (attack22
 * F6): a day the calendar does not have, hour 24, a minute or second out of range, a leap second,
 * an offset of 24 hours or more, a space before the zone, a date alone. Undefined: no such
 * problem (another shape, or no zone, which the caller says).
 */
function instantProblem(text: string): string | undefined {
  const m = LOOSE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, sep, h, mi, s, fraction, space, zone] = m as unknown as (string | undefined)[];
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (month < 1 || month > 12) return `is not a date: month ${mo} (months are 01 to 12)`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) {
    return month === 2 && day === 29
      ? `is not a date: ${y} is not a leap year (February ${y} has 28 days)`
      : `is not a date: ${MONTHS[month - 1]} has ${days} days`;
  }
  const date = `${y}-${mo}-${d}`;
  if (sep === undefined) return `is a date alone: add a time and a time zone, e.g. ${date}T00:00:00Z`;
  const offset = zone === undefined || /^z$/i.test(zone) ? undefined : /^[+-](\d{2}):?(\d{2})?$/.exec(zone)!;
  if (offset && (Number(offset[1]) > 23 || Number(offset[2] ?? 0) > 59)) {
    return `has the offset ${zone}: an offset is less than 24 hours, from -23:59 to +23:59`;
  }
  if (Number(mi) > 59) return `has minute ${mi}: minutes are 00 to 59`;
  if (Number(s ?? 0) > 60) return `has second ${s}: seconds are 00 to 59`;
  const endOfDay =
    Number(h) === 24 && Number(mi) === 0 && Number(s ?? 0) === 0 && !/[1-9]/.test(fraction ?? '');
  if (Number(h) > 23 && !endOfDay) return `has hour ${h}: hours are 00 to 23`;
  // Hour 24 and second 60 are ISO 8601 times the platform does not take: each has its equal, said
  // in the zone given (without one, the zone is the problem to say first).
  if (zone === undefined) return undefined;
  if (endOfDay) {
    const next = new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
    return `has hour 24, which the platform does not take: for the end of ${date} write ${next}T00:00:00${zone}`;
  }
  if (s === '60') {
    // A leap second (RFC 3339 allows second 60) is an ISO 8601 time, but not one the platform takes.
    const at = `${date}${sep}${h}:${mi}`;
    return `is a leap second (second 60), which the platform does not take; give ${at}:59${zone} or the next second`;
  }
  if (space !== '') {
    return `has a space before its time zone: write ${date}T${h}:${mi}${s === undefined ? '' : `:${s}${fraction}`}${zone}`;
  }
  return undefined;
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
