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

/** One of REPLAYED_HEADERS says true (`true`, `1` or `yes`, any case). */
export function markedReplayed(headers: Headers): boolean {
  return REPLAYED_HEADERS.some((name) => /^\s*(true|1|yes)\s*$/i.test(header(headers, name) ?? ''));
}
