// Over 300 lines: the sandbox's rules for role grants (who may grant what, for how long, to whom,
// the last administrator), one list read top to bottom as the platform checks them.
import { HANDING_OUT, outlivesRefusal } from '../../api/holds.js';
import { keyMinterRefusal, mintsKeys } from '../../api/key-minting.js';
import type { RoleAssignment } from '../../api/schemas/roles.js';
import { selfAssignmentRefusal } from '../../api/self-assignment.js';
import { isoSeconds } from '../../api/time.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { assignmentView, findUser } from './assignments.js';
import { type AuditEntry, actorOf } from './audit-trail.js';
import { heldUntil, requireHeld } from './authorization.js';
import { DomainError, notFound } from './errors.js';
import type { Assignment, Tenant, User } from './identity.js';
import { keepAdministration } from './last-admin.js';
import { requestTimeMs } from './request-times.js';
import type { Role } from './roles.js';

/**
 * Granting, re-timing and revoking roles: who may (only roles whose every permission the caller
 * holds live, for no longer than the caller holds them; never to oneself; a role that mints keys
 * only by a person), what may be granted (live tenant roles, expiries in the future, no duplicate
 * of an active assignment), the tenant's administration kept (last-admin.ts), and an audit-trail entry for each change.
 */
const GRANT = HANDING_OUT.grant;

/**
 * Nobody grants themselves a role or moves the end of their own assignment, tenant_admin
 * included: a just-in-time grant ends when its granter meant it to. An API key is seen through to
 * the user who issued it, so a key is no way round the rule. Giving a role up (revoking one's
 * own) is not refused here.
 */
function refuseSelf(principal: Principal, user: User, change: 'grant' | 'expiry'): void {
  if ((principal.user?.id ?? principal.issuedBy) !== user.id) return;
  throw new DomainError(
    'self_assignment',
    selfAssignmentRefusal(change, principal.user ? undefined : user.id),
  );
}

/**
 * API keys cannot mint keys (user_required), so they cannot hand a person a role that can
 * either: granting or re-timing a role with api_key.manage takes a person.
 */
function refuseKeyMinterByKey(principal: Principal, role: Role, change: 'grant' | 'expiry'): void {
  if (principal.user || !mintsKeys(role.permissions)) return;
  throw new DomainError('user_required', keyMinterRefusal(role.name, change));
}

/**
 * No one hands out access that outlives their own: a grant, or an expiry moved later, ends no
 * later than the caller holds the role's permissions. Moving an expiry sooner hands out nothing.
 */
function requireWithinOwn(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  role: Role,
  expiry: string | null,
  current?: string | null,
): void {
  const bound = heldUntil(state, principal, tenant.id, role.permissions);
  const refusal = outlivesRefusal(role.name, bound, expiry, current);
  if (refusal === undefined) return;
  const until = isoSeconds(bound!);
  throw new DomainError('insufficient_permission', refusal, [
    { field: 'expires_at', message: `must be ${until} or earlier` },
  ]);
}

const until = (expiresAt: string | null) => (expiresAt ? `until ${expiresAt}` : 'permanently');

/** An expires_at the schema took, as ms (requestTimeMs: a leap second said so). `where` prefixes the field. */
export const expiryMs = (raw: string, where = ''): number => requestTimeMs(`${where}expires_at`, raw);

/** An expires_at of a request, at second precision, refused unless it is in the future. */
function futureExpiry(raw: string, now: number): string {
  const ms = expiryMs(raw);
  if (ms - (ms % 1000) <= now) {
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
  refuseSelf(principal, user, 'grant');
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
  refuseKeyMinterByKey(principal, role, 'grant');
  requireWithinOwn(state, principal, tenant, role, expiry);
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
  const { actor, ...via } = actorOf(principal);
  const assignment = recordGrant(state, {
    user_id: user.id,
    tenant_id: tenant.id,
    role_id: role.id,
    role_name: role.name,
    assigned_by: actor,
    ...via,
    expires_at: expiry,
    justification: input.justification ?? null,
    request_id: requestId,
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
  keepAdministration(state, tenant, active, { revoke: true }, now);
  const entry = recordRevocation(state, active, role, { ...actorOf(principal), request_id: requestId });
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
  refuseSelf(principal, user, 'expiry');
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
  refuseKeyMinterByKey(principal, role, 'expiry');
  requireWithinOwn(state, principal, tenant, role, expiry, active.expires_at);
  if (expiry === active.expires_at) return assignmentView(state, active, now);
  keepAdministration(state, tenant, active, { newExpiry: expiry }, now);
  const entry = state.audit.record({
    tenant_id: tenant.id,
    action: 'role.assignment_updated',
    ...actorOf(principal),
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

/**
 * A grant written down: its audit entry first, then the assignment naming it, so its
 * audit_trail_id is an entry `GET /v1/audit_trail/{id}` finds. The API's grants (assignRole) and
 * the demo seed's (with their own assigned_at) are written alike; the benchmark control POST
 * /_sandbox/assignments writes no entries, as its description says.
 */
export function recordGrant(
  state: SandboxState,
  grant: Omit<Assignment, 'audit_trail_id' | 'revoked_at' | 'assigned_at'> & {
    request_id: string;
    /** When it was made; the sandbox clock's now when left out. */
    assigned_at?: string;
    /** The OAuth client the granter acted through (AuditEntry.client_id). */
    client_id?: string;
  },
): Assignment {
  const { request_id, assigned_at, client_id, ...assignment } = grant;
  const entry = state.audit.record({
    ...(assigned_at === undefined ? {} : { at: assigned_at }),
    tenant_id: grant.tenant_id,
    action: 'role.assigned',
    actor: grant.assigned_by,
    ...(client_id === undefined ? {} : { client_id }),
    request_id,
    target_type: 'user',
    target_id: grant.user_id,
    summary: `${grant.role_name} granted to ${grant.user_id} ${until(grant.expires_at)}`,
    user_id: grant.user_id,
    role_id: grant.role_id,
    role_name: grant.role_name,
    expires_at: grant.expires_at,
    justification: grant.justification ?? null,
  });
  return state.identity.addAssignment({ ...assignment, assigned_at: entry.at, audit_trail_id: entry.id });
}

/**
 * The audit entry of a grant that ends before its time: revoked (revokeRole), or ended with its
 * role (`reason: role_deleted`, role-admin.ts deleteRole) — one role.revoked entry naming the
 * user either way, so the user's own history says they lost it.
 */
export function recordRevocation(
  state: SandboxState,
  grant: Assignment,
  role: Pick<Role, 'id' | 'name'>,
  by: Pick<AuditEntry, 'actor' | 'client_id' | 'request_id'>,
  reason?: 'role_deleted',
): AuditEntry {
  return state.audit.record({
    tenant_id: grant.tenant_id,
    action: 'role.revoked',
    ...by,
    target_type: 'user',
    target_id: grant.user_id,
    summary: `${role.name} revoked from ${grant.user_id}${reason ? ': the role was deleted' : ''}`,
    user_id: grant.user_id,
    role_id: role.id,
    role_name: role.name,
    expires_at: grant.expires_at,
    ...(reason ? { reason } : {}),
  });
}
