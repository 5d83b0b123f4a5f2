import { lastAdminRefusal, TENANT_ADMIN } from '../../api/last-admin.js';
import type { SandboxState } from '../state.js';
import { DomainError } from './errors.js';
import type { Assignment, Tenant } from './identity.js';

/**
 * A change cannot make a tenant's administration end sooner (the rule and its message are in
 * src/api/last-admin.ts, where svc's dry runs and plans predict it too): revoking a tenant_admin
 * grant, or moving its expiry sooner (`newExpiry`), is refused (409 last_tenant_admin) when that
 * grant ends later than every other live tenant_admin grant of the tenant.
 */
export function keepAdministration(
  state: SandboxState,
  tenant: Tenant,
  grant: Assignment,
  change: { revoke: true } | { newExpiry: string | null },
  now: number,
): void {
  if (grant.role_id !== TENANT_ADMIN) return;
  const others = state.identity.assignments
    .filter(
      (a) =>
        a !== grant &&
        a.tenant_id === tenant.id &&
        a.role_id === TENANT_ADMIN &&
        state.identity.isActive(a, now),
    )
    .map((a) => a.expires_at);
  const user = { user: grant.user_id, expiresAt: grant.expires_at };
  const refusal = lastAdminRefusal(tenant.slug, user, others, change, now);
  if (refusal !== undefined) throw new DomainError('last_tenant_admin', refusal);
}
