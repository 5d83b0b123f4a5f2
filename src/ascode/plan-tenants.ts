import { canonicalTenantRef } from '../api/tenant-id.js';
import type { Platform } from '../platform/index.js';
import { planRefused } from './drift.js';
import type { PlanDocument } from './plan.js';
import { visibleTenants } from './visible.js';

/**
 * A saved plan's tenants are sent by id (X-Tenant-Id) and shown by slug and display name (the
 * confirmation, every row, every drift line). Its digest is a check anyone can compute again, not
 * a signature: a plan whose tenant id was changed (digest made again) would be confirmed as
 * "Apply … to Acme Labs?" and change another tenant. So before anything is sent, each tenant's id
 * is read on the platform (the credential's tenants, then those it sees), and a plan that names a
 * tenant otherwise than the platform does is refused whole: what is shown is what is changed.
 * An id the platform does not show the caller is left to the platform, which refuses every call
 * there (the tenant of a call is one of the credential's). Returns who applies it (GET /v1/me).
 */
export async function checkPlanTenants(
  platform: Platform,
  label: string,
  doc: PlanDocument,
  signal: AbortSignal,
): Promise<{ me: string }> {
  const me = await platform.me.get({ signal, tenant: null });
  const named = new Map<string, { slug: string; display_name: string }>();
  for (const t of me.tenants ?? []) named.set(canonicalTenantRef(t.id), t);
  const unknown = doc.tenants.map((t) => t.id).filter((id) => !named.has(canonicalTenantRef(id)));
  for (const [ref, t] of await visibleTenants(platform, unknown, signal)) {
    if (canonicalTenantRef(t.id) === canonicalTenantRef(ref)) named.set(canonicalTenantRef(ref), t);
  }
  for (const tenant of doc.tenants) {
    const real = named.get(canonicalTenantRef(tenant.id));
    if (!real || (real.slug === tenant.slug && real.display_name === tenant.display_name)) continue;
    throw planRefused(
      `${label} shows tenant ${tenant.id} as ${tenant.slug} (${tenant.display_name}), but the platform names it ${real.slug} (${real.display_name}): edited by hand, or the tenant was renamed since; nothing was applied`,
    );
  }
  return { me: me.id };
}
