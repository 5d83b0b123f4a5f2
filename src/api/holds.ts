// Over 300 lines on purpose: the one rule of who may hand out what (roles, grants, keys, webhook
// channels, OAuth clients' reach), shared by the sandbox that enforces it and svc, which predicts it (CallerAuthority).
import { OAUTH_FULL_ACCESS_SCOPE } from './constants.js';
import { callersRefusal } from './operation-words.js';
import { OPERATIONS, scopePermissions } from './operations.js';
import { EVENT_READ_PERMISSIONS, eventReadPermissions } from './permissions.js';
import { grantsPermission } from './roles.js';
import { endMs, isoSeconds, serverTime } from './time.js';

/**
 * No one hands out more than they hold (403 insufficient_permission), once, for the sandbox that
 * enforces it and for svc, which predicts it in dry runs and plans: granting or revoking a role
 * takes every permission of the role, held live in the tenant, and a grant (or an expiry moved
 * later) ends no later than the caller holds them; putting permissions into a custom role, taking
 * them out, or deleting it takes every permission involved, and permissions put into a role are
 * held by no live holder of it longer than the caller holds them (a widen is a grant to each
 * holder, until their grant ends). Changing anything of a custom role — its name or description
 * too, the handle every grant by name resolves — takes every permission it carries; and nobody
 * puts permissions into a role they hold (403 self_assignment: a self-grant of what it adds). API keys cannot mint keys (403 user_required): a role carrying
 * api_key.manage is granted or re-timed by a person, and only a person creates one or puts
 * api_key.manage into one (at all, holders or not: a role that mints keys is one grant away).
 */

/** What each kind of change hands out, as the refusal says it. */
export const HANDING_OUT = {
  grant: 'you can only grant or revoke roles whose permissions you hold',
  widen: 'you can only put into a role permissions you hold yourself',
  /** Any change of a custom role (renamed, re-described, narrowed or widened): names are what grants resolve. */
  change: 'you can only change a role whose permissions you all hold yourself',
  delete: 'you can only delete a role whose permissions you all hold yourself',
} as const;

/** The permissions of `needed` that `held` does not grant, sorted, each once. */
export function missingPermissions(held: Iterable<string>, needed: Iterable<string>): string[] {
  const have = [...held];
  return [...new Set(needed)].filter((p) => !grantsPermission(have, p)).sort();
}

/** The platform's refusal of handing out `needed` (`what`: a HANDING_OUT), or undefined when all are held. */
export function lackRefusal(
  what: string,
  held: Iterable<string>,
  needed: Iterable<string>,
): string | undefined {
  const missing = missingPermissions(held, needed);
  return missing.length === 0 ? undefined : `${what}; you lack ${missing.join(', ')}`;
}

/** The permissions a custom role change adds and removes (each must be held). */
export function roleChange(
  before: readonly string[],
  after: readonly string[],
): { added: string[]; removed: string[] } {
  return {
    added: after.filter((p) => !before.includes(p)),
    removed: before.filter((p) => !after.includes(p)),
  };
}

/** One live grant of the caller: its role's permissions, and when it ends (null: never). */
export interface HeldGrant {
  permissions: readonly string[];
  expiresAt: string | null;
}

/**
 * Until when (ms) the caller holds every one of `permissions` over its live grants: for each,
 * the end of the latest-ending grant that grants it; the earliest of those. null when nothing
 * ends them (permanent grants; an API key, whose role lasts until it is revoked: it acts only
 * while its issuer holds that role without an end date, as to mint it). A permission
 * not held at all does not bound it (that is a lackRefusal).
 */
export function heldUntil(grants: readonly HeldGrant[], permissions: Iterable<string>): number | null {
  let until: number | null = null;
  for (const permission of new Set(permissions)) {
    const ends = grants.filter((g) => grantsPermission(g.permissions, permission)).map((g) => g.expiresAt);
    if (ends.length === 0 || ends.includes(null)) continue;
    const latest = Math.max(...ends.map((e) => serverTime(e!)));
    if (until === null || latest < until) until = latest;
  }
  return until;
}

/**
 * The refusal of a grant of `role` ending at `expiry` (or of its expiry moved there from
 * `current`) by a caller holding its permissions until `bound` (heldUntil), or undefined.
 * Moving an expiry sooner hands out nothing.
 */
