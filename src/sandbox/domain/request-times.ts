import { isoTime } from '../../api/time.js';
import { DomainError } from './errors.js';

/**
 * A time a request gives (a body's `expires_at`, a query's `since`/`until`), the schema's
 * `date-time` taken, as ms: the one strict reading of them all (isoTime, as svc reads its user's
 * times; never `Date.parse`). RFC 3339 allows a leap second (second 60), which the platform does
 * not take (its clock and Date have none): refused as such, naming the seconds either side — never
 * read as NaN, which an `expires_at` judged "not in the future" and a `since` matched nothing with
 * (attack22 F7: an audit trail `since` of 23:59:60Z answered an empty list). A time without a
 * zone, which the schema refuses first, is refused here too. `field` names it in the 400.
 */
export function requestTimeMs(field: string, raw: string): number {
  const time = isoTime(raw);
  if (time?.zoned) return time.ms;
  const leap = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}):60/.exec(raw);
  const message = leap
    ? `${field} ${raw} is a leap second (second 60), which the platform does not take; give ${leap[1]}:59${raw.slice(leap[0].length).replace(/^[.,]\d+/, '')} or the next second`
    : `${field} ${raw} is not a time the platform can read`;
  throw new DomainError('invalid_request', message, [
    { field, message: leap ? 'is a leap second; give second 59 or the next second' : 'is not a time' },
  ]);
}

/** An optional query time (requestTimeMs); undefined when not given. */
export const queryTimeMs = (field: string, raw: string | undefined): number | undefined =>
  raw === undefined ? undefined : requestTimeMs(field, raw);
