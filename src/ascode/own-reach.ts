import type { LiveTenant } from './live.js';
import type { Caller } from './lockout.js';
import { changeKey, type PlanChange } from './plan.js';

/**
 * Marks the changes that can reduce what the caller themself holds in the tenant (`last`): svc
 * apply makes them after every other change of the run (./steps.ts phaseOf, src/bulk/order.ts
 * ownReachLast), so the
 * others are made while the caller still holds what they need, as svc plan judged them (on the
 * holds before the run). They are: revoking or moving the expiry of the caller's own grant (for an
 * API key: its issuer's, as the platform sees it through), deleting a role the caller holds
 * (a key: its own role), and an update of such a role that takes permissions out of it. Marked
 * afresh for whoever applies (a saved plan applied by another person: their holds).
 */
export function markOwnReach(live: LiveTenant, changes: PlanChange[], caller: Caller): number {
  const person = caller.type === 'user' ? caller.id : caller.credential?.issued_by;
  const held = new Set(
    caller.type === 'user'
      ? [...live.grants.values()].filter((g) => g.user === caller.id).map((g) => g.roleName)
      : [live.tenant.role],
  );
  for (const change of changes) {
    delete change.last;
    if (reducesOwnReach(live, change, held, person)) change.last = true;
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