export function outlivesRefusal(
  role: string,
  bound: number | null,
  expiry: string | null,
  current?: string | null,
): string | undefined {
  if (bound === null || endMs(expiry) <= bound) return undefined;
  if (current !== undefined && endMs(expiry) <= endMs(current)) return undefined;
  const until = isoSeconds(bound);
  return `you cannot hand out access that outlives your own: you hold the permissions of ${role} only until ${until}; set expires_at to ${until} or earlier`;
}

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

/** A live holder of a role: who, and when their grant of it ends (null: never). */
export interface RoleHolder {
  user: string;
  expiresAt: string | null;
}

/**
 * The refusal of putting `added` into `role` by a caller with these live grants (an API key's
 * role: one that nothing ends while the key acts), when a live holder of the role would hold an added permission
 * longer than the caller holds it — the caller's own permanent custom role included — or
 * undefined. Names the permissions that end first and the holders that outlast them.
 */
export function widenOutlivesRefusal(
  role: string,
  grants: readonly HeldGrant[],
  added: readonly string[],
  holders: readonly RoleHolder[],
): string | undefined {
  const bound = heldUntil(grants, added);
  if (bound === null) return undefined;
  const longer = holders
    .filter((h) => endMs(h.expiresAt) > bound)
    .sort((a, b) => endMs(b.expiresAt) - endMs(a.expiresAt) || (a.user < b.user ? -1 : 1));
  if (longer.length === 0) return undefined;
  const until = isoSeconds(bound);
  const first = [...new Set(added)].filter((p) => heldUntil(grants, [p]) === bound).sort();
  const ends = (h: RoleHolder) => (h.expiresAt === null ? 'permanently' : `until ${h.expiresAt}`);
  const more = longer.length > 3 ? ` and ${longer.length - 3} more` : '';
  const who =
    longer.length === 1
      ? `${longer[0]!.user} holds ${role} ${ends(longer[0]!)}`
      : `${longer.length} holders of ${role} hold it longer (${longer
          .slice(0, 3)
          .map((h) => `${h.user} ${ends(h)}`)
          .join(', ')}${more})`;
  return `you cannot hand out access that outlives your own: you hold ${first.join(', ')} only until ${until}, and ${who}; end their grants of ${role} by ${until} first, or have someone who holds ${first.length === 1 ? 'it' : 'them'} longer make this change`;
}

/** Whether granting or re-timing a role with these permissions takes a person (keys cannot mint keys). */
export const mintsKeys = (permissions: readonly string[]) => grantsPermission(permissions, 'api_key.manage');

/** Whether a custom role change (`before` empty for a creation) makes a role that mints keys. */
export const makesKeyMinter = (before: readonly string[], after: readonly string[]) =>
  mintsKeys(after) && !mintsKeys(before);

/**
 * The user_required refusal of an API key granting, re-timing, creating or widening a role that
 * mints keys.
 */
export function keyMinterRefusal(role: string, change: 'grant' | 'expiry' | 'create' | 'widen'): string {
  switch (change) {
    case 'grant':
      return `API keys cannot grant ${role}: it carries api_key.manage, and keys cannot mint keys; a person must grant it`;
    case 'expiry':
      return `API keys cannot change the expiry of ${role}: it carries api_key.manage, and keys cannot mint keys; a person must do it`;
    case 'create':
      return `API keys cannot create ${role} with api_key.manage: keys cannot mint keys, nor make a role that can; a person must create it`;
    case 'widen':
      return `API keys cannot put api_key.manage into ${role}: keys cannot mint keys, nor make a role that can; a person must change it`;
  }
}

/** What a self_assignment refusal says the caller did, to themselves and as a key's issuer. */
export const SELF_CHANGES = {
  grant: ['grant roles to yourself', 'grants roles to themselves'],
  expiry: ['change the expiry of your own roles', 'changes the expiry of their own roles'],
  widen: ['put permissions into a role you hold', 'puts permissions into a role they hold'],
} as const;

/** Every change a self_assignment refuses, as x-error-codes says them (one list with the refusals'). */
export const SELF_CHANGES_SAID = Object.values(SELF_CHANGES)
  .map(([, theirs]) => theirs)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

/**
 * The self_assignment refusal: nobody grants themselves a role, moves the end of their own
 * grant, or puts permissions into a role they hold (a grant to themselves of what it adds), nor through an API key they issued (a key is seen through to its issuer, named by
 * `issuer`; /v1/me says it as credential.issued_by, so svc predicts the same words).
 */
