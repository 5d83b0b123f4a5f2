import { ownReachLast } from '../bulk/order.js';
import type { PlanChange } from './plan.js';

/**
 * A change's phase. `granted`: a grant of the run needs it (a narrowing of the role it grants). The
 * changes made last (./own-reach.ts) go in this order: the narrowings a grant needs, those grants,
 * the other narrowings, the caller's own revocations, role deletions, and last the revocations a
 * deletion ended. Reductions come as late as they may: a grant is made on the most the caller can
 * still hold, and each reduction needs only the permissions of the role it changes, which the
 * caller holds through that role until then (review16: a narrowing made before a grant of another
 * role took away what the grant needed).
 */
export function phaseOf(change: PlanChange, granted = false): number {
  if (change.last !== true)
    return change.kind === 'role' ? (change.action === 'delete' ? 4 : 1) : change.action === 'delete' ? 3 : 2;
  let phase: number;
  if (change.ended_by !== undefined) phase = 6;
  else if (change.kind === 'role') phase = change.action === 'delete' ? 5 : granted ? 1 : 3;
  else phase = change.action === 'delete' ? 4 : 2;
  return ownReachLast(phase, true);
}

/** The keys of a tenant's changes that a grant of it needs (phaseOf's `granted`). */
export function grantedChanges(changes: readonly PlanChange[]): Set<string> {
  return new Set(changes.flatMap((c) => (c.kind === 'grant' ? c.needs : [])));
}
