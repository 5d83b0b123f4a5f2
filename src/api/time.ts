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

/**
 * Whether two times a server wrote are the same instant however written (`…Z`, `…+00:00`, with
 * milliseconds); text that is not a time is the same only as the same text.
 */
export function sameInstant(a: string, b: string): boolean {
  const [x, y] = [Date.parse(a), Date.parse(b)];
  return Number.isFinite(x) && Number.isFinite(y) ? x === y : a === b;
}

/** When an expiry (expires_at) ends a grant, in ms; a permanent one (null) never does. */
export const endMs = (expiresAt: string | null): number =>
  expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(expiresAt);

/** Milliseconds in one of each duration unit. */
export const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type DurationUnit = keyof typeof UNIT_MS;