export function selfAssignmentRefusal(change: 'grant' | 'expiry' | 'widen', issuer?: string): string {
  const [yours, theirs] = SELF_CHANGES[change];
  return issuer === undefined
    ? `you cannot ${yours}; ask another administrator`
    : `this API key was issued by ${issuer}, and nobody ${theirs}; ask another administrator`;
}

export interface Refusal {
  code: string;
  message: string;
}

/** A role as the rule sees it: its name and permissions. */
export interface RoleHeld {
  name: string;
  permissions: readonly string[];
}

/**
 * The caller's authority in one tenant, as svc predicts it: a user's live grants, or an API key's
 * role, which nothing ends — a key acts only while its issuer holds that role's permissions
 * without an end date (the condition of minting it); else every call with it, the reads a
 * prediction starts from included, is 401 invalid_token, so a key that answers holds its role
 * for as long as anything it hands out. Each method gives the platform's refusal of a change, in
 * the order the platform checks (the operation's own permission, then what the change hands out,
 * then keys minting keys, then for how long), or undefined. A prediction only: the real run
 * reports the platform's own answer, and self_assignment and last_tenant_admin are predicted
 * elsewhere.
 */
export class CallerAuthority {
  readonly held: readonly string[];

  constructor(
    readonly tenant: string,
    readonly grants: readonly HeldGrant[],
    /** false for an API key. */
    readonly person: boolean,
    /** The third-party OAuth client a person's token acts through (thirdPartyClientOf), or null. */
    readonly client: string | null = null,
  ) {
    this.held = grants.flatMap((g) => g.permissions);
  }

