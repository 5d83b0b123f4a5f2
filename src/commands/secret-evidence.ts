/**
 * What tells a stored answer's secret from the current one where whole-second rotation times
 * cannot (SecretEvidence, src/platform/stored-answer.ts): read from the object as it is now,
 * nothing sent. Both are the sandbox's (the reference gives neither); a server without them gives
 * undefined, and the times decide. Used by the rotations (rotateOnce) and the replayed creations
 * (asItIsNow) alike.
 */
import { sameInstant } from '../api/time.js';
import type { SecretEvidence } from '../platform/stored-answer.js';

/**
 * An OAuth client's: the fingerprint its record carries (secret_last4, review28a H2) against the
 * stored answer's client_secret: the same last four characters, current (true); others, replaced
 * (false); none, undefined. The token endpoint, asked before, could not tell on many servers and
 * withheld a live secret (a client without the refresh_token grant, Basic-only authentication).
 */
export const clientSecretEvidence: SecretEvidence = (stored, now) => {
  const [secret, last4] = [stored.client_secret, now.secret_last4];
  if (typeof secret !== 'string' || secret.length < 4 || typeof last4 !== 'string' || last4.length !== 4) {
    return undefined;
  }
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
