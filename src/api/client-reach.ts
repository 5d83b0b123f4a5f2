/**
 * An OAuth client's reach (part of the rule of who may hand out what, holds.ts): what arming a
 * client with its scopes hands out, and what that takes.
 */
import { OAUTH_FULL_ACCESS_SCOPE } from './constants.js';
import { type HeldGrant, heldUntil, missingPermissions } from './holds.js';
import { scopePermissions } from './operations.js';
import { HANDS_OUT, STANDING_CREDENTIAL, standingRefusal } from './standing-credentials.js';
import { isoSeconds } from './time.js';

/** What arming an OAuth client with its scopes' reach is, as the refusal says it. */
export const CLIENT_REACH = {
  create: 'creating an OAuth client hands out what its scopes reach',
  scopes: 'putting scopes into an OAuth client hands out what they reach',
  redirect: "adding or changing an OAuth client's redirect URIs hands out what its scopes reach",
  rotate: "rotating an OAuth client's secret hands out what its scopes reach",
} as const;

/** Up to five names, then how many more. */
const some = (names: readonly string[]) =>
  names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`;

/** A scope and those of its permissions a refusal names (`admin`'s counted, after `lead`: it reaches every permission of the tenant). */
const scopeSaid = (scope: string, permissions: readonly string[], lead = '') =>
  scope === OAUTH_FULL_ACCESS_SCOPE
    ? `${scope} (every permission of the tenant; ${lead}${permissions.length} of them: ${some(permissions)})`
    : `${scope} (${permissions.join(', ')})`;

/**
 * The refusal (insufficient_permission) of arming an OAuth client with `scopes` (`what`: a
 * CLIENT_REACH) by a caller with these live grants, or undefined. A client's token acts with its
 * approving user's authority as far as its scopes reach (scopePermissions), for whoever holds the
 * client's secret and receives its codes: so putting a scope into a client, and taking its secret
 * or pointing its codes at a new redirect URI, take every permission its scopes reach — `admin`
 * every permission of the tenant — as granting a role takes its permissions. And held without an
 * end date, as issuing an API key or choosing a webhook's URL: the client, its secret and its
 * redirect URIs stay when a just-in-time grant ends, so one armed then would be a standing way
 * back to what the grant gave. Named: the permissions that end first and when (as channelRefusal).
 */
export function clientReachRefusal(
  what: string,
  grants: readonly HeldGrant[],
  scopes: readonly string[],
): string | undefined {
  const have = grants.flatMap((g) => g.permissions);
  const named = [...new Set(scopes)];
  const lacking = named
    .map((scope) => ({ scope, missing: missingPermissions(have, scopePermissions([scope])) }))
    .filter((l) => l.missing.length > 0);
  if (lacking.length > 0) {
    const said = lacking.map(({ scope, missing }) => scopeSaid(scope, missing, 'you lack '));
    const count = new Set(lacking.flatMap((l) => l.missing)).size;
    return `${what}, so it takes the permissions they cover; you lack those of ${said.join(', ')}; have someone who holds ${count === 1 ? 'it' : 'them'} do it`;
  }
  const bound = heldUntil(grants, scopePermissions(named));
  if (bound === null) return undefined;
  // `admin` reaches every other scope's permissions: said once, as admin's.
  const judged = named.includes(OAUTH_FULL_ACCESS_SCOPE) ? [OAUTH_FULL_ACCESS_SCOPE] : named;
  const ending = judged
    .map((scope) => ({
      scope,
      ends: scopePermissions([scope]).filter((p) => heldUntil(grants, [p]) === bound),
    }))
    .filter((e) => e.ends.length > 0);
  const said = ending.map(({ scope, ends }) => scopeSaid(scope, ends));
  const count = new Set(ending.flatMap((e) => e.ends)).size;
  return `${what}, which outlasts a just-in-time grant, so it takes the permissions they cover held without an end date; you hold those of ${said.join(', ')} only until ${isoSeconds(bound)}; have someone who holds ${count === 1 ? 'it' : 'them'} without an end date do it`;
}

/**
 * What a change arms an OAuth client with (clientArming): the scopes whose reach it hands out
 * (clientReachRefusal), and, when it hands out the client's secret or points its codes somewhere
 * new (a creation, a rotation, a new redirect URI), what that is as the standing rule says it.
 */
export interface ClientArming {
  what: string;
  scopes: readonly string[];
  standing?: string;
}

/**
 * The refusal of these armings by a caller with these live grants, or undefined: for each in
 * order, what its scopes reach (clientReachRefusal), then, for one that hands out or re-points the
 * client's secret, oauth_client.manage held without an end date (standingRefusal: the one rule of
 * API keys and webhook secrets, review16d D3: a just-in-time holder refused a rotation created a
 * twin client instead). The sandbox and `svc plan` judge by it alike.
 */
export function clientArmingRefusal(
  grants: readonly HeldGrant[],
  armings: readonly ClientArming[],
): string | undefined {
  for (const { what, scopes, standing } of armings) {
    const refusal =
      clientReachRefusal(what, grants, scopes) ??
      (standing === undefined
        ? undefined
        : standingRefusal(STANDING_CREDENTIAL.clientSecret, standing, grants));
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/** What rotating a client's secret arms it with: whoever holds the secret gets what every scope reaches. */
export const rotationArming = (client: ClientReach): ClientArming[] => [
  { what: CLIENT_REACH.rotate, scopes: client.scopes, standing: HANDS_OUT.clientSecret },
];

/** An OAuth client's registration as far as its reach goes: what its tokens may do, where its codes go. */
export interface ClientReach {
  scopes: readonly string[];
  redirect_uris: readonly string[];
}

/**
 * What a creation (`before` null) or an update of an OAuth client arms it with, each to be judged
 * by clientReachRefusal in order (none: it arms nothing): scopes added; and a redirect URI added
 * or changed (removing one points codes nowhere new), which hands out every scope the client has
 * after the change. Renames, lifetimes, grant types and scopes taken out hand out nothing.
 */
export function clientArming(before: ClientReach | null, after: ClientReach): ClientArming[] {
  if (before === null)
    return [{ what: CLIENT_REACH.create, scopes: after.scopes, standing: HANDS_OUT.clientCreate }];
  const added = after.scopes.filter((s) => !before.scopes.includes(s));
  const repointed = after.redirect_uris.some((u) => !before.redirect_uris.includes(u));
  return [
    ...(added.length > 0 ? [{ what: CLIENT_REACH.scopes, scopes: added }] : []),
    ...(repointed
      ? [{ what: CLIENT_REACH.redirect, scopes: after.scopes, standing: HANDS_OUT.clientRedirect }]
      : []),
  ];
}
