/**
 * Whether an answer says it is the platform's stored answer to an earlier request with the same
 * idempotency key. The reference names no header for it (Errors 1 says only that the identifier is
 * stable under idempotency): the sandbox says `Idempotent-Replayed: true`, other servers spell it
 * otherwise or not at all (attack18b 1), so svc reads the usual spellings, and nothing else. Here,
 * in the HTTP room, as the rule for a refusal after a lost answer needs it (refusalAfterLostAnswer);
 * src/platform/stored-answer.ts gives it to the rest.
 */
import { header } from './headers.js';
import type { Headers } from './send.js';

/** The spellings of "this is a stored answer" svc reads (Stripe's, the IETF draft's, and prefixed). */
export const REPLAYED_HEADERS = [
  'idempotent-replayed',
  'idempotency-replayed',
  'x-idempotent-replayed',
  'x-idempotency-replayed',
  'idempotency-key-replayed',
  'x-idempotency-key-replayed',
] as const;

/**
 * One of REPLAYED_HEADERS says false (`false`, `0` or `no`, any case) and none says true: the
 * server marks this answer as no stored one, a fresh answer to the request just sent (review29b
 * M4). A server that marks only its stored answers gives a fresh one no mark, which svc cannot tell
 * from the stored answer of a server that marks none.
 */
export function markedFresh(headers: Headers): boolean {
  return (
    !markedReplayed(headers) &&
    REPLAYED_HEADERS.some((name) => /^\s*(false|0|no)\s*$/i.test(header(headers, name) ?? ''))
  );
}

/** One of REPLAYED_HEADERS says true (`true`, `1` or `yes`, any case). */
export function markedReplayed(headers: Headers): boolean {
  return REPLAYED_HEADERS.some((name) => /^\s*(true|1|yes)\s*$/i.test(header(headers, name) ?? ''));
}
