/**
 * Is an answer the platform's stored answer to an earlier request with the same idempotency key?
 * The reference names no header for it (Errors 1 says only that the identifier is stable under
 * idempotency): the sandbox says `Idempotent-Replayed: true`, other servers spell it otherwise or
 * not at all (attack18b 1). So svc reads the usual spellings, and, for a creation under the user's
 * own key, the object's own time: made clearly before this request was first sent, it is not this
 * request's doing (never for a key svc chose: two clocks, review18b R1).
 */
import { type Headers, header } from '../http/client.js';

/** The spellings of "this is a stored answer" svc reads (Stripe's, the IETF draft's, and prefixed). */
export const REPLAYED_HEADERS = [
  'idempotent-replayed',
  'idempotency-replayed',
  'x-idempotent-replayed',
  'x-idempotency-replayed',
  'idempotency-key-replayed',
  'x-idempotency-key-replayed',
] as const;

/** One of REPLAYED_HEADERS says true (`true`, `1` or `yes`, any case). */
export function markedReplayed(headers: Headers): boolean {
  return REPLAYED_HEADERS.some((name) => /^\s*(true|1|yes)\s*$/i.test(header(headers, name) ?? ''));
}

/**
 * How much earlier than the request an object's time must be to count as made before it: the
 * server's Date and the object's time may come from two clocks (a gateway's and the platform's).
 */
export const SKEW_MS = 60_000;

/**
 * The answer's object was made (`madeAt`, on the platform's clock) clearly before this request was
 * first sent: the server's Date header, less the time the request took (all its attempts), less
 * SKEW_MS. Without a Date header or a readable time, nothing is concluded.
 */
export function madeBeforeSent(madeAt: unknown, headers: Headers, tookMs: number): boolean {
  if (typeof madeAt !== 'string') return false;
  const made = Date.parse(madeAt);
  const date = header(headers, 'date');
  const answered = date === undefined ? Number.NaN : Date.parse(date);
  if (!Number.isFinite(made) || !Number.isFinite(answered)) return false;
  return made < answered - tookMs - SKEW_MS;
}
