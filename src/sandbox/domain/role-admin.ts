import { changedFields } from '../../api/changed-fields.js';
import { HANDING_OUT, heldUntil, widenOutlivesRefusal } from '../../api/holds.js';
import { keyMinterRefusal, makesKeyMinter } from '../../api/key-minting.js';
import type { RoleUpdateBody } from '../../api/schemas/roles.js';
import { selfAssignmentRefusal } from '../../api/self-assignment.js';
import { isoSeconds } from '../../api/time.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { type AuditInput, actorOf, auditValues } from './audit-trail.js';
import { heldGrants, requireHeld } from './authorization.js';
import { DomainError, notFound } from './errors.js';
import { recordRevocation } from './grants.js';
import type { Tenant } from './identity.js';
import type { Role } from './roles.js';

/**
 * Custom roles as a caller changes them: the store's rules (names, catalog, built-ins immutable)
 * plus the rule that guards grants — nobody puts into a role a permission they do not hold
 * themselves, so role.manage cannot widen its own role into tenant_admin; nor changes anything of
 * a role (its name and description too: grants by name resolve them), or deletes one, carrying
 * permissions they do not hold, which would revoke those from every holder or hand the role out
 * under another's name; nor puts permissions into a role they hold, which is granting them to
 * themselves (self_assignment, as grants.ts refuses a self-grant; a key is seen through to its
 * issuer) — and an audit entry for every change (a deletion: one for the role and one
 * role.revoked, reason role_deleted, per grant it ends). A widen is a grant to every live holder
 * of the role: refused when one would hold an added permission longer than the caller holds it.
 * API keys do not create a role that mints keys, nor put api_key.manage into one (key-minting.ts).
 */
const { widen: WIDEN, change: CHANGE, delete: DELETE } = HANDING_OUT;

/** What a role entry records: the fields changed, their values, the permissions moved. */
type RoleDetail = Pick<
  AuditInput,
  'changes' | 'before' | 'after' | 'permissions_added' | 'permissions_removed'
>;

function audit(
  state: SandboxState,
  tenant: Tenant,
  verb: 'created' | 'updated' | 'deleted',
  role: Role,
  by: Principal,
  requestId: string,
  detail: RoleDetail = {},
) {
  const changes = detail.changes ?? null;
  state.audit.record({
    tenant_id: tenant.id,
    action: `role.${verb}`,
    ...actorOf(by),
    request_id: requestId,
    target_type: 'role',
    target_id: role.id,
    summary: `custom role ${role.name} ${verb}${changes ? ` (${changes.join(', ')})` : ''}`,
    role_id: role.id,
    role_name: role.name,
    ...detail,
  });
}

/** A role's fields an entry may show (none is secret). */
const roleFields = (role: Pick<Role, 'name' | 'description' | 'permissions'>) => ({
  name: role.name,
  description: role.description,
  permissions: [...role.permissions].sort(),
});

/** API keys cannot mint keys, so they make no role that can (user_required). */
function refuseKeyMinterByKey(
  principal: Principal,
  name: string,
  before: readonly string[] | null,
  after: readonly string[],
): void {
  if (principal.user || !makesKeyMinter(before ?? [], after)) return;
  throw new DomainError('user_required', keyMinterRefusal(name, before === null ? 'create' : 'widen'));
}

/** Permissions put into a role reach its live holders until their grants end: no later than the caller's. */
function requireWithinOwn(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  role: Role,
  added: string[],
  field: 'permissions' | 'add_permissions',
): void {
  if (added.length === 0) return;
  const now = state.clock.now();
  const holders = state.identity.assignments
    .filter((a) => a.tenant_id === tenant.id && a.role_id === role.id && state.identity.isActive(a, now))
    .map((a) => ({ user: a.user_id, expiresAt: a.expires_at }));
  const grants = heldGrants(state, principal, tenant.id);
  const refusal = widenOutlivesRefusal(role.name, grants, added, holders);
  if (refusal === undefined) return;
  const until = isoSeconds(heldUntil(grants, added)!);
  throw new DomainError('insufficient_permission', refusal, [
    { field, message: `would be held past ${until} by holders of ${role.name}` },
  ]);
}

