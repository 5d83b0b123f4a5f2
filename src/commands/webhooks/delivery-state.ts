/**
 * A delivery's status word as svc reads it: in any case (`DELIVERED` is delivered, as `ACTIVE` is an
 * active assignment: assignmentInForce). Every comparison of a delivery's status goes through it;
 * the word is shown as it came.
 */
export function deliveryWord(d: { status?: unknown }): string {
  return typeof d.status === 'string' ? d.status.toLowerCase() : '';
}

/**
 * A delivery's state, the one rule every command reads a delivery's status word by (the API's
 * summary counts them so: delivered, failed, recovered, in flight), the word in any case
 * (deliveryWord): `delivered`, and `recovered` too (it failed, then its event reached the target
 * by another delivery of it, a later replay: never a failure); `failed` (its attempts used up,
 * dead-lettered); `in_flight` (pending, or retrying after a failed attempt); `unknown`: a status
 * svc does not know (the reference does not enumerate them; another server's `succeeded`), which is
 * neither a delivery nor a failure (attack18b 10).
 */
export function deliveryState(d: { status: unknown }): 'delivered' | 'failed' | 'in_flight' | 'unknown' {
  const word = deliveryWord(d);
  if (word === 'delivered' || word === 'recovered') return 'delivered';
  if (word === 'failed') return 'failed';
  return word === 'pending' || word === 'retrying' ? 'in_flight' : 'unknown';
}

/** A status svc does not know, in words: `status "succeeded" (not known to svc), HTTP 200`. */
export function unknownStatusText(d: { status: string; last_status_code?: number | null }): string {
  const http = typeof d.last_status_code === 'number' ? `, HTTP ${d.last_status_code}` : '';
  return `status ${JSON.stringify(d.status)} (not known to svc)${http}`;
}

/**
 * What a delivery's view (`deliveries get`, the list's error column) says of its last error, by its
 * state: `remedy`, a failure svc knows (failed, or in flight after a failed attempt): the error, its
 * cause and what to do; `history`, delivered after all (recovered): the error and cause it had, and
 * a remedy that says none is needed (failureRemedy: a replay would send its event again); `none`, delivered, or a status svc does not know
 * (its last error may be an attempt before it succeeded: the attempts say what each did).
 */
export function lastErrorShown(d: { status: string }): 'remedy' | 'history' | 'none' {
  const state = deliveryState(d);
  if (state === 'failed' || state === 'in_flight') return 'remedy';
  return deliveryWord(d) === 'recovered' ? 'history' : 'none';
}

/** A status word for people: as it came, said not known to svc when it is not (`succeeded (not known to svc)`). */
export function statusText(d: { status: string }): string {
  return deliveryState(d) === 'unknown' ? `${d.status} (not known to svc)` : d.status;
}
