// The one rule of who may hand out what, shared by the sandbox that enforces it and svc, which
// predicts it: here, what handing out a role takes and for how long; webhook channels in
// channel-holds.ts, standing credentials in standing-credentials.ts, OAuth clients' reach in
// client-reach.ts, keys minting keys in key-minting.ts, self-assignment in self-assignment.ts, and
// the caller's authority that predicts them all in caller-authority.ts (CallerAuthority).
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
