import { grantsPermission } from '../api/roles.js';
import type { LiveGrant, LiveTenant } from './live.js';
import { type Caller, refuseBeyondHolds } from './lockout.js';
import { grantedChanges, phaseOf } from './phases.js';
import { changeKey, type PlanChange } from './plan.js';

/**
 * Marks the changes that can reduce what the caller themself holds in the tenant (`last`): svc
 * apply makes them after every other change of the run (./phases.ts phaseOf, src/bulk/order.ts
 * ownReachLast), so the
 * others are made while the caller still holds what they need, as svc plan judged them (on the
 * holds before the run). They are: revoking or moving the expiry of the caller's own grant,
 * deleting a role the caller holds, and an update of such a role that takes permissions out of
 * it. For an API key the person is its issuer: the platform sees a key through to them, and the key
 * acts only while they hold its role's permissions (refuseKeyStop), so the roles held are theirs
 * (and the key's own). Marked afresh for whoever applies (a saved plan applied by another person:
 * their holds).
 *
 * The caller's own revocation of a role the run deletes is `ended_by` that deletion: the deletion
 * ends the grant, and needs every permission of the role held live, which the caller may hold only
 * through that grant (review16 R3: revoked first, the deletion was then refused).
 */
export function markOwnReach(live: LiveTenant, changes: PlanChange[], caller: Caller): number {
  const person = caller.type === 'user' ? caller.id : caller.credential?.issued_by;
  const held = new Set(heldBy(live, person).map((g) => g.roleName));
  if (caller.type !== 'user') held.add(live.tenant.role);
  const deletions = new Map<string, string>();
  for (const change of changes) {
    if (change.kind === 'role' && change.action === 'delete')
      deletions.set(change.name, changeKey(live.tenant.id, change));
  }
  for (const change of changes) {
    delete change.last;
    delete change.ended_by;
    if (reducesOwnReach(live, change, held, person)) change.last = true;
    const deletion =
      change.kind === 'grant' && change.action === 'delete' && change.grant?.user === person
        ? deletions.get(change.grant!.role)
        : undefined;
    if (deletion !== undefined) change.ended_by = deletion;
  }
  // What needs a change made last is made last too (a role's deletion after the revocation of
  // its grant to the caller's key's issuer): it cannot wait in an earlier phase for a later one.
  const last = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const change of changes) {
      const key = changeKey(live.tenant.id, change);
      if (!change.last && change.needs.some((k) => last.has(k))) change.last = true;
      if (change.last && !last.has(key)) {
        last.add(key);
        grew = true;
      }
    }
  }
  return last.size;
}

/** A person's live grants in the tenant (none for a key with no issuer named). */
function heldBy(live: LiveTenant, person: string | null | undefined): LiveGrant[] {
  return person == null ? [] : [...live.grants.values()].filter((g) => g.user === person);
}

function reducesOwnReach(
  live: LiveTenant,
  change: PlanChange,
  held: ReadonlySet<string>,
  person: string | null | undefined,
): boolean {
  if (change.kind === 'grant') return change.action !== 'create' && change.grant?.user === person;
  if (change.kind !== 'role' || !held.has(change.name)) return false;
  if (change.action === 'delete') return true;
  if (change.action !== 'update') return false;
  const to = change.fields.find((f) => f.field === 'permissions')?.to;
  const before = live.roles.get(change.name)?.permissions ?? [];
  return Array.isArray(to) && before.some((p) => !to.includes(p));
}

/**
 * What a person holds after the plan's changes of their own reach (revocations of their grants,
 * deletions and narrowings of roles), each role's permissions, and which change takes away which
 * permission: shared by refuseLockout (a user's administration) and refuseKeyStop (what an API key
 * acts on). `lasting`: only grants without an end date count.
 */
export function ownLoss(
  live: LiveTenant,
  changes: readonly PlanChange[],
  person: string,
  watched: readonly string[],
  lasting = false,
): { lost: string[]; takes: (change: PlanChange) => boolean } {
  const mine = heldBy(live, person)
    .filter((g) => !lasting || g.expiresAt === null)
    .map((g) => g.roleName);
  const permissionsOf = (role: string) => live.roles.get(role)?.permissions ?? [];
  const live_ = changes.filter((c) => !c.refused);
  const revoked = new Set(
    live_
      .filter((c) => c.kind === 'grant' && c.action === 'delete' && c.grant?.user === person)
      .map((c) => c.grant!.role),
  );
  const deleted = new Set(live_.filter((c) => c.kind === 'role' && c.action === 'delete').map((c) => c.name));
  const narrowed = new Map(
    live_
      .filter((c) => c.kind === 'role' && c.action === 'update')
      .flatMap((c) => {
        const permissions = c.fields.find((f) => f.field === 'permissions')?.to as string[] | undefined;
        return permissions ? [[c.name, permissions] as const] : [];
      }),
  );
  const before = mine.flatMap(permissionsOf);
  const after = mine
    .filter((role) => !revoked.has(role) && !deleted.has(role))
    .flatMap((role) => narrowed.get(role) ?? permissionsOf(role));
  const lost = watched.filter((p) => grantsPermission(before, p) && !grantsPermission(after, p));
  const takes = (change: PlanChange) => {
    if (change.refused) return false;
    const role = change.kind === 'grant' ? change.grant?.role : change.name;
    const yours =
      role !== undefined &&
      mine.includes(role) &&
      ((change.kind === 'grant' && change.action === 'delete' && change.grant?.user === person) ||
        (change.kind === 'role' && (change.action === 'delete' || narrowed.has(role))));
    return yours && lost.some((p) => grantsPermission(permissionsOf(role), p));
  };
  return { lost, takes };
}

