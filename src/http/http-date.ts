/**
 * HTTP-dates (RFC 9110 §5.6.7), the one reading of a Date and a Retry-After header: always GMT,
 * in the three forms a recipient MUST accept, never in the machine's zone. `Date.parse` read the
 * asctime form (`Wed Nov 25 19:55:39 2026`, no zone written) in local time, and svc then "learned"
 * the platform's clock was hours off and counted --expires-in and --since from it (attack19 F5).
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT` and RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`; also
 * an RFC 5322 date with a numeric zone (`+0000`) or UT/UTC, as a message forwarded from mail may
 * carry (RFC 9110 §5.6.7: recipients are encouraged to be robust). No zone written: GMT.
 */
const DAY_FIRST =
  /^(?:[a-z]+,\s*)?(\d{1,2})[ -]([a-z]{3})[ -](\d{4}|\d{2})\s+(\d{2}):(\d{2}):(\d{2})(?:\s*(GMT|UTC?|Z|[+-]\d{4}))?$/i;
/** asctime `Sun Nov  6 08:49:37 1994` (the day padded with a space), always GMT. */
const ASCTIME = /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})(?:\s+GMT)?$/i;

/**
 * An HTTP-date in ms since the epoch; NaN when it is none of its forms or names no real moment
 * (30 February, hour 24). A two-digit year (RFC 850) more than 50 years after `nowMs`'s year is the
 * latest past year with those digits, as RFC 9110 §5.6.7 says.
 */
export function httpDate(value: string | undefined, nowMs: number = Date.now()): number {
  if (value === undefined) return Number.NaN;
  const text = value.trim();
  const dayFirst = DAY_FIRST.exec(text);
  if (dayFirst) {
    const [, day, month, year, h, mi, s, zone] = dayFirst;
    return at(fullYear(year!, nowMs), month!, day!, [h!, mi!, s!], offsetMs(zone));
  }
  const asctime = ASCTIME.exec(text);
  if (asctime) {
    const [, month, day, h, mi, s, year] = asctime;
    return at(Number(year), month!, day!, [h!, mi!, s!], 0);
  }
  return Number.NaN;
}

function fullYear(year: string, nowMs: number): number {
  if (year.length === 4) return Number(year);
  const thisYear = new Date(nowMs).getUTCFullYear();
  const full = thisYear - (thisYear % 100) + Number(year);
  return full > thisYear + 50 ? full - 100 : full;
}

/** The zone's distance ahead of GMT, in ms: GMT, UT, UTC and Z are 0. */
function offsetMs(zone: string | undefined): number {
  const numeric = /^([+-])(\d{2})(\d{2})$/.exec(zone ?? '');
  if (!numeric) return 0;
  const [, sign, hours, minutes] = numeric;
  if (Number(hours) > 23 || Number(minutes) > 59) return Number.NaN;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60_000;
}

function at(year: number, monthName: string, day: string, [h, mi, s]: string[], offset: number): number {
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const fields = [Number(day), Number(h), Number(mi), Number(s)] as const;
  const date = new Date(Date.UTC(year, month, ...fields));
  const real =
    month >= 0 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month &&
    date.getUTCDate() === fields[0] &&
    date.getUTCHours() === fields[1] &&
    date.getUTCMinutes() === fields[2] &&
    date.getUTCSeconds() === fields[3];
  return real ? date.getTime() - offset : Number.NaN;
}
