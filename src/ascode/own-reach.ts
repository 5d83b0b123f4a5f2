import type { LiveTenant } from './live.js';
import type { Caller } from './lockout.js';
import type { PlanChange } from './plan.js';

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
  let marked = 0;
  for (const change of changes) {
    delete change.last;
    if (!reducesOwnReach(live, change, held, person)) continue;
    change.last = true;
    marked++;
  }
  return marked;
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
