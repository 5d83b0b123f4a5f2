// Just over 300 lines: the sandbox's one decision of who may do what (roles, scopes, keys, third-party
// tokens, record acts), kept in one place so each refusal is judged by the same rules.
import { type HeldGrant, heldUntil as heldUntilOf, lackRefusal } from '../../api/holds.js';
import { actionOf, callersRefusal } from '../../api/operation-words.js';
import { type OperationRule, scopesAllow } from '../../api/operations.js';
import { FINER_PERMISSIONS, type RecordAct } from '../../api/record-acts.js';
import { grantsPermission } from '../../api/roles.js';
import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { DomainError } from './errors.js';
import type { Tenant } from './identity.js';

/**
 * Who may do what, decided on every call from live state. A credential only says who the caller
 * is (and, for a JWT, which tenants it may name); what the caller may do in a tenant comes from
 * its role assignments as they are now — not expired on the sandbox clock, not revoked, role
 * not deleted — so no token carries authority that outlives a revocation. API keys act with the
 * fixed role of their kind in their one tenant, until they are revoked, and only while their issuer
 * holds that role's permissions without an end date (plugins/auth.ts, keyStopped).
 */

/** A user's assignments in a tenant that are live now (not expired, not revoked, role not deleted). */
function liveAssignments(state: SandboxState, userId: string, tenantId: string) {
  const { identity } = state;
  const now = state.clock.now();
  return identity.assignmentsOf(userId, tenantId).filter((a) => identity.isActive(a, now));
}

/** The ids of the roles the caller holds live in a tenant (none in a tenant its credential cannot name). */
export function liveRoleIds(state: SandboxState, principal: Principal, tenantId: string): string[] {
  if (!principal.tenantIds.includes(tenantId)) return [];
  if (principal.fixedRoles) return principal.fixedRoles;
  if (!principal.user) return [];
  return liveAssignments(state, principal.user.id, tenantId).map((a) => a.role_id);
}

/** The names of those roles (custom roles by their current name), for display. */
export function liveRoleNames(state: SandboxState, principal: Principal, tenantId: string): string[] {
  return liveRoleIds(state, principal, tenantId).map((id) => state.roles.get(tenantId, id)?.name ?? id);
}

/** Every permission the caller's live roles grant in a tenant. */
export function livePermissions(state: SandboxState, principal: Principal, tenantId: string): Set<string> {
  return state.roles.permissionsOf(tenantId, liveRoleIds(state, principal, tenantId));
}

/** Every permission a user's own live roles grant in a tenant, whatever credential calls (an API key's issuer). */
export function userPermissions(state: SandboxState, userId: string, tenantId: string): Set<string> {
  return state.roles.permissionsOf(
    tenantId,
    liveAssignments(state, userId, tenantId).map((a) => a.role_id),
  );
}

/** The tenants of the credential where the caller holds a live role, in list order. */
export function liveTenants(state: SandboxState, principal: Principal): Tenant[] {
  return principal.tenantIds
    .map((id) => state.identity.tenantsById.get(id))
    .filter((t): t is Tenant => t !== undefined && liveRoleIds(state, principal, t.id).length > 0)
    .sort((a, b) => a.createdMs - b.createdMs || (a.id < b.id ? -1 : 1));
}

/**
 * No one hands out more than they hold: a role created or widened, a role granted or revoked,
 * an API key minted — each only with permissions the caller holds live in the tenant (the rule
 * itself is src/api/holds.ts, which svc's dry runs and plans predict with).
 */
export function requireHeld(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  permissions: Iterable<string>,
  what: string,
): void {
  const refusal = lackRefusal(what, livePermissions(state, principal, tenantId), permissions);
  if (refusal !== undefined) throw new DomainError('insufficient_permission', refusal);
}

/**
 * The caller's live grants in a tenant with their ends, as src/api/holds.ts judges them: a
 * user's live assignments; an API key's role, without an end date — a key acts only while its
 * issuer holds that role's permissions without one (api-keys.ts, keyStopped), so nothing handed
 * out through it outlives the issuer's own hold; none in a tenant the credential cannot name.
 */
export function heldGrants(state: SandboxState, principal: Principal, tenantId: string): HeldGrant[] {
  if (!principal.tenantIds.includes(tenantId)) return [];
  if (principal.fixedRoles) {
    return [{ permissions: [...state.roles.permissionsOf(tenantId, principal.fixedRoles)], expiresAt: null }];
  }
  return principal.user ? userGrants(state, principal.user.id, tenantId) : [];
}

/** A user's own live grants in a tenant with their ends, whatever credential calls (an API key's issuer). */
export function userGrants(state: SandboxState, userId: string, tenantId: string): HeldGrant[] {
  return liveAssignments(state, userId, tenantId).map((a) => ({
    expiresAt: a.expires_at,
    permissions: state.roles.get(tenantId, a.role_id)?.permissions ?? [],
  }));
}

