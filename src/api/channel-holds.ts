/**
 * A webhook as a standing read channel (part of the rule of who may hand out what, holds.ts):
 * choosing where event data goes, replaying it, and taking a webhook's signing secret.
 */

import { type HeldGrant, heldUntil, missingPermissions } from './holds.js';
import { EVENT_READ_PERMISSIONS, eventReadPermissions } from './permissions.js';
import { STANDING_CREDENTIAL, standingRefusal } from './standing-credentials.js';
import { isoSeconds } from './time.js';

/** What choosing where a webhook's data goes is, as the refusal says it. */
export const CHANNEL_CHOICE = {
  create: 'creating a webhook',
  update: "changing a webhook's URL, event kinds or status",
} as const;

/** A webhook disabled by the platform (its owner no longer holds what it takes: disabled_reason says why), not on request. */
export const isStopped = (w: { status: string; disabled_reason?: string | null | undefined }): boolean =>
  w.status === 'disabled' && typeof w.disabled_reason === 'string';

/** What a replay is, as its refusal says it: it chooses nothing, so it takes the read permission held now (readRefusal). */
export const REPLAY_READ = "replaying a delivery (it re-sends the stored event to the webhook's URL)";

/** A read permission with the event kinds among `kinds` whose data it reads, each once, for the refusals. */
const readerOf = (kinds: readonly string[], permission: string) =>
  `${permission} (${[...new Set(kinds)]
    .filter((k) => EVENT_READ_PERMISSIONS[k as keyof typeof EVENT_READ_PERMISSIONS] === permission)
    .join(', ')})`;

/**
 * The refusal (insufficient_permission) of sending event data of `kinds` by a caller with these
 * live grants who lacks the read permission of one of them, or undefined. Enough on its own for
 * a replay: it re-sends stored data to the URL the webhook's owner chose, so it takes what
 * reading that data takes now, as the payload does; choosing the URL takes channelRefusal.
 */
export function readRefusal(
  what: string,
  grants: readonly HeldGrant[],
  kinds: readonly string[],
): string | undefined {
  const missing = missingPermissions(
    grants.flatMap((g) => g.permissions),
    eventReadPermissions(kinds),
  );
  if (missing.length === 0) return undefined;
  const named = missing.map((p) => readerOf(kinds, p)).join(', ');
  return `${what} sends event data to its URL, so it takes the permission that reads that data; you lack ${named}: have someone who holds ${missing.length === 1 ? 'it' : 'them'} do it`;
}

/**
 * The refusal (insufficient_permission) of choosing where event data goes — a webhook created,
 * its URL, kinds or status changed — by a caller with these live grants, or undefined. A webhook is a standing read channel, like an API key: it takes the read permission
 * of each of its kinds' data (EVENT_READ_PERMISSIONS), held without an end date, so neither
 * webhook.manage alone nor a just-in-time grant turns into data that keeps arriving.
 */
export function channelRefusal(
  what: string,
  grants: readonly HeldGrant[],
  kinds: readonly string[],
): string | undefined {
  const lacking = readRefusal(what, grants, kinds);
  if (lacking !== undefined) return lacking;
  const needed = eventReadPermissions(kinds);
  const bound = heldUntil(grants, needed);
  if (bound === null) return undefined;
  const ending = needed.filter((p) => heldUntil(grants, [p]) === bound);
  return `a webhook is a standing channel, like an API key: ${what} takes the permission that reads its data held without an end date, and you hold ${ending.map((p) => readerOf(kinds, p)).join(', ')} only until ${isoSeconds(bound)}; have someone who holds ${ending.length === 1 ? 'it' : 'them'} without an end date do it`;
}

/** What taking a webhook's signing secret is, as the refusal says it (secretRefusal). */
export const WEBHOOK_SECRET = {
  create: 'creating a webhook (it hands you its first signing secret)',
  rotate: "rotating a webhook's signing secret (it hands you the new one)",
  restore: "restoring a webhook's previous signing secret (it puts back one that was cut off)",
} as const;

/**
 * The refusal (insufficient_permission) of rotating or restoring a webhook's signing secret by a
 * caller with these live grants, or undefined. The secret is a standing credential: whoever holds
 * it signs events of the webhook's kinds its receiver trusts, after any grant ends. So it takes the
 * read permission of each kind, and webhook.manage, held without an end date (as an OAuth client's
 * secret takes what its scopes reach: clientReachRefusal). Its own words: a rotation sends nothing
 * (review15c R3). Creating a webhook answers its first secret, and the webhook keeps it and delivers
 * after a just-in-time webhook.manage grant ends (it stops only with its owner's read permissions),
 * so creating takes this rule too, after channelRefusal (choiceRefusal; review15c R2).
 */
export function secretRefusal(
  what: string,
  grants: readonly HeldGrant[],
  kinds: readonly string[],
): string | undefined {
  const needed = eventReadPermissions(kinds);
  const missing = missingPermissions(
    grants.flatMap((g) => g.permissions),
    needed,
  );
  const them = (n: number) => (n === 1 ? 'it' : 'them');
  if (missing.length > 0) {
    const signs = [...new Set(kinds)].filter((k) => {
      const read = EVENT_READ_PERMISSIONS[k as keyof typeof EVENT_READ_PERMISSIONS];
      return read != null && missing.includes(read);
    });
    return `${what} takes the read permission of each of the webhook's kinds: the secret signs events of ${signs.join(', ')}; you lack ${missing.join(', ')}: have someone who holds ${them(missing.length)} do it`;
  }
  const standing = `${STANDING_CREDENTIAL.webhookSecret.credential}: ${what} takes`;
  const readBound = heldUntil(grants, needed);
  if (readBound !== null) {
    const ending = needed.filter((p) => heldUntil(grants, [p]) === readBound);
    return `${standing} the read permission of each of the webhook's kinds held without an end date, and you hold ${ending.map((p) => readerOf(kinds, p)).join(', ')} only until ${isoSeconds(readBound)}; have someone who holds ${them(ending.length)} without an end date do it`;
  }
  return standingRefusal(STANDING_CREDENTIAL.webhookSecret, what, grants);
}

/** A choice of where a webhook's data goes (channelRefusal); `secret`: what it is when it also hands out a signing secret (a creation). */
export interface WebhookChoice {
  what: string;
  kinds: readonly string[];
  secret?: string;
}

/**
 * The refusal of a webhook choice by a caller with these live grants, or undefined: channelRefusal,
 * then, for a choice that hands out the signing secret (a creation), secretRefusal, so a webhook
 * and its secret are made only by someone who holds webhook.manage without an end date, as a
 * rotation takes (and as an OAuth client is created only with its reach so held).
 */
export function choiceRefusal(grants: readonly HeldGrant[], choice: WebhookChoice): string | undefined {
  return (
    channelRefusal(choice.what, grants, choice.kinds) ??
    (choice.secret === undefined ? undefined : secretRefusal(choice.secret, grants, choice.kinds))
  );
}