/**
 * Marks the changes that would stop the API key applying the plan as `refused` (review16 R11): a
 * key acts only while its issuer holds every permission of the key's role without an end date, so
 * revoking their grant, or deleting or narrowing a role they hold, can stop it with its own
 * change; every later change of the run (and every later run with the key) would then be refused
 * (401), a plan it approved half applied. As refuseLockout refuses a person's own administration.
 */
export function refuseKeyStop(live: LiveTenant, changes: PlanChange[], issuer: string): number {
  const keyRole = live.roles.get(live.tenant.role)?.permissions;
  if (!keyRole) return 0;
  return refuseLoss(
    live,
    changes,
    issuer,
    keyRole,
    (lost) =>
      `it would stop the API key you are applying with: the key acts only while ${issuer}, who issued it, holds every permission of ${live.tenant.role} without an end date, and after this plan they would not hold ${lost.join(', ')}; have ${issuer} (with their own login) or another administrator make this change, or leave it out of the file`,
    true,
  );
}

/**
 * Marks every change that takes one of `watched` away from `person` (ownLoss) as refused, with the
 * reason `because` gives for what they would lose; how many were marked.
 */
export function refuseLoss(
  live: LiveTenant,
  changes: PlanChange[],
  person: string,
  watched: readonly string[],
  because: (lost: string[]) => string,
  lasting = false,
): number {
  const { lost, takes } = ownLoss(live, changes, person, watched, lasting);
  if (lost.length === 0) return 0;
  const reason = because(lost);
  let refused = 0;
  for (const change of changes) {
    if (!takes(change)) continue;
    change.refused = reason;
    refused++;
  }
  return refused;
}

/**
 * The changes made last (markOwnReach), judged in the order svc apply makes them on the holds the
 * changes before them leave (review16 R3, R4's doubt): svc plan judged every change on the holds
 * before the run, but a grant of a role the run narrows, made last, follows the narrowing of
 * another role the caller holds, which may take away what the grant needs. Changes of one phase
 * run at once, so each is judged on the holds every other change of its phase leaves as well.
 * Those the platform would refuse then are marked `refused`. A person only: an API key acts with
 * its role whatever its issuer holds, until it stops (refuseKeyStop).
 */
export function refuseOwnReachOrder(live: LiveTenant, changes: PlanChange[], caller: Caller): number {
  if (caller.type !== 'user') return 0;
  const mine = new Set(heldBy(live, caller.id).map((g) => g.roleName));
  const reduces = (c: PlanChange) => reducesOwnReach(live, c, mine, caller.id);
  const phases = new Map<number, PlanChange[]>();
  const granted = grantedChanges(changes);
  for (const change of changes) {
    if (!change.last || change.refused || change.ended_by !== undefined) continue;
    const phase = phaseOf(change, granted.has(changeKey(live.tenant.id, change)));
    phases.set(phase, [...(phases.get(phase) ?? []), change]);
  }
  let state = live;
  const made: PlanChange[] = [];
  let refused = 0;
  for (const phase of [...phases.keys()].sort((a, b) => a - b)) {
    const group = phases.get(phase)!;
    for (const change of group) {
      const others = group.filter((c) => c !== change);
      const before = [...made, ...others.filter(reduces)];
      if (before.length === 0) continue;
      const copy = { ...change };
      refuseBeyondHolds(others.reduce(leaves, state), [copy], caller);
      if (copy.refused === undefined) continue;
      change.refused = `made last, after ${before.map(said).join(', ')}, which take${before.length === 1 ? 's' : ''} away some of your own reach, ${copy.refused}`;
      refused++;
    }
    for (const change of group) {
      state = leaves(state, change);
      if (reduces(change)) made.push(change);
    }
  }
  return refused;
}

/** A change that takes away some of the caller's reach, as a refusal names it. */
const said = (change: PlanChange): string =>
  change.kind === 'grant'
    ? `the revocation of your ${change.grant?.role}`
    : `the ${change.action === 'delete' ? 'deletion' : 'narrowing'} of ${change.name}`;

/** The live state as a change leaves it, as far as the caller's holds go (roles' permissions, grants). */
function leaves(live: LiveTenant, change: PlanChange): LiveTenant {
  if (change.kind === 'role' && change.action === 'update') {
    const to = change.fields.find((f) => f.field === 'permissions')?.to;
    const role = live.roles.get(change.name);
    if (!Array.isArray(to) || !role) return live;
    const roles = new Map(live.roles);
    roles.set(change.name, { ...role, permissions: to as typeof role.permissions });
    return { ...live, roles };
  }
  if (change.action !== 'delete' || (change.kind !== 'role' && change.kind !== 'grant')) return live;
  const grants = new Map(live.grants);
  for (const [key, grant] of live.grants) {
    if (change.kind === 'grant' ? key === change.name : grant.roleName === change.name) grants.delete(key);
  }
  return { ...live, grants };
}