/**
 * Until when (ms) the caller holds every one of these permissions live in the tenant (see
 * heldUntil in src/api/holds.ts). null when nothing ends them — permanent assignments, or an API
 * key (its role lasts until it is revoked, and it acts only while its issuer holds it without an end).
 */
export function heldUntil(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  permissions: Iterable<string>,
): number | null {
  return heldUntilOf(heldGrants(state, principal, tenantId), permissions);
}

/**
 * The tenant a call names (X-Tenant-Id or the path): it must exist and be one of the
 * credential's tenants. A refusal is written to the security events log, as a cross-tenant or a
 * cross-organisation attempt.
 */
export function namedTenant(
  state: SandboxState,
  principal: Principal,
  tenantId: string,
  requestId: string,
): Tenant {
  const tenant = state.identity.tenantsById.get(tenantId);
  if (tenant && principal.tenantIds.includes(tenant.id)) return tenant;
  const crossOrg = tenant !== undefined && tenant.org_id !== principal.orgId;
  state.recordSecurityEvent({
    kind: crossOrg ? 'cross_org_denied' : 'cross_tenant_denied',
    actor: principal.subject,
    org_id: principal.orgId,
    tenant_ids: [tenantId],
    request_id: requestId,
    detail: tenant
      ? `${principal.kind} of ${principal.subject} named tenant ${tenant.slug} (${crossOrg ? `organisation ${tenant.org_id}` : 'same organisation'}), which is not one of its tenants`
      : `${principal.kind} of ${principal.subject} named unknown tenant ${tenantId}`,
  });
  throw new DomainError('tenant_forbidden', `tenant ${tenantId} is not one of your credential's tenants`);
}

/** An X-SVC-Org-Id that is not the caller's organisation: refused and logged. */
export function refuseOrganisation(
  state: SandboxState,
  principal: Principal,
  orgId: string,
  requestId: string,
): never {
  state.recordSecurityEvent({
    kind: 'cross_org_denied',
    actor: principal.subject,
    org_id: principal.orgId,
    tenant_ids: [],
    request_id: requestId,
    detail: `${principal.kind} of ${principal.subject} named organisation ${orgId}`,
  });
  throw new DomainError('org_forbidden', `organisation ${orgId} is not yours`);
}

/**
 * The third-party OAuth client a token acts through for its user (a client created in a tenant),
 * or null: the user's own login (a JWT, or the first-party client svc-cli, which is in no tenant),
 * or an API key. A delegated token does what its user may within its scopes, but mints nothing
 * that outlives the client, nor does a key outlive itself: the operations that mint or re-point a
 * standing credential (API keys, OAuth clients, their secrets, redirect URIs and scopes, a
 * webhook's signing secret) are callers `users` (src/api/operations.ts `minting`); a webhook,
 * which ends with the client or key it was set up through, is not (webhook-owner.ts).
 */
export function thirdPartyClient(principal: Principal): string | null {
  return principal.kind === 'oauth_access_token' && principal.clientTenantId !== null
    ? principal.clientId
    : null;
}

/**
 * Whether the caller may run an operation of the table (src/api/operations.ts) in a tenant:
 * API keys and third-party OAuth clients where only users themselves may act, then the access
 * token's scopes, then a live role somewhere (where the operation needs one), then the permission
 * held live in the tenant. In that order
 * (after the tenant itself, checked by namedTenant), so every refusal names the first thing missing.
 */
export function authorizeOperation(
  state: SandboxState,
  principal: Principal,
  operationId: string,
  rule: OperationRule,
  tenant: Tenant | null,
): void {
  const action = actionOf(operationId);
  const client = thirdPartyClient(principal);
  if (rule.callers === 'users' && (!principal.user || client !== null)) {
    throw new DomainError('user_required', callersRefusal(operationId, rule, principal.user ? client : null));
  }
  if (principal.scopes !== null && !scopesAllow(rule, principal.scopes)) {
    const needed =
      rule.scopes === 'any' || rule.scopes.length === 0 ? 'admin' : `${rule.scopes.join(' or ')} (or admin)`;
    throw new DomainError(
      'insufficient_scope',
      `the access token lacks scope ${needed} for ${action}; it has ${principal.scopes.join(' ') || 'none'}`,
    );
  }
  if (rule.membership && liveTenants(state, principal).length === 0) {
    throw new DomainError('no_tenant_membership', `${action} needs a live role in at least one tenant`);
  }
  if (rule.permission === null) return;
  if (!tenant) throw new Error(`operation ${operationId} needs a permission but names no tenant`);
  const held = [...livePermissions(state, principal, tenant.id)];
  // A finer permission (exception.resolve.fx_difference, rule.write.fx) lets its holder through to
  // the operation; the record then decides what the change takes (requireRecordActs).
  const finer = FINER_PERMISSIONS[operationId] ?? [];
  const holdsFiner = finer.some((f) => held.some((p) => grantsPermission([p], f) || p.startsWith(`${f}.`)));
  if (!grantsPermission(held, rule.permission) && !holdsFiner) {
    const or = finer.length ? ` (or, for what each names, ${finer.join(', ')})` : '';
    throw new DomainError(
      'insufficient_role',
      roleRefusal(state, principal, tenant, `${action} needs permission ${rule.permission}${or}`),
    );
  }
}

