/**
 * Text helpers shared by every renderer: times and cell values.
 */

import { jsonAsTheyCame } from '../api/numbers-as-they-came.js';
import { isoSeconds, serverTime } from '../api/time.js';
import { escapeForTerminal, escapeJsonForTerminal } from './sanitize.js';
import { sym } from './symbols.js';

/**
 * One table or TSV cell: one line, control characters made visible (sanitize.ts). A list's items
 * are joined with "," and a comma inside an item is written %2C, so the cell splits back into its
 * items (`tr , '\n'`): a redirect URI `…?x=1,https://evil.example/cb` never reads as two URIs.
 * A terminal's table and record join them with ", " instead (terminalCellText).
 */
export function cellText(value: unknown): string {
  return joinedCellText(value, ',');
}

/**
 * One cell of a terminal's table or record: as cellText, a list's items joined with ", " for
 * people (attack26a F12: `oauth get`, `webhooks ls`, `oauth ls` showed `a,b` where `webhooks get`
 * and `roles get` showed `a, b`). A pipe's TSV keeps "," (cellText): scripts split on it.
 */
export function terminalCellText(value: unknown): string {
  return joinedCellText(value, ', ');
}

function joinedCellText(value: unknown, separator: ',' | ', '): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => listItemText(cellText(v))).join(separator);
  if (typeof value === 'object') return jsonCellText(value);
  return escapeForTerminal(String(value).replace(/[\t\r\n]+/g, ' '));
}

/**
 * One item of a list shown on one line (a list cell, a plan's list field): a comma inside it
 * written %2C, so the items joined with commas split back into the same items.
 */
export function listItemText(text: string): string {
  return text.replace(/,/g, '%2C');
}

/**
 * A JSON value as a cell (records ls's fields, a records get field line): one line, every number
 * as it came, and DEL, C1 and bidi controls as JSON escapes (`\u009b`, not the terminal's `\x9b`,
 * which is not JSON), so each cell still parses to the same document and nothing reaches a terminal raw.
 */
export function jsonCellText(value: unknown): string {
  return escapeJsonForTerminal(jsonAsTheyCame(value));
}

/**
 * A value an error message repeats (`got "…"`), quoted as JSON: whole up to 200 characters (a
 * mistake is as often at the end, a port or a last character, as at the start), else its first
 * 60, its last 40 and its length, `"aaaa…zzzz" (100000 characters)`. A huge value repeated whole
 * made a 100 KB "one-line" error that a pipe could cut short, and a --json error that no longer
 * parsed. A URL's user name and password are masked by the caller (redactUrlText). A value that
 * is not text (a number, a map or a list of a JSON row or a YAML file) is its JSON text, bounded
 * the same way: `got 5`, `got {"a":1}`, `got {"a":"aaa…zzz"} (100000 characters)`.
 */
export function quoted(value: unknown): string {
  const text =
    typeof value === 'string' || typeof value === 'bigint'
      ? String(value)
      : (jsonAsTheyCame(value) ?? String(value));
  const show = typeof value === 'string' ? JSON.stringify : (part: string) => part;
  const characters = [...text];
  if (characters.length <= 200) return show(text);
  const start = characters.slice(0, 60).join('');
  const end = characters.slice(-40).join('');
  return `${show(`${start}${sym.ellipsis}${end}`)} (${characters.length} characters)`;
}

/**
 * An error's text with every run of over 200 characters without a space (an id or a path a user
 * gave, repeated by svc or by the server's "no route …") cut as `quoted` cuts a value: its first 60,
 * its last 40 and its length, `xxxx…xxxx (10000 characters)`. A 10,000-character id made a 20 KB
 * "one-line" error (attack24c F4); one rule for every error, whoever wrote its words. What is
 * in backquotes, a command to run, is left whole.
 */
