import type { SandboxState } from '../state.js';
import type { Principal } from '../types.js';
import { liveRoleNames, liveTenants, refuseOrganisation, thirdPartyClient } from './authorization.js';
import { primaryRole, type Tenant } from './identity.js';

/**
 * Which tenants a caller sees (GET /v1/tenants): those of its credential where it holds a live
 * role; with an organisation named, those within it — or every tenant of it for an org_admin
 * acting through its own credential (a JWT or the first-party client, never a third-party
 * OAuth client, which stays in the tenant it was created in). Listing other tenants that way is
 * a security event.
 */
export function visibleTenants(
  state: SandboxState,
  principal: Principal,
  orgId: string | undefined,
  requestId: string,
) {
  const { identity } = state;
  // The authorization table makes sure there is at least one (membership).
  const members = liveTenants(state, principal);
  if (orgId !== undefined && (orgId !== principal.orgId || !identity.orgs.has(orgId))) {
    refuseOrganisation(state, principal, orgId, requestId);
  }
  const ownCredential =
    (principal.kind === 'jwt' || principal.kind === 'oauth_access_token') &&
    thirdPartyClient(principal) === null;
  const orgWide =
    orgId !== undefined &&
    ownCredential &&
    principal.user !== null &&
    identity.isOrgAdmin(principal.user.id, orgId);
  const memberIds = new Set(members.map((t) => t.id));
  const heldIn = (t: Tenant): string[] =>
    memberIds.has(t.id) ? liveRoleNames(state, principal, t.id) : orgWide ? ['org_admin'] : [];
  // org_admin is held in every tenant of the organisation administered, member or not (counted
  // only where seen solely through it, an org_admin who is a member everywhere matched nowhere).
  const administers = (t: Tenant): boolean =>
    ownCredential && principal.user !== null && identity.isOrgAdmin(principal.user.id, t.org_id);
  const rolesIn = (t: Tenant): string[] => {
    const held = heldIn(t);
    return administers(t) && !held.includes('org_admin') ? [...held, 'org_admin'] : held;
  };
  // Org-wide lists walk the global sorted index from the cursor; member lists are short.
  const source = orgWide ? identity.tenants : members;
  return {
    source,
    inScope: (t: Tenant) => orgId === undefined || t.org_id === orgId,
    /** The caller's live roles in the tenant (names), and org_admin in its organisation's tenants. */
    rolesIn,
    /** The role column: the highest of the roles held in the tenant (org_admin where seen only through it). */
    roleOf: (t: Tenant): string | undefined => primaryRole(heldIn(t)),
    indexAfter: (createdMs: number, id: string): number => {
      if (orgWide) return identity.tenantIndexAfter(createdMs, id);
      const i = source.findIndex((t) => t.createdMs > createdMs || (t.createdMs === createdMs && t.id > id));
      return i === -1 ? source.length : i;
    },
    logCrossTenant: (page: Tenant[]) => {
      if (!orgWide) return;
      const foreign = page.filter((t) => !memberIds.has(t.id)).map((t) => t.id);
      if (foreign.length === 0) return;
      state.recordSecurityEvent({
        kind: 'cross_tenant_list',
        actor: principal.subject,
        org_id: orgId ?? null,
        tenant_ids: foreign.slice(0, 50),
        request_id: requestId,
        detail: `org_admin listed ${foreign.length} tenant(s) outside the credential's tenants`,
      });
    },
  };
}
