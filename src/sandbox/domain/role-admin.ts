import { HANDING_OUT } from '../../api/holds.js';
import type { RoleUpdateBody } from '../../api/schemas/roles.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { requireHeld } from './authorization.js';
import { notFound } from './errors.js';
import { recordRevocation } from './grants.js';
import type { Tenant } from './identity.js';
import type { Role } from './roles.js';

/**
 * Custom roles as a caller changes them: the store's rules (names, catalog, built-ins immutable)
 * plus the rule that guards grants — nobody puts into a role a permission they do not hold
 * themselves, so role.manage cannot widen its own role into tenant_admin; nor takes one out of
 * a role, or deletes a role, carrying permissions they do not hold, which would revoke those
 * from every holder — and an audit entry for every change (a deletion: one for the role and one
 * role.revoked, reason role_deleted, per grant it ends).
 */
const { widen: WIDEN, narrow: NARROW, delete: DELETE } = HANDING_OUT;

function audit(
  state: SandboxState,
  tenant: Tenant,
  verb: 'created' | 'updated' | 'deleted',
  role: Role,
  actor: string,
  requestId: string,
  changes: string[] | null = null,
) {
  state.audit.record({
    tenant_id: tenant.id,
    action: `role.${verb}`,
    actor,
    request_id: requestId,
    target_type: 'role',
    target_id: role.id,
    summary: `custom role ${role.name} ${verb}${changes ? ` (${changes.join(', ')})` : ''}`,
    role_id: role.id,
    role_name: role.name,
    changes,
  });
}

export function findRole(state: SandboxState, tenant: Tenant, id: string): Role {
  const role = state.roles.get(tenant.id, id);
  if (!role) throw notFound(`role ${id}`);
  return role;
}

export function createRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  input: { name: string; description?: string | undefined; permissions: string[] },
  requestId: string,
): Role {
  const role = state.roles.create(tenant.id, input, principal.subject, (added) =>
    requireHeld(state, principal, tenant.id, added, WIDEN),
  );
  audit(state, tenant, 'created', role, principal.subject, requestId);
  return role;
}

export function updateRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  id: string,
  change: RoleUpdateBody,
  requestId: string,
): Role {
  const role = findRole(state, tenant, id);
  const renamed = change.name !== undefined && change.name !== role.name;
  const changed = state.roles.update(role, change, (added, removed) => {
    requireHeld(state, principal, tenant.id, added, WIDEN);
    requireHeld(state, principal, tenant.id, removed, NARROW);
  });
  if (renamed) {
    for (const a of state.identity.assignments) if (a.role_id === role.id) a.role_name = role.name;
  }
  // Nothing changed, nothing to audit.
  if (!changed) return role;
  const changes = Object.keys(change).filter((k) => (change as Record<string, unknown>)[k] !== undefined);
  audit(state, tenant, 'updated', role, principal.subject, requestId, changes);
  return role;
}

export function deleteRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  id: string,
  requestId: string,
): Role {
  const found = state.roles.mutable(findRole(state, tenant, id));
  requireHeld(state, principal, tenant.id, found.permissions, DELETE);
  const now = state.clock.now();
  const ended = state.identity.assignments.filter(
    (a) => a.tenant_id === tenant.id && a.role_id === found.id && state.identity.isActive(a, now),
  );
  const role = state.roles.softDelete(found);
  audit(state, tenant, 'deleted', role, principal.subject, requestId);
  // Each holder lost the role: an entry naming the user, so their own history says so.
  for (const a of ended) {
    recordRevocation(state, a, role, { actor: principal.subject, request_id: requestId }, 'role_deleted');
  }
  return role;
}