export function cutLongRuns(text: string): string {
  // A command svc gives to run (`svc records ls … --cursor …`, in backquotes) stays whole: cut, it
  // could not be pasted.
  return text
    .split(/(`[^`]*`)/u)
    .map((part) => (part.startsWith('`') ? part : cutRuns(part)))
    .join('');
}

function cutRuns(text: string): string {
  return text.replace(/\S{201,}/gu, (run) => {
    const all = [...run];
    if (all.length <= 200) return run;
    return `${all.slice(0, 60).join('')}${sym.ellipsis}${all.slice(-40).join('')} (${all.length} characters)`;
  });
}

/**
 * A time (ms, or a server's text: serverTime, so one without a zone is UTC) as a point in time, or
 * NaN: the one reading under rfc3339 and relativeTime.
 */
const instant = (value: string | number): number =>
  typeof value === 'number' ? new Date(value).getTime() : serverTime(value);

/** RFC 3339 in UTC with second precision, e.g. 2026-01-02T03:04:05Z; input that is not a time passes through. */
export function rfc3339(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return cellText(value);
  const ms = instant(value);
  return Number.isNaN(ms) ? cellText(value) : isoSeconds(ms);
}

/**
 * A time svc stored (milliseconds included) as the API writes its times, RFC 3339 in whole
 * seconds, for --json output (`login`, `auth status`); null when there is none, and text that is
 * not a time as it is.
 */
export function inWholeSeconds(time: string | undefined): string | null {
  if (time === undefined) return null;
  const ms = serverTime(time);
  return Number.isNaN(ms) ? time : isoSeconds(ms);
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 24 * HOUR;
const YEAR = 365.25 * DAY;
const MONTH = YEAR / 12;

/**
 * The units of a relative time, largest first: each is used from two of it, less its spare (SPARE:
 * 118 s is "118 seconds", 119 s "2 minutes"; 35 h "35 hours", not "1 day"; 44 days, not "1 month";
 * 23 months, not "1 year"), so the count (relativeTime) is never less than two thirds of the distance.
 */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, size: number]> = [
  ['year', YEAR],
  ['month', MONTH],
  ['day', DAY],
  ['hour', HOUR],
  ['minute', MINUTE],
];

/**
 * How far short of a whole unit a distance may fall and still count it, in seconds: a sixtieth of
 * the unit, never more than a minute for minutes, hours and days (a second of a minute, a minute of
 * an hour or a day: the moment between a grant's making and its showing), nor more than a day for
 * months and years, which are average lengths (a calendar month is 28 to 31 days; 365 days is a
 * quarter of a day short of the average year, and "11 months" for it would read as a wrong count).
 * Not a sixtieth of any unit (review22b F5: that overstated 47 h 36 min as "2 days", 724.5 days as
 * "2 years").
 */
const spare = (size: number) => Math.min(size / 60, size >= MONTH ? DAY : MINUTE);

let relativeFormat: Intl.RelativeTimeFormat | undefined;

/**
 * "3 hours ago", "in 35 hours", "now"; input that is not a time passes through. The count is of
 * whole units the distance has reached, never rounded up (attack22 F8: 90 minutes of access was
 * "in 2 hours", 18 months "in 2 years"; how long a grant lasts is not to be overstated), with a
 * spare (a second of a minute, a minute of any larger unit), so a grant of 8 hours made a moment
 * ago (7 h 59 min 59.9 s) expires "in 8 hours", one of 90 minutes "in 90 minutes", 2 h 59 min "in
 * 2 hours": a distance is overstated by at most a second in minutes, a minute in hours and days,
 * and half a day in months (a day in years), whose lengths are averages.
 * The one rule both ways ("2 hours ago" for 2 h 59 min). Never calendar words ("tomorrow", "next
 * year"): a count of units is not a calendar day or year, so the count is always a number
 * (`numeric: 'always'`).
 */
export function relativeTime(value: unknown, nowMs: number): string {
  if (typeof value !== 'string' && typeof value !== 'number') return cellText(value);
  const then = instant(value);
  if (Number.isNaN(then)) return cellText(value);
  const seconds = (then - nowMs) / 1000;
  if (Math.abs(seconds) < 10) return 'now';
  relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  const units = (size: number) => Math.floor((Math.abs(seconds) + spare(size)) / size);
  const [unit, size] = UNITS.find(([, size]) => units(size) >= 2) ?? ['second', 1];
  return relativeFormat.format(Math.sign(seconds) * units(size), unit);
}

/**
 * `1 holder`, `2 holders`, `1,200 deliveries` (with `many` for an irregular plural). The words
 * may carry what agrees with the count, so a sentence is written once:
 * `counted(n, 'user holds it', 'users hold it')`.
 */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} ${count === 1 ? one : many}`;
}

/**
 * "1 of 1 item", "2 of 3 items", "1 of 1,500 items": a part of a whole, the noun counted by the
 * whole. The one rule of counted nouns (`counted`) for bulk and export lines, which said
 * `item(s)`, `tenant(s)` (attack26a F11).
 */
export function countedOf(count: number, total: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en')} of ${counted(total, one, many)}`;
}

