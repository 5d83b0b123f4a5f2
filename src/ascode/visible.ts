import type { TenantSummary } from '../api/schemas/tenants.js';
import { namesTenant } from '../api/tenant-id.js';
import type { Platform } from '../platform/index.js';

/**
 * Tenants the caller can see but not act in: `/v1/tenants` lists, for an org_admin, every tenant
 * of the organisation, while the credential (`/v1/me`) names only the tenants where the caller
 * holds a role. A file or `svc export --tenant` naming such a tenant is told that truthfully (what
 * the caller is there, and what is needed), not that the tenant is not theirs to list.
 */

/** What export, plan and apply need in a tenant: reading roles, grants, webhooks and clients. */
export const NEEDED_TO_READ = 'role.read, webhook.read and oauth_client.manage';

/**
 * The tenants among `refs` (slugs or ids) that the caller sees, by the ref as given; asked only for
 * refs not theirs.
 */
export async function visibleTenants(
  platform: Platform,
  refs: readonly string[],
  signal: AbortSignal,
): Promise<Map<string, TenantSummary>> {
  const found = new Map<string, TenantSummary>();
  if (refs.length === 0) return found;
  const wanted = new Set(refs);
  try {
    for await (const tenant of platform.tenants.listAll({ limit: 200 }, { signal, tenant: null })) {
      for (const ref of wanted) if (namesTenant(tenant, ref)) found.set(ref, tenant);
      if (found.size >= wanted.size) break;
    }
  } catch {
    // Listing is only to explain a refusal better: without it the plainer message stands.
  }
  return found;
}

/** The one line for a tenant the caller sees but holds no role in. */
export function seenButNotHeld(_ref: string, tenant: TenantSummary): string {
  return `you are ${tenant.role} in ${tenant.slug}, which lets you see it but gives no role there; reading its access needs ${NEEDED_TO_READ} (tenant_admin has them)`;
}
