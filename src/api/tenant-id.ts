/**
 * Tenant ids are UUIDs, and UUIDs are case-insensitive on input (RFC 9562 §4): an id pasted in
 * upper case (as SQL Server and .NET print them) names the same tenant. Both sides compare and
 * send the canonical lower-case form.
 */
export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTenantId(ref: string): boolean {
  return TENANT_ID.test(ref);
}

/** A UUID-shaped tenant reference in lower case; anything else (a slug) as given. */
export function canonicalTenantRef(ref: string): string {
  return isTenantId(ref) ? ref.toLowerCase() : ref;
}

/**
 * Whether `ref` (an id in any case, or a slug) names this tenant. Every lookup of a tenant
 * reference among tenants svc has read (the caller's, a listing's) goes through this one rule.
 */
export function namesTenant(tenant: { id: string; slug: string }, ref: string): boolean {
  const canonical = canonicalTenantRef(ref);
  return canonicalTenantRef(tenant.id) === canonical || tenant.slug === canonical;
}

/** The tenant among `tenants` that `ref` (an id in any case, or a slug) names; else undefined. */
export function tenantByRef<T extends { id: string; slug: string }>(
  tenants: readonly T[],
  ref: string,
): T | undefined {
  return tenants.find((t) => namesTenant(t, ref));
}
