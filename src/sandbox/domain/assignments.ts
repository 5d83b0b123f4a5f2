import type { RoleAssignment } from '../../api/schemas/roles.js';
import type { SandboxState } from '../state.js';
import { notFound } from './errors.js';
import type { Assignment, Tenant, User } from './identity.js';

/**
 * Reading role assignments: one user's, or the tenant's (by role, by user, paged), as the API
 * shows them. Changing them is grants.ts.
 */

/** The assignment as the API shows it: the record, its current role name and its status. */
export function assignmentView(
  state: SandboxState,
  a: Assignment,
  nowMs = state.clock.now(),
): RoleAssignment {
  const role = state.roles.get(a.tenant_id, a.role_id);
  const expiredBy = (ms: number) => a.expires_at !== null && Date.parse(a.expires_at) <= ms;
  // A grant that had expired before its role was deleted stays expired: the deletion did not end it.
  const live = state.roles.isLive(a.tenant_id, a.role_id);
  const deletedMs = live ? Number.NaN : Date.parse(role?.deleted_at ?? '') || nowMs;
  const status =
    a.revoked_at !== null
      ? 'revoked'
      : !live
        ? expiredBy(deletedMs)
          ? 'expired'
          : 'role_deleted'
        : expiredBy(nowMs)
          ? 'expired'
          : 'active';
  return {
    user_id: a.user_id,
    role_id: a.role_id,
    role_name: role?.name ?? a.role_name,
    tenant_id: a.tenant_id,
    assigned_by: a.assigned_by,
    assigned_at: a.assigned_at,
    expires_at: a.expires_at,
    justification: a.justification ?? null,
    audit_trail_id: a.audit_trail_id,
    status,
    revoked_at: a.revoked_at,
    revoked_by: a.revoked_by ?? null,
    revocation_audit_trail_id: a.revocation_audit_trail_id ?? null,
    updated_at: a.updated_at ?? null,
    updated_by: a.updated_by ?? null,
    update_audit_trail_id: a.update_audit_trail_id ?? null,
  };
}

/** A user of the tenant's organisation (users of other organisations do not exist here). */
export function findUser(state: SandboxState, tenant: Tenant, id: string): User {
  const user = state.identity.users.get(id);
  if (!user || user.org_id !== tenant.org_id) throw notFound(`user ${id}`);
  return user;
}

export function listAssignments(
  state: SandboxState,
  tenant: Tenant,
  userId: string,
  includeInactive: boolean,
) {
  const { identity } = state;
  const user = findUser(state, tenant, userId);
  const now = state.clock.now();
  const all = identity.assignmentsOf(user.id, tenant.id);
  const shown = includeInactive ? all : all.filter((a) => identity.isActive(a, now));
  return shown.map((a) => assignmentView(state, a, now));
}

/**
 * The tenant's assignments in creation order, optionally of one role and/or one user (both
 * must exist: an unknown one is a 404, not an empty list), from just after position `afterSeq`.
 */
export function listTenantAssignments(
  state: SandboxState,
  tenant: Tenant,
  filter: { roleId?: string | undefined; userId?: string | undefined; includeInactive: boolean },
  limit: number,
  afterSeq: number | undefined,
): { page: RoleAssignment[]; more: boolean; lastSeq: number | undefined } {
  const { identity } = state;
  if (filter.roleId !== undefined && !state.roles.get(tenant.id, filter.roleId)) {
    throw notFound(`role ${filter.roleId}`);
  }
  const candidates =
    filter.userId === undefined
      ? identity.assignmentsIn(tenant.id)
      : identity.assignmentsOf(findUser(state, tenant, filter.userId).id, tenant.id);
  const now = state.clock.now();
  const page: Assignment[] = [];
  let more = false;
  // The tenant's list is in seq order and seq is its 1-based position: a page starts right
  // after the cursor instead of walking every earlier assignment again.
  const start = filter.userId === undefined && afterSeq !== undefined ? Math.max(0, afterSeq) : 0;
  for (let i = start; i < candidates.length; i++) {
    const a = candidates[i]!;
    if (afterSeq !== undefined && (a.seq ?? 0) <= afterSeq) continue;
    if (filter.roleId !== undefined && a.role_id !== filter.roleId) continue;
    if (!filter.includeInactive && !identity.isActive(a, now)) continue;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(a);
  }
  return {
    page: page.map((a) => assignmentView(state, a, now)),
    more,
    lastSeq: page[page.length - 1]?.seq,
  };
}
