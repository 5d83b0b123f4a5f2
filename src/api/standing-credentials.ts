/**
 * Standing credentials (part of the rule of who may hand out what, holds.ts): an API key, an OAuth
 * client's secret, a webhook's signing secret are handed out only by someone who holds the
 * permission that manages them without an end date.
 */
import { type HeldGrant, heldUntil } from './holds.js';
import { isoSeconds } from './time.js';

/**
 * The standing credentials svc's platform hands out — an API key, an OAuth client's secret, a
 * webhook's signing secret — each with the permission that manages it: a credential lasts until it
 * is revoked or rotated, after any just-in-time grant ends (conform16 #5).
 */
export const STANDING_CREDENTIAL = {
  apiKey: {
    credential: "an API key is a standing credential, like a webhook's signing secret",
    permission: 'api_key.manage',
  },
  clientSecret: {
    credential: "an OAuth client's secret is a standing credential, like an API key",
    permission: 'oauth_client.manage',
  },
  webhookSecret: {
    credential: "a webhook's signing secret is a standing credential, like an API key",
    permission: 'webhook.manage',
  },
} as const;

/** What handing out a standing credential is, as the refusal says it (standingRefusal). */
export const HANDS_OUT = {
  apiKey: 'issuing an API key (it acts until it is revoked)',
  clientSecret: "rotating an OAuth client's secret (it hands you the new one)",
  clientCreate: 'creating an OAuth client (it hands you its secret)',
  clientRedirect:
    "adding or changing an OAuth client's redirect URIs (its codes go where you chose, to be redeemed with its secret, after your grant ends)",
} as const;

/**
 * The one standing-credential rule (insufficient_permission), or undefined: handing one out —
 * issuing an API key, creating an OAuth client or rotating its secret, or pointing its codes at a
 * new redirect URI (clientArmingRefusal), creating a webhook or rotating or restoring its signing
 * secret (secretRefusal) — takes the permission that manages it held without an end date, so no
 * just-in-time holder hands out what outlives their grant.
 */
export function standingRefusal(
  kind: (typeof STANDING_CREDENTIAL)[keyof typeof STANDING_CREDENTIAL],
  what: string,
  grants: readonly HeldGrant[],
): string | undefined {
  const bound = heldUntil(grants, [kind.permission]);
  if (bound === null) return undefined;
  return `${kind.credential}: ${what} takes ${kind.permission} held without an end date, and you hold it only until ${isoSeconds(bound)}; have someone who holds it without an end date do it`;
}