/**
 * A length of time to the minute, without a direction: "2 h 30 min", "2 h", "45 min", "3 d 1 h"
 * (under half a minute: "0 min"). Rounded to the nearest minute, so two measures of one span that
 * differ by a second (a Date header's precision) read alike.
 */
export function timeSpan(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const parts = [
    days ? `${days.toLocaleString('en')} d` : '',
    hours ? `${hours} h` : '',
    minutes % 60 ? `${minutes % 60} min` : '',
  ];
  return parts.filter(Boolean).join(' ') || '0 min';
}

/** Masks a credential for display: a short known prefix and the last four characters. */
export function maskSecret(secret: string): string {
  if (secret.length <= 12) return '****';
  const prefix = /^(svc_[a-z]+_|eyJ|Bearer )/.exec(secret)?.[0] ?? '';
  return `${prefix}****${secret.slice(-4)}`;
}

/** A few names, then how many more: `a, b, c, d, e and 3 more` (a one-line message stays one line). */
export function someNames(names: readonly string[], few = 5): string {
  const shown = names.slice(0, few).join(', ');
  return names.length > few ? `${shown} and ${names.length - few} more` : shown;
}

/** Facts in one sentence: `a`, `a and b`, `a, b and c`. */
export function andList(facts: readonly string[]): string {
  return facts.length > 1 ? `${facts.slice(0, -1).join(', ')} and ${facts.at(-1)}` : (facts[0] ?? '');
}

/**
 * The first words of a server's sentence that are common words, lowered after a label: any other
 * capitalised first word may be a name (`Acme Treasury keys …`, `Stripe requires …`) and stays
 * as written (review27a F8), as acronyms and identifiers do (API, OAuth, SVC_TOKEN, X-Tenant-Id).
 */
const COMMON_FIRST_WORDS = new Set(
  (
    'a an the this that these those it its you your we our please store save keep copy write ' +
    'record note make use do never always wait rotate revoke treat only'
  ).split(' '),
);

/** A last word whose dot is its own: an abbreviation (`e.g.`, `i.e.`, `etc.`), not a full stop. */
const ABBREVIATION = /(?:\b[a-z]\.[a-z]|\b(?:etc|inc|ltd|co|vs))\.$/i;

/**
 * A line after a label (`warning: `, `✓ `, `error: `) goes on in lower case with no closing full
 * stop, as every line svc writes itself does; a server's sentence put there (the `warning` of a
 * secret shown once: "Store this key now: … later.") is written the same way, so far as that is
 * sure not to change its meaning: only a common first word is lowered (COMMON_FIRST_WORDS), and
 * a closing dot that ends an abbreviation stays.
 */
export function afterLabel(text: string): string {
  const trimmed = text.trim();
  const stopped = /(?<!\.)\.$/.test(trimmed) && !ABBREVIATION.test(trimmed) ? trimmed.slice(0, -1) : trimmed;
  const first = /^[A-Z][a-z]+(?![\w-])/.exec(stopped)?.[0];
  return first !== undefined && COMMON_FIRST_WORDS.has(first.toLowerCase())
    ? `${stopped[0]!.toLowerCase()}${stopped.slice(1)}`
    : stopped;
}