/** The refusal of a caller whose live roles lack what `need` says ("<act> needs permission <p>"). */
function roleRefusal(state: SandboxState, principal: Principal, tenant: Tenant, need: string): string {
  const roles = liveRoleNames(state, principal, tenant.id);
  const where = `${need} in tenant ${tenant.slug}`;
  // A key acts with the role of its kind, which nobody can grant it more than: the fix is
  // another credential, not a grant.
  return principal.fixedRoles !== null
    ? `${where}, which this API key's role (${roles.join(', ') || 'none'}, fixed by its kind) does not grant; use a service-role key or a user's login`
    : `${where}, which your live roles there (${roles.join(', ') || 'none'}) do not grant; ask a tenant_admin of ${tenant.slug} for a role that grants it`;
}

/** Whether the caller's live roles in `tenant` grant `read` (a record surface's read permission). */
export function readsSurface(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  read: string,
): boolean {
  return grantsPermission([...livePermissions(state, principal, tenant.id)], read);
}

/**
 * The one refusal of a change to a caller who cannot read the record (`blind`: src/api/record-acts.ts
 * blindNeed), whatever the record holds and whether it exists: it names what they lack for sure
 * (`read`), never a permission they may hold (an exception.assign holder refused a resolve).
 */
export function blindRefusal(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  blind: string,
  read: string,
  act: 'change' | 'delete' = 'change',
): DomainError {
  const roles = liveRoleNames(state, principal, tenant.id).join(', ') || 'none';
  const where = `${blind} in tenant ${tenant.slug}`;
  // A delete takes only what the caller holds already (its permission is checked before): what
  // they lack is the read that shows whether the record exists (review17 F3).
  const ask =
    act === 'delete'
      ? `ask someone who holds ${read} whether it exists, or a tenant_admin of ${tenant.slug} for ${read}`
      : `ask a tenant_admin of ${tenant.slug} for ${read}, or for the permission the change needs`;
  if (principal.fixedRoles === null)
    return new DomainError(
      'insufficient_role',
      `${where}; your live roles there (${roles}) do not grant ${read}; ${ask}`,
    );
  // A key's role is its kind's: no grant gives it the read, so its words say what whoever holds
  // the key can do, not whom to ask for a role (session 17).
  const other = `a user's login that holds ${read}, or a service-role key (a user with api_key.manage issues one)`;
  const fix =
    act === 'delete'
      ? `ask someone who holds ${read} whether it exists, or use ${other}, for this delete`
      : `use ${other}, for this change`;
  return new DomainError(
    'insufficient_role',
    `${where}; this API key acts as ${roles}, fixed by its kind (no grant changes what a key holds), which does not grant ${read}; whoever holds the key can ${fix}`,
  );
}

/**
 * 403 insufficient_role unless the caller's live roles allow every act of a record change
 * (src/api/record-acts.ts: resolving, assigning, a rule of a kind), the first one lacking named;
 * what only a read shows (the record's kind) only to a caller holding `read`; to another, a
 * refused change of an existing record is said the same whatever the record holds (`blind`).
 */
export function requireRecordActs(
  state: SandboxState,
  principal: Principal,
  tenant: Tenant,
  acts: readonly RecordAct[],
  read: string,
): void {
  const held = [...livePermissions(state, principal, tenant.id)];
  const reads = grantsPermission(held, read);
  for (const { act: bare, of, anyOf, blind } of acts) {
    const act = `${bare}${reads && of ? of : ''}`;
    if (anyOf.some((p) => grantsPermission(held, p))) continue;
    if (!reads && blind !== undefined) throw blindRefusal(state, principal, tenant, blind, read);
    const broader = anyOf.flatMap((p) => {
      const up = p.slice(0, p.lastIndexOf('.'));
      return p.split('.').length > 2 ? [`${up} grants it too`] : [];
    });
    const need = `${act} needs permission ${anyOf.join(' or ')}${broader.length ? ` (${broader.join('; ')})` : ''}`;
    throw new DomainError('insufficient_role', roleRefusal(state, principal, tenant, need));
  }
}
