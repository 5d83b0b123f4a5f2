import type { RoleAssignment } from '../../api/schemas/roles.js';
import { isoSeconds } from '../../api/time.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { requireHeld } from './authorization.js';
import { DomainError, notFound } from './errors.js';
import type { Assignment, Tenant, User } from './identity.js';

/**
 * Granting, re-timing and revoking roles: who may (only roles whose every permission the caller
 * holds live), what may be granted (live tenant roles, expiries in the future, no duplicate of
 * an active assignment), the last tenant_admin kept, and an audit-trail entry for each change.
 */
const GRANT = 'you can only grant or revoke roles whose permissions you hold';

/** The assignment as the API shows it: the record, its current role name and its status. */
export function assignmentView(
  state: SandboxState,
  a: Assignment,
  nowMs = state.clock.now(),
): RoleAssignment {
  const role = state.roles.get(a.tenant_id, a.role_id);
  const status =
    a.revoked_at !== null
      ? 'revoked'
      : !state.roles.isLive(a.tenant_id, a.role_id)
        ? 'role_deleted'
        : a.expires_at !== null && Date.parse(a.expires_at) <= nowMs
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

const until = (expiresAt: string | null) => (expiresAt ? `until ${expiresAt}` : 'permanently');

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

/** An expires_at of a request, at second precision, refused unless it is in the future. */
function futureExpiry(raw: string, now: number): string {
  const ms = Date.parse(raw);
  if (Number.isNaN(ms) || ms - (ms % 1000) <= now) {
    throw new DomainError(
      'invalid_expiry',
      `expires_at ${raw} is not in the future (now ${isoSeconds(now)})`,
      [{ field: 'expires_at', message: 'must be in the future' }],
    );
  }
  return isoSeconds(ms);
}

export function assignRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  userId: string,
  input: { role_id: string; expires_at?: string | undefined; justification?: string | undefined },
  requestId: string,
): RoleAssignment {
  const { identity, roles } = state;
  const user = findUser(state, tenant, userId);
  const role = roles.get(tenant.id, input.role_id);
  if (!role) throw notFound(`role ${input.role_id}`);
  if (role.deleted_at !== null) {
    throw new DomainError('role_deleted', `role ${role.name} (${role.id}) was deleted at ${role.deleted_at}`);
  }
  if (role.scope !== 'tenant') {
    throw new DomainError(
      'role_not_assignable',
      `${role.name} is an organisation role; it is not granted per tenant`,
      [{ field: 'role_id', message: 'is an organisation role' }],
    );
  }
  const now = state.clock.now();
  const expiry = input.expires_at === undefined ? null : futureExpiry(input.expires_at, now);
  requireHeld(state, principal, tenant.id, role.permissions, GRANT);
  const existing = identity
    .assignmentsOf(user.id, tenant.id)
    .find((a) => a.role_id === role.id && identity.isActive(a, now));
  if (existing) {
    const view = assignmentView(state, existing, now);
    const held = until(view.expires_at);
    throw new DomainError('assignment_exists', `${user.id} already holds ${role.name} ${held}`, [
      {
        field: 'role_id',
        message: `already held ${held} (audit trail ${view.audit_trail_id}); change its expiry with PATCH /v1/users/${user.id}/roles/${role.id}`,
        assignment: view,
      },
    ]);
  }
  const justification = input.justification ?? null;
  const entry = state.audit.record({
    tenant_id: tenant.id,
    action: 'role.assigned',
    actor: principal.subject,
    request_id: requestId,
    target_type: 'user',
    target_id: user.id,
    summary: `${role.name} granted to ${user.id} ${until(expiry)}`,
    user_id: user.id,
    role_id: role.id,
    role_name: role.name,
    expires_at: expiry,
    justification,
  });
  const assignment = identity.addAssignment({
    user_id: user.id,
    tenant_id: tenant.id,
    role_id: role.id,
    role_name: role.name,
    assigned_by: principal.subject,
    assigned_at: entry.at,
    expires_at: expiry,
    justification,
    audit_trail_id: entry.id,
  });
  return assignmentView(state, assignment, now);
}

