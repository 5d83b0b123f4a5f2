/**
 * Is an answer the platform's stored answer to an earlier request with the same idempotency key
 * (markedReplayed, src/http/replayed.ts), and is the secret it carries still the current one
 * (sameRotation)? Only the headers say the first: an object's time
 * against the server's Date is two clocks (a gateway's ahead, a time without a zone), which made
 * this run's creation an earlier run's (review18b R1, review19 F7). A creation under the user's own
 * key is checked whatever the headers say (createOnce's `unmarked`).
 */
import { clearlyAfter, isoTime } from '../api/time.js';

export { markedReplayed, REPLAYED_HEADERS } from '../http/replayed.js';

/**
 * Whether the secret as it is now (`now`) is still the one a stored answer carries (`then`), by
 * their rotation times. Only a read time certainly after the answer's (clearlyAfter: later by more
 * than the coarser precision, so `…:13Z` read back for `…:13.437Z` is the same rotation) proves a
 * later rotation; a time the read does not give (a server that omits it, a read that lags) proves
 * none. An answer that says none yet (null) is compared with its object's `createdAt`: a server
 * whose "last rotated" starts at creation reads it back as that time, no rotation (review19 F4).
 * Withholding a secret that is still the current one would lose it: the old one already stopped
 * working (review18b R6).
 */
export function sameRotation(
  now: string | null | undefined,
  then: string | null | undefined,
  createdAt?: string | null,
): boolean {
  if (!now) return true;
  const since = then || createdAt;
  if (!since) return false;
  return !clearlyAfter(now, since);
}

/**
 * Whether two rotation times prove one rotation: the same instant written to the millisecond or
 * finer. In whole seconds (the platform's form) they do not: another rotation in that second reads
 * back as the same time (attack28b F2), so sameRotation's "no later rotation" is then no proof
 * that the secret is still the current one.
 */
export function provenSameRotation(now: string, then: string): boolean {
  const [x, y] = [isoTime(now), isoTime(then)];
  return x !== undefined && y !== undefined && x.precisionMs < 1000 && y.precisionMs < 1000 && x.ms === y.ms;
}