/**
 * Nobody puts permissions into a role they hold live (just in time too): it is granting them to
 * themselves, and it would outlast the grant they hold them through now (self_assignment, as a
 * self-grant). An API key is seen through to the user who issued it. Narrowing is not refused here.
 */
function refuseOwnWiden(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  role: Role,
  added: string[],
): void {
  const self = principal.user?.id ?? principal.issuedBy;
  if (added.length === 0 || !self) return;
  const now = state.clock.now();
  const holds = state.identity
    .assignmentsOf(self, tenant.id)
    .some((a) => a.role_id === role.id && state.identity.isActive(a, now));
  if (!holds) return;
  throw new DomainError('self_assignment', selfAssignmentRefusal('widen', principal.user ? undefined : self));
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
  const role = state.roles.create(tenant.id, input, principal.subject, (added) => {
    requireHeld(state, principal, tenant.id, added, WIDEN);
    refuseKeyMinterByKey(principal, input.name, null, added);
  });
  audit(state, tenant, 'created', role, principal, requestId, {
    after: roleFields(role),
    permissions_added: roleFields(role).permissions,
    permissions_removed: [],
  });
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
  const before = roleFields(role);
  const changed = state.roles.update(role, change, (added, removed, changes) => {
    if (!changes) return;
    refuseOwnWiden(state, principal, tenant, role, added);
    requireHeld(state, principal, tenant.id, role.permissions, CHANGE);
    requireHeld(state, principal, tenant.id, added, WIDEN);
    const after = [...role.permissions, ...added].filter((p) => !removed.includes(p));
    refuseKeyMinterByKey(principal, role.name, role.permissions, after);
    requireWithinOwn(
      state,
      principal,
      tenant,
      role,
      added,
      change.permissions ? 'permissions' : 'add_permissions',
    );
  });
  // Nothing changed, nothing to audit.
  if (!changed) return role;
  if (role.name !== before.name) {
    for (const a of state.identity.assignments) if (a.role_id === role.id) a.role_name = role.name;
  }
  audit(state, tenant, 'updated', role, principal, requestId, roleChange(before, roleFields(role)));
  return role;
}

/**
 * An update's entry: the role's fields whose values changed (changedFields, as webhooks and OAuth
 * clients record theirs: permissions, not the request's add_permissions), their values before and
 * after, and the permissions put in and taken out.
 */
function roleChange(before: ReturnType<typeof roleFields>, after: ReturnType<typeof roleFields>): RoleDetail {
  const changes = changedFields(before, after);
  return {
    changes,
    ...auditValues(changes, before, after),
    permissions_added: after.permissions.filter((p) => !before.permissions.includes(p)),
    permissions_removed: before.permissions.filter((p) => !after.permissions.includes(p)),
  };
}

export function deleteRole(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  id: string,
  requestId: string,
): Role & { revoked_assignments: number } {
  const found = state.roles.mutable(findRole(state, tenant, id));
  requireHeld(state, principal, tenant.id, found.permissions, DELETE);
  const now = state.clock.now();
  const ended = state.identity.assignments.filter(
    (a) => a.tenant_id === tenant.id && a.role_id === found.id && state.identity.isActive(a, now),
  );
  const role = state.roles.softDelete(found);
  audit(state, tenant, 'deleted', role, principal, requestId);
  // Each holder lost the role: an entry naming the user, so their own history says so.
  for (const a of ended) {
    recordRevocation(state, a, role, { ...actorOf(principal), request_id: requestId }, 'role_deleted');
  }
  // How many lost it, as the delete itself found them: a count read before it is no result (attack24b F2).
  return { ...role, revoked_assignments: ended.length };
}