export function revokeRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  userId: string,
  roleId: string,
  requestId: string,
): RoleAssignment {
  const { identity, roles } = state;
  const user = findUser(state, tenant, userId);
  const now = state.clock.now();
  const active = identity
    .assignmentsOf(user.id, tenant.id)
    .find((a) => a.role_id === roleId && identity.isActive(a, now));
  const role = roles.get(tenant.id, roleId);
  if (!role) throw notFound(`role ${roleId}`);
  if (!active)
    throw new DomainError('assignment_not_found', `${user.id} does not hold ${role.name} in this tenant`);
  requireHeld(state, principal, tenant.id, role.permissions, GRANT);
  if (roleId === 'tenant_admin' && countActiveAdmins(state, tenant.id, now) <= 1) {
    throw new DomainError(
      'last_tenant_admin',
      `${user.id} is the last active tenant_admin of ${tenant.slug}; grant tenant_admin to someone else first`,
    );
  }
  const entry = state.audit.record({
    tenant_id: tenant.id,
    action: 'role.revoked',
    actor: principal.subject,
    request_id: requestId,
    target_type: 'user',
    target_id: user.id,
    summary: `${role.name} revoked from ${user.id}`,
    user_id: user.id,
    role_id: role.id,
    role_name: role.name,
    expires_at: active.expires_at,
  });
  identity.revokeAssignment(active, principal.subject, entry.id);
  return assignmentView(state, active, now);
}

/**
 * Moves the expiry of an active assignment (later or sooner; null: permanent), with a
 * justification for the audit trail. Setting the expiry it already has changes nothing and
 * writes nothing.
 */
export function updateAssignment(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  userId: string,
  roleId: string,
  input: { expires_at: string | null; justification: string },
  requestId: string,
): RoleAssignment {
  const { identity, roles } = state;
  const user = findUser(state, tenant, userId);
  const role = roles.get(tenant.id, roleId);
  if (!role) throw notFound(`role ${roleId}`);
  const now = state.clock.now();
  const active = identity
    .assignmentsOf(user.id, tenant.id)
    .find((a) => a.role_id === roleId && identity.isActive(a, now));
  if (!active)
    throw new DomainError('assignment_not_found', `${user.id} does not hold ${role.name} in this tenant`);
  const justification = input.justification.trim();
  if (justification === '') {
    throw new DomainError('justification_required', 'changing an expiry needs a justification', [
      { field: 'justification', message: 'must not be blank' },
    ]);
  }
  const expiry = input.expires_at === null ? null : futureExpiry(input.expires_at, now);
  requireHeld(state, principal, tenant.id, role.permissions, GRANT);
  if (expiry === active.expires_at) return assignmentView(state, active, now);
  const entry = state.audit.record({
    tenant_id: tenant.id,
    action: 'role.assignment_updated',
    actor: principal.subject,
    request_id: requestId,
    target_type: 'user',
    target_id: user.id,
    summary: `${role.name} of ${user.id}: ${until(active.expires_at)} → ${until(expiry)}`,
    user_id: user.id,
    role_id: role.id,
    role_name: role.name,
    expires_at: expiry,
    previous_expires_at: active.expires_at,
    justification,
    changes: ['expires_at'],
  });
  active.expires_at = expiry;
  active.updated_at = entry.at;
  active.updated_by = principal.subject;
  active.update_audit_trail_id = entry.id;
  return assignmentView(state, active, now);
}

function countActiveAdmins(state: SandboxState, tenantId: string, now: number): number {
  let count = 0;
  for (const a of state.identity.assignments) {
    if (a.tenant_id === tenantId && a.role_id === 'tenant_admin' && state.identity.isActive(a, now)) count++;
  }
  return count;
}
