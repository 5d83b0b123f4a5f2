/**
 * Time values shared by the CLI and the sandbox: the API's timestamp format and the units of
 * the short durations (`30s`, `30m`, `8h`, `7d`) that flags and files accept.
 */

/** ISO 8601 UTC with second precision, the API's timestamp format, e.g. 2026-01-02T03:04:05Z. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * An instant a user gave, in UTC as the platform takes it: to the millisecond when it has a
 * fraction of a second (the platform compares to the millisecond: cut to the second, `--until
 * T.9Z` would leave out an entry of T.5), else to the second as isoSeconds.
 */
export function isoInstant(ms: number): string {
  return ms % 1000 === 0 ? isoSeconds(ms) : new Date(ms).toISOString();
}

/** An ISO 8601 date and time: `T` or a space between them, seconds and a fraction optional, any zone. */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO 8601 time read: its instant, whether it named a zone, and how finely it was written. */
export interface IsoTime {
  ms: number;
  zoned: boolean;
  /** 1000 for whole seconds (`…:13Z`), 1 for milliseconds (`…:13.437Z`), less for finer, 60 000 without seconds. */
  precisionMs: number;
}

/**
 * An ISO 8601 / RFC 3339 date and time that names a real moment (no 30 February, no hour 24, no
 * second 60, an offset under 24 hours), in ms, whether it was written with a zone (`Z` or an
 * offset), and to what precision (read by the same grammar, so `T`, `t` and a space are alike);
 * undefined for anything else. Computed from its fields, never by `Date.parse`, which
 * reads a time without a zone in the machine's zone (and other shapes as the engine likes): the
 * one reading under serverTime and the user's time flags (parseInstant, src/api/expiry.ts).
 */
export function isoTime(text: string): IsoTime | undefined {
  const match = ISO_TIME.exec(text.trim());
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const ms = Number((match[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const at = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms));
  if (
    at.getUTCFullYear() !== y ||
    at.getUTCMonth() !== mo! - 1 ||
    at.getUTCDate() !== d ||
    at.getUTCHours() !== h ||
    at.getUTCMinutes() !== mi ||
    at.getUTCSeconds() !== s
  ) {
    return undefined;
  }
  const precisionMs = match[6] === undefined ? 60_000 : 1000 / 10 ** (match[7]?.length ?? 0);
  const zone = match[8];
  if (zone === undefined) return { ms: at.getTime(), zoned: false, precisionMs };
  if (/^z$/i.test(zone)) return { ms: at.getTime(), zoned: true, precisionMs };
  const [, sign, oh, om] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const [hours, minutes] = [Number(oh), Number(om ?? 0)];
  if (hours > 23 || minutes > 59) return undefined;
  const offset = (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  return { ms: at.getTime() - offset, zoned: true, precisionMs };
}

/**
 * A time a server wrote (or svc's own files: journals, credentials), in ms; NaN when it is not an
 * ISO 8601 time. The platform's timestamps are UTC (the reference: "ISO 8601 UTC strings"), so
 * one written without a zone (`2026-11-25T21:51:20`, as Python's isoformat() writes a UTC time)
 * is read as UTC, and `Z`, `+00:00` and other offsets as they say: never in the machine's zone,
 * where the same answer was another instant in each TZ (attack19 F2). A time the user gives
 * without a zone is refused instead (parseInstant): the user can add the Z, a server's answer
 * cannot be asked again.
 */
export function serverTime(text: unknown): number {
  return typeof text === 'string' ? (isoTime(text)?.ms ?? Number.NaN) : Number.NaN;
}

/**
 * A server's time as svc writes times (isoInstant: UTC with a Z, the milliseconds only when it has
 * some), for a file svc reads back (an export): a zone-less one would be refused there as a user's
 * (parseInstant). Text that is not a time stays as it came.
 */
export function utcText(text: string): string {
  const ms = serverTime(text);
  return Number.isFinite(ms) ? isoInstant(ms) : text;
}

/**
 * Whether two times a server wrote are the same instant however written (`…Z`, `…+00:00`, with
 * milliseconds, without a zone: serverTime); text that is not a time is the same only as the same text.
 */
export function sameInstant(a: string, b: string): boolean {
  const [x, y] = [serverTime(a), serverTime(b)];
  return Number.isFinite(x) && Number.isFinite(y) ? x === y : a === b;
}

/**
 * Whether `later` is certainly after `earlier`, each as precisely as it is written. Two times
 * written to one precision were cut (or rounded) alike, so a later one is a later instant. Written
 * to two (an answer from memory with milliseconds, a read from a column in whole seconds), the
 * finer may be the coarser's very instant: only later by more than the coarser precision is after
 * (read back for an answer's `…:13.437Z`, neither `…:13Z` nor `…:14Z` is; `…:15Z` is). Text that
 * is not a time is after only when it differs (it cannot be ordered, so it is taken as another).
 */
export function clearlyAfter(later: string, earlier: string): boolean {
  const [x, y] = [isoTime(later), isoTime(earlier)];
  if (!x || !y) return later !== earlier;
  return x.precisionMs === y.precisionMs ? x.ms > y.ms : x.ms - y.ms > Math.max(x.precisionMs, y.precisionMs);
}

/** When an expiry (expires_at) ends a grant, in ms (serverTime); a permanent one (null) never does. */
export const endMs = (expiresAt: string | null): number =>
  expiresAt === null ? Number.POSITIVE_INFINITY : serverTime(expiresAt);

/**
 * Whether two expiries are the same end: both permanent (null), or the same instant however
 * written (sameInstant: `…Z`, `…+00:00`, no zone). Never as text: a server's `+00:00` against
 * svc's own `Z` is no change (review19b F2).
 */
export const sameExpiry = (a: string | null, b: string | null): boolean =>
  a === null || b === null ? a === b : sameInstant(a, b);

/** Milliseconds in one of each duration unit. */
export const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;
