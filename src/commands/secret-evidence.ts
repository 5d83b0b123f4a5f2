/**
 * What tells a stored answer's secret from the current one where whole-second rotation times
 * cannot (SecretEvidence, src/platform/stored-answer.ts): read from the object as it is now,
 * nothing sent. Both are the sandbox's (the reference gives neither); a server without them gives
 * undefined, and the times decide. Used by the rotations (rotateOnce) and the replayed creations
 * (asItIsNow) alike.
 */
import { createHash } from 'node:crypto';
import { sameInstant } from '../api/time.js';
import type { SecretEvidence } from '../platform/stored-answer.js';

/**
 * An OAuth client's: a fingerprint its record carries against the stored answer's client_secret,
 * the longer one where the server gives it (secret_sha256_prefix: the first hex characters of the
 * secret's SHA-256, brief s29 fixrot 4), else secret_last4 (review28a H2; two secrets share their
 * last four characters once in 16.7 million, and are then taken as the same): the same, current
 * (true); another, replaced (false); none, undefined. The token endpoint, asked before, could not
 * tell on many servers and withheld a live secret (a client without the refresh_token grant).
 */
export const clientSecretEvidence: SecretEvidence = (stored, now) => {
  const secret = stored.client_secret;
  if (typeof secret !== 'string' || secret.length < 4) return undefined;
  const [prefix, last4] = [now.secret_sha256_prefix, now.secret_last4];
  if (typeof prefix === 'string' && /^[0-9a-f]{8,64}$/i.test(prefix)) {
    return createHash('sha256').update(secret, 'utf8').digest('hex').startsWith(prefix.toLowerCase());
  }
  if (typeof last4 !== 'string' || last4.length !== 4) return undefined;
  return secret.endsWith(last4);
};

/**
 * A webhook's: its secrets rotated out at the stored answer's rotation time (a creation's: its
 * created_at, when none had been rotated out). Another rotation in that second rotated the answer's
 * secret out, so the webhook lists one more than the answer did (true: as many, the answer's is
 * current; false: more; undefined: a server that lists none, or fewer, attack28b F2).
 */
export const webhookSecretEvidence: SecretEvidence = (stored, now) => {
  const rotated = typeof stored.secret_rotated_at === 'string' ? stored.secret_rotated_at : undefined;
  const at = rotated ?? (typeof stored.created_at === 'string' ? stored.created_at : undefined);
  if (at === undefined) return undefined;
  const count = (webhook: Record<string, unknown>) =>
    Array.isArray(webhook.previous_secrets)
      ? webhook.previous_secrets.filter(
          (e: { rotated_out_at?: unknown } | null) =>
            typeof e?.rotated_out_at === 'string' && sameInstant(e.rotated_out_at, at),
        ).length
      : undefined;
  // A creation's answer had no secret rotated out, whether or not it lists them.
  const then = count(stored) ?? (rotated === undefined ? 0 : undefined);
  const later = count(now);
  if (then === undefined || later === undefined || later < then) return undefined;
  return later === then;
};
