/**
 * Is an answer the platform's stored answer to an earlier request with the same idempotency key
 * (markedReplayed, src/http/replayed.ts), and is the secret it carries still the current one
 * (sameRotation)? Only the headers say the first: an object's time
 * against the server's Date is two clocks (a gateway's ahead, a time without a zone), which made
 * this run's creation an earlier run's (review18b R1, review19 F7). A creation under the user's own
 * key is checked whatever the headers say (createOnce's `unmarked`).
 */
import { clearlyAfter, isoTime } from '../api/time.js';

export { markedFresh, markedReplayed, REPLAYED_HEADERS } from '../http/replayed.js';

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

/**
 * Evidence of a secret beyond its rotation times, nothing sent (a fingerprint on the record, the
 * secrets rotated out then): whether the stored answer's secret (`stored`) is still the current one
 * of the object as it is now (`now`): true, false, or undefined (the server gives none).
 */
export type SecretEvidence = (
  stored: Record<string, unknown>,
  now: Record<string, unknown>,
) => boolean | undefined;

/** The fields a read of an object shows of its secret (its rotation time and the evidence's). */
const SECRET_STATE = [
  'secret_rotated_at',
  'secret_sha256_prefix',
  'secret_last4',
  'previous_secrets',
] as const;

/**
 * Whether a read after a request shows its object as the read before it did (`before`, nothing
 * sent then), as far as its secret goes: a read that lags behind the request's own write (a
 * replica still serving the object as it was), review29b H1.
 */
function showsTheOldState(
  before: Record<string, unknown> | undefined,
  now: Record<string, unknown>,
): boolean {
  if (!before) return false;
  return SECRET_STATE.every((field) => JSON.stringify(before[field]) === JSON.stringify(now[field]));
}

/**
 * What became of the secret in a stored answer (a rotation's or a creation's), judged against its
 * object as it is now: 'rotated-since' (a later rotation time proves it, sameRotation); 'replaced'
 * (the evidence tells another secret, and the read shows a rotation in the answer's own second,
 * or a server that gives no time, and not the object as it was before the request, `before`);
 * 'lagging' (the evidence tells another secret, but the read shows the object as it was before:
 * no rotation time while the answer has one, one clearly before the answer's, or the very state
 * the read before the request showed: a read that lags proves nothing, review29b H1); 'current'
 * (the same rotation, proven by times to the millisecond or by the evidence; or no rotation time
 * now to compare); or 'tie': whole-second times that cannot tell it from another rotation in that
 * second, and no evidence. One rule for rotations and replayed creations (brief s29 fixrot 2),
 * whose stored answers carry no rotation time: their creation's.
 */
export function storedSecretNow(
  stored: { secret_rotated_at?: string | null; created_at?: string | null },
  now: { secret_rotated_at?: string | null },
  evidence?: SecretEvidence,
  before?: Record<string, unknown>,
): 'current' | 'rotated-since' | 'replaced' | 'lagging' | 'tie' {
  if (!sameRotation(now.secret_rotated_at, stored.secret_rotated_at, stored.created_at))
    return 'rotated-since';
  const then = stored.secret_rotated_at || stored.created_at;
  if (now.secret_rotated_at && then && provenSameRotation(now.secret_rotated_at, then)) return 'current';
  const verdict = evidence?.(stored as Record<string, unknown>, now as Record<string, unknown>);
  if (verdict === false) {
    const older = stored.secret_rotated_at
      ? !now.secret_rotated_at || clearlyAfter(stored.secret_rotated_at, now.secret_rotated_at)
      : false;
    return older || showsTheOldState(before, now as Record<string, unknown>) ? 'lagging' : 'replaced';
  }
  if (verdict === true || !now.secret_rotated_at || !then) return 'current';
  return 'tie';
}