  #operation(permission: string, what: string): Refusal | undefined {
    if (grantsPermission(this.held, permission)) return undefined;
    return {
      code: 'insufficient_role',
      message: `${what} needs permission ${permission} in ${this.tenant}, which your live roles there do not grant; ask an administrator of ${this.tenant}`,
    };
  }

  #lack(what: string, needed: Iterable<string>, fix: string): Refusal | undefined {
    const message = lackRefusal(what, this.held, needed);
    return message === undefined
      ? undefined
      : { code: 'insufficient_permission', message: `${message}; ${fix}` };
  }

  /** A grant of `role` until `expiry`; with `current`, the move of a held grant's expiry from there. */
  grant(role: RoleHeld, expiry: string | null, current?: string | null): Refusal | undefined {
    const refused =
      this.#operation('role.assign', 'granting a role') ??
      this.#lack(HANDING_OUT.grant, role.permissions, `have someone who holds them grant ${role.name}`);
    if (refused) return refused;
    if (!this.person && mintsKeys(role.permissions)) {
      return {
        code: 'user_required',
        message: keyMinterRefusal(role.name, current === undefined ? 'grant' : 'expiry'),
      };
    }
    const message = outlivesRefusal(role.name, heldUntil(this.grants, role.permissions), expiry, current);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /** A revocation of `role`. */
  revoke(role: RoleHeld): Refusal | undefined {
    return (
      this.#operation('role.assign', 'revoking a role') ??
      this.#lack(HANDING_OUT.grant, role.permissions, `have someone who holds them revoke ${role.name}`)
    );
  }

  /**
   * A custom role created (`before` null), changed, or deleted (`after` null); `holders`: its live
   * holders now (a widen must not outlast the caller's hold on what it adds for any of them).
   */
  role(
    name: string,
    before: readonly string[] | null,
    after: readonly string[] | null,
    holders: readonly RoleHolder[] = [],
  ): Refusal | undefined {
    const refused = this.#operation('role.manage', 'changing custom roles');
    if (refused) return refused;
    const fix = `have someone who holds them change ${name}`;
    if (after === null) return this.#lack(HANDING_OUT.delete, before ?? [], fix);
    const { added } = roleChange(before ?? [], after);
    const lacking =
      this.#lack(HANDING_OUT.change, before ?? [], fix) ?? this.#lack(HANDING_OUT.widen, added, fix);
    if (lacking) return lacking;
    if (!this.person && makesKeyMinter(before ?? [], after)) {
      return { code: 'user_required', message: keyMinterRefusal(name, before === null ? 'create' : 'widen') };
    }
    const message = widenOutlivesRefusal(name, this.grants, added, holders);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /**
   * An operation for users themselves only (src/api/operations.ts `callers`: one that mints or
   * re-points a standing credential, an OAuth client's creation or change among them), refused to
   * an API key and to a third-party OAuth client's token first of all, as the platform checks it
   * (src/sandbox/domain/authorization.ts authorizeOperation): 403 user_required.
   */
  users(operationId: string): Refusal | undefined {
    return usersOnlyRefusal(operationId, this.person, this.client);
  }

  /**
   * A replay of a delivery whose webhook and event carry `kinds`: webhook.manage, then the read
   * permission of their data held now (readRefusal: a replay chooses no URL). The sandbox's
   * replay route checks the same (src/sandbox/domain/webhook-owner.ts requireRead).
   */
  replay(kinds: readonly string[]): Refusal | undefined {
    const refused = this.#operation('webhook.manage', 'replaying deliveries');
    if (refused) return refused;
    const message = readRefusal(REPLAY_READ, this.grants, kinds);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }

  /** A discard of a dead-letter entry: webhook.manage only (it sends no data). */
  discard(): Refusal | undefined {
    return this.#operation('webhook.manage', 'discarding dead-letter entries');
  }

  /**
   * A change of a webhook or an OAuth client, which takes webhook.manage or oauth_client.manage;
   * with `channel`, a webhook change that chooses where its kinds' data goes (a creation, a new
   * URL, added kinds, enabling), which also takes their read permissions without an end date (a
   * creation, which hands out the signing secret, webhook.manage so held too: choiceRefusal); with
   * `reach`, an OAuth client change that arms it with its scopes (a creation, added scopes, a new
   * redirect URI, a rotated secret), which also takes every permission those scopes reach (and a
   * creation, a new redirect URI or a rotation oauth_client.manage held without an end date:
   * clientArmingRefusal).
   */
  integration(
    kind: 'webhook' | 'oauth_client',
    channel?: WebhookChoice,
    reach: readonly ClientArming[] = [],
  ): Refusal | undefined {
    const refused =
      kind === 'webhook'
        ? this.#operation('webhook.manage', 'changing webhooks')
        : this.#operation('oauth_client.manage', 'changing OAuth clients');
    if (refused) return refused;
    const message =
      (channel && choiceRefusal(this.grants, channel)) ?? clientArmingRefusal(this.grants, reach);
    return message === undefined ? undefined : { code: 'insufficient_permission', message };
  }
}

/**
 * The caller's authority from what a client can read: `person` (GET /v1/me type user), the roles
 * it holds live in the tenant with their ends (a user's own assignments; an API key's one role,
 * which nothing ends while the key acts), and the roles' permissions. Undefined when a role's permissions are not
 * known: then nothing is predicted.
 */
export function authorityFrom(
  tenant: string,
  person: boolean,
  held: Iterable<{ role: string; expiresAt: string | null }>,
  permissionsOf: (role: string) => readonly string[] | undefined,
  /** The third-party OAuth client the person's token acts through (thirdPartyClientOf), or null. */
  client: string | null = null,
): CallerAuthority | undefined {
  const grants: HeldGrant[] = [];
  for (const { role, expiresAt } of held) {
    const permissions = permissionsOf(role);
    if (!Array.isArray(permissions)) return undefined;
    grants.push({ permissions, expiresAt });
  }
  return new CallerAuthority(tenant, grants, person, client);
}

/**
 * The 403 user_required refusal of an operation for users themselves only (src/api/operations.ts
 * `callers`), as the platform checks it before anything else: to an API key (`person` false), or
 * to a person's token through the third-party OAuth client `client`; undefined when allowed.
 */
export function usersOnlyRefusal(
  operationId: string,
  person: boolean,
  client: string | null,
): Refusal | undefined {
  const rule = OPERATIONS[operationId];
  if (rule?.callers !== 'users' || (person && client === null)) return undefined;
  return { code: 'user_required', message: callersRefusal(operationId, rule, person ? client : null) };
}

/** What GET /v1/me says of the credential, as far as the rules of callers go. */
export interface CredentialSaid {
  type: string;
  credential?: { client_id?: unknown; third_party?: unknown };
}

/**
 * The third-party OAuth client (one created in a tenant, not the first-party svc-cli) whose token
 * the caller acts through, as GET /v1/me says it: credential.third_party true, and
 * credential.client_id. Null for a user's own login, an API key, and a server that does not say
 * both (then nothing is predicted of it, and the platform's own answer is reported).
 */
export function thirdPartyClientOf(me: CredentialSaid): string | null {
  const credential = me.credential;
  if (me.type !== 'user' || credential?.third_party !== true) return null;
  return typeof credential.client_id === 'string' && credential.client_id !== ''
    ? credential.client_id
    : null;
}
